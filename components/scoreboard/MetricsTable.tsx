// A run's figures: each metric's value in words, the exact figure beside it
// where the words round or group it (and always in data-value, as
// results.json has it), and what it means.
import type { EvalMetrics } from "@/lib/eval/results";
import { formatMetric, METRICS } from "@/lib/eval/scoreboard";

export function MetricsTable({ metrics }: { metrics: EvalMetrics }) {
  return (
    <table data-testid="metrics" className="w-full text-sm">
      <thead className="sr-only">
        <tr>
          <th scope="col">Metric</th>
          <th scope="col">Value</th>
          <th scope="col">What it means</th>
        </tr>
      </thead>
      <tbody>
        {METRICS.map(({ name, means }) => {
          const value = metrics[name];
          const shown = formatMetric(name, value);
          // Beside the words only where they do not already hold it (83.3% for 0.8333…, 1,865 for 1865).
          const exact = typeof value === "number" && !shown.includes(String(value)) ? String(value) : null;
          return (
            <tr key={name} className="border-b border-stone-100 align-baseline dark:border-stone-900">
              <th scope="row" className="py-1 pr-3 text-left font-mono text-xs font-normal whitespace-nowrap text-stone-600 dark:text-stone-400">
                {name}
              </th>
              <td data-testid={`metric-${name}`} data-value={JSON.stringify(value)} className="py-1 pr-3 font-medium tabular-nums whitespace-nowrap">
                {shown}
                {exact !== null && (
                  <span title="The exact figure in results.json" className="ml-2 font-mono text-xs font-normal text-stone-500 dark:text-stone-400">
                    {exact}
                  </span>
                )}
              </td>
              <td className="py-1 text-xs text-stone-500 dark:text-stone-400">{means}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
