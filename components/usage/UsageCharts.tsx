"use client";
// Tokens and dollars per hour (last 48 h) and per day (last 30 days), as
// charts: the owner's Usage tab and an operator's Usage pane draw the same
// series the same way; only their test ids' prefix differs.
import type { UsageSeries } from "@/lib/mind/budget/usage-series";
import { UsageChart } from "./UsageChart";
import { usd } from "./format";

const INPUT = "#6366f1"; // indigo-500
const OUTPUT = "#14b8a6"; // teal-500
const DOLLARS = "#f59e0b"; // amber-500
const tokens = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n)));

/** `testIdPrefix`: the charts are `<prefix>-tokens-<bucket>` and `<prefix>-usd-<bucket>`. */
export function UsageCharts({ hour, day, testIdPrefix }: { hour: UsageSeries; day: UsageSeries; testIdPrefix: string }) {
  const chart = (s: UsageSeries, span: string) => {
    const x = s.buckets.map((b) => b.start);
    return (
      <>
        <UsageChart
          testId={`${testIdPrefix}-tokens-${s.bucket}`}
          title={`Tokens per ${s.bucket}, ${span} (UTC)`}
          x={x}
          format={tokens}
          series={[
            { label: "input", values: s.buckets.map((b) => b.inputTokens), colour: INPUT },
            { label: "output", values: s.buckets.map((b) => b.outputTokens), colour: OUTPUT },
          ]}
        />
        <UsageChart testId={`${testIdPrefix}-usd-${s.bucket}`} title={`Dollars per ${s.bucket}, ${span} (UTC)`} x={x} format={usd} series={[{ label: "USD", values: s.buckets.map((b) => b.usd), colour: DOLLARS }]} />
      </>
    );
  };
  return (
    <div className="grid gap-4 md:grid-cols-2">
      {chart(hour, "last 48 hours")}
      {chart(day, "last 30 days")}
    </div>
  );
}
