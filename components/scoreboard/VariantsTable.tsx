// A --vary run's variants side by side: a column per variant (this archive's
// own marked), a row per figure: probes passed, hours played, each probe,
// each metric.
import type { EvalResults, EvalVariant } from "@/lib/eval/results";
import { isThisRun, variantName, variantRows } from "@/lib/eval/scoreboard";

export function VariantsTable({ variants, results }: { variants: readonly EvalVariant[]; results: EvalResults }) {
  const rows = variantRows(variants);
  const mine = variants.map((v) => isThisRun(v, results));
  const here = (i: number) => (mine[i] ? "bg-indigo-50 dark:bg-indigo-950/40" : "");
  return (
    <div className="overflow-x-auto">
      <table data-testid="variants" className="text-sm">
        <thead>
          <tr>
            <th scope="col" className="py-1 pr-3 text-left text-xs font-medium text-stone-500 dark:text-stone-400">
              Figure
            </th>
            {variants.map((v, i) => (
              <th
                key={`${v.label}:${i}`}
                scope="col"
                data-testid="variant-col"
                data-label={v.label}
                data-current={String(mine[i])}
                aria-current={mine[i] ? "true" : undefined}
                title={`${v.model}${v.seed === null ? "" : `, seed ${v.seed}`}`}
                className={`px-3 py-1 text-left font-mono text-xs font-medium whitespace-nowrap ${here(i)}`}
              >
                {variantName(v)}
                {mine[i] && <span className="ml-1 font-sans font-normal text-indigo-700 dark:text-indigo-300">(this run)</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key} data-testid="variant-row" data-row={row.key} className="border-t border-stone-100 align-baseline dark:border-stone-900">
              <th scope="row" className="py-1 pr-3 text-left font-mono text-xs font-normal whitespace-nowrap text-stone-600 dark:text-stone-400">
                {row.label}
              </th>
              {row.cells.map((c, i) => (
                <td
                  key={i}
                  data-value={JSON.stringify(c.value)}
                  className={`px-3 py-1 text-xs tabular-nums whitespace-nowrap ${here(i)} ${c.pass === true ? "text-emerald-700 dark:text-emerald-400" : c.pass === false ? "font-medium text-red-700 dark:text-red-400" : ""}`}
                >
                  {c.text}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
