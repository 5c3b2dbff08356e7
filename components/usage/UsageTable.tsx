"use client";
// The usage charts in words, for screen readers and for reading figures:
// every hour and day with a model call, newest first, and always the current
// hour and day (the ones the spend line shows).
import type { UsageBucket, UsageSeries } from "@/lib/mind/budget/usage-series";
import { usd } from "./format";

const label = (bucket: "hour" | "day", start: number) => {
  const iso = new Date(start).toISOString();
  return bucket === "hour" ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso.slice(0, 10);
};

function rowsOf(s: UsageSeries): UsageBucket[] {
  const last = s.buckets.length - 1;
  return s.buckets.filter((b, i) => b.calls > 0 || i === last).reverse();
}

export function UsageTable({ hour, day }: { hour: UsageSeries; day: UsageSeries }) {
  const section = (s: UsageSeries, heading: string) => (
    <tbody>
      <tr>
        <th scope="rowgroup" colSpan={5} className="pt-2 text-left text-xs font-medium text-stone-500 dark:text-stone-400">
          {heading}
        </th>
      </tr>
      {rowsOf(s).map((b) => (
        <tr key={b.start} data-testid="usage-row" data-bucket={s.bucket} data-start={new Date(b.start).toISOString()} className="border-t border-stone-200 dark:border-stone-800">
          <th scope="row" className="py-0.5 pr-3 text-left font-normal">
            {label(s.bucket, b.start)}
          </th>
          <td className="pr-3 text-right tabular-nums">{b.calls}</td>
          <td className="pr-3 text-right tabular-nums">{b.inputTokens.toLocaleString("en")}</td>
          <td className="pr-3 text-right tabular-nums">{b.outputTokens.toLocaleString("en")}</td>
          <td data-testid="usage-usd" className="text-right tabular-nums">
            {usd(b.usd)}
          </td>
        </tr>
      ))}
    </tbody>
  );
  return (
    <table data-testid="usage-table" className="w-full max-w-2xl text-sm">
      <caption className="text-left text-xs text-stone-500 dark:text-stone-400">What each hour and day with a model call cost (the charts above, in figures).</caption>
      <thead>
        <tr className="text-xs text-stone-500 dark:text-stone-400">
          <th scope="col" className="pr-3 text-left font-medium">
            Period
          </th>
          <th scope="col" className="pr-3 text-right font-medium">
            Calls
          </th>
          <th scope="col" className="pr-3 text-right font-medium">
            Input tokens
          </th>
          <th scope="col" className="pr-3 text-right font-medium">
            Output tokens
          </th>
          <th scope="col" className="text-right font-medium">
            USD
          </th>
        </tr>
      </thead>
      {section(hour, "Per hour, last 48 hours")}
      {section(day, "Per day, last 30 days")}
    </table>
  );
}
