// The run on its simulated axis: each probe a mark where it was decided
// (green passed, red failed; a ring where it was asked, for one decided by
// nothing happening), linking to the step that shows it; below, how densely
// the mind woke. Probes with no time at all (a budget) are listed beside.
import Link from "next/link";
import { useMemo } from "react";
import type { EvalResults } from "@/lib/eval/results";
import { axisTicks, densityBuckets, formatHours, markStep, placeProbes, stackMarks, wakeDensity } from "@/lib/eval/scoreboard";

/** Marks closer than this share of the axis go on separate rows. */
const MIN_GAP = 1.5;
const ROW_PX = 18;

export function ProbeTimeline({ results: r, stepHref }: { results: EvalResults; stepHref: (stepId: string) => string }) {
  const span = Math.max(r.duration_h, r.simulated_h, 1e-9);
  const x = (h: number) => Math.min(100, Math.max(0, (h / span) * 100));
  const { placed, unplaced } = useMemo(() => placeProbes(r.probes), [r.probes]);
  const rows = stackMarks(placed.map((p) => x(p.h)), MIN_GAP);
  const height = (Math.max(0, ...rows) + 1) * ROW_PX + 4;
  const density = useMemo(() => wakeDensity(r.wakes, span, densityBuckets(span)), [r.wakes, span]);
  const most = Math.max(1, ...density);
  return (
    <div data-testid="probe-timeline" className="flex flex-col gap-1">
      <div className="flex items-start gap-2">
        <span className="w-16 shrink-0 pt-0.5 text-xs font-medium text-stone-600 dark:text-stone-400">Probes</span>
        <div className="relative flex-1 rounded bg-stone-100 dark:bg-stone-900" style={{ height }}>
          {r.simulated_h < span && (
            <div aria-hidden title="Not played: the run stopped early" className="absolute inset-y-0 right-0 bg-stone-300/60 dark:bg-stone-700/60" style={{ left: `${x(r.simulated_h)}%` }} />
          )}
          {placed.map(({ probe, h, decided }, i) => {
            const text = `${probe.id} (${probe.kind}): ${probe.pass ? "passed" : "failed"} ${decided ? "at" : "asked at"} ${formatHours(h)}; ${probe.why}`;
            const border = probe.pass ? "border-emerald-600 dark:border-emerald-400" : "border-red-600 dark:border-red-400";
            const fill = !decided ? "bg-transparent" : probe.pass ? "bg-emerald-600 dark:bg-emerald-400" : "bg-red-600 dark:bg-red-400";
            const cls = `absolute h-3.5 w-3.5 -translate-x-1/2 rounded-full border-2 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 ${border} ${fill}`;
            const style = { left: `${x(h)}%`, top: (rows[i] ?? 0) * ROW_PX + 3 };
            const step = markStep(probe);
            const common = { "data-testid": "probe-mark", "data-probe-id": probe.id, "data-pass": String(probe.pass), "data-at-h": h, "data-decided": String(decided), title: text, "aria-label": text, style, className: cls };
            return step ? <Link key={`${probe.id}:${i}`} href={stepHref(step)} {...common} /> : <span key={`${probe.id}:${i}`} role="img" {...common} />;
          })}
        </div>
      </div>
      <div className="flex items-center gap-2">
        <span className="w-16 shrink-0 text-xs font-medium text-stone-600 dark:text-stone-400">Wakes</span>
        <div data-testid="wake-density" data-wakes={r.wakes.length} role="img" aria-label={`${r.wakes.length} wakes over ${formatHours(r.simulated_h)}`} className="flex h-3 flex-1 overflow-hidden rounded bg-stone-100 dark:bg-stone-900">
          {density.map((n, i) => (
            <div key={i} className="h-full flex-1 bg-sky-600 dark:bg-sky-400" style={{ opacity: n ? 0.15 + (0.85 * n) / most : 0 }} />
          ))}
        </div>
      </div>
      <div aria-hidden className="relative ml-18 h-4 text-[10px] text-stone-500 dark:text-stone-400">
        {axisTicks(span).map((t) => (
          // The ends' labels stay inside the axis.
          <span key={t.h} className={`absolute whitespace-nowrap ${x(t.h) === 0 ? "" : x(t.h) === 100 ? "-translate-x-full" : "-translate-x-1/2"}`} style={{ left: `${x(t.h)}%` }}>
            {t.label}
          </span>
        ))}
      </div>
      {unplaced.length > 0 && (
        <p data-testid="probes-untimed" className="text-xs text-stone-500 dark:text-stone-400">
          Over the whole run, with no time of their own:{" "}
          {unplaced.map((p, i) => (
            <span key={`${p.id}:${i}`} className={p.pass ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}>
              {i ? ", " : ""}
              {p.id} {p.pass ? "passed" : "failed"} ({p.why})
            </span>
          ))}
        </p>
      )}
    </div>
  );
}
