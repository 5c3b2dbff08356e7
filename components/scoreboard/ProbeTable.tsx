// Every probe of the run: pass or fail, when it was decided, why, and links
// to the steps that show it (each opens in the Trajectory tab).
import Link from "next/link";
import type { EvalProbe } from "@/lib/eval/results";
import { formatHours } from "@/lib/eval/scoreboard";

export function ProbeTable({ probes, stepHref }: { probes: readonly EvalProbe[]; stepHref: (stepId: string) => string }) {
  if (probes.length === 0) return <p className="text-sm text-stone-500 dark:text-stone-400">This scenario has no probes.</p>;
  return (
    <div className="overflow-x-auto">
      <table data-testid="probes" className="w-full text-sm">
        <thead className="text-left text-xs text-stone-500 dark:text-stone-400">
          <tr>
            <th scope="col" className="py-1 pr-3 font-medium">Result</th>
            <th scope="col" className="py-1 pr-3 font-medium">Probe</th>
            <th scope="col" className="py-1 pr-3 font-medium">Kind</th>
            <th scope="col" className="py-1 pr-3 font-medium">Decided at</th>
            <th scope="col" className="py-1 pr-3 font-medium">Why</th>
            <th scope="col" className="py-1 font-medium">Evidence</th>
          </tr>
        </thead>
        <tbody>
          {probes.map((p, i) => (
            <tr key={`${p.id}:${i}`} data-testid="probe-row" data-probe-id={p.id} data-pass={String(p.pass)} className="border-t border-stone-100 align-baseline dark:border-stone-900">
              <td className="py-1 pr-3">
                <span className={`rounded px-1.5 text-xs font-medium ${p.pass ? "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200" : "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200"}`}>
                  {p.pass ? "pass" : "FAIL"}
                </span>
              </td>
              <td className="py-1 pr-3 font-mono text-xs">{p.id}</td>
              <td className="py-1 pr-3 text-xs">{p.kind}</td>
              <td className="py-1 pr-3 text-xs whitespace-nowrap tabular-nums" data-value={JSON.stringify(p.at_h)}>
                {p.at_h === null ? <span title="Decided by nothing happening">—</span> : formatHours(p.at_h)}
              </td>
              <td className="py-1 pr-3 text-xs">{p.why}</td>
              <td className="py-1 text-xs">
                {p.evidence.length === 0 ? (
                  <span className="text-stone-500 dark:text-stone-400">none</span>
                ) : (
                  <span className="flex flex-wrap gap-x-2">
                    {p.evidence.map((id, k) => (
                      <Link key={`${id}:${k}`} href={stepHref(id)} data-testid="probe-evidence" data-step-id={id} title={id} className="font-mono text-indigo-700 underline dark:text-indigo-300">
                        {id.slice(0, 8)}
                      </Link>
                    ))}
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
