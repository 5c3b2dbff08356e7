"use client";
// Tokens of every model call in each simulated hour, as a bar chart on the
// simulated calendar (the usage tab's chart), with its total and busiest hour
// in words for those who cannot see the canvas.
import { useMemo } from "react";
import { UsageChart } from "../usage/UsageChart";

const TOKENS = "#6366f1"; // indigo-500, as the usage tab's input tokens
const HOUR_MS = 3_600_000;
const tokens = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n)));

export function TokensByHour({ start, tokens: perHour }: { start: string; tokens: readonly number[] }) {
  const startMs = Date.parse(start);
  const x = useMemo(() => perHour.map((_, h) => startMs + h * HOUR_MS), [perHour, startMs]);
  const series = useMemo(() => [{ label: "tokens", values: [...perHour], colour: TOKENS }], [perHour]);
  if (perHour.length === 0 || !Number.isFinite(startMs)) return <p className="text-sm text-stone-500 dark:text-stone-400">No model calls were recorded by the hour.</p>;
  const total = perHour.reduce((a, n) => a + n, 0);
  const peak = perHour.reduce((best, n, h) => (n > (perHour[best] ?? 0) ? h : best), 0);
  return (
    <div className="flex flex-col gap-1">
      <UsageChart testId="tokens-by-hour" title="Tokens per simulated hour (UTC)" x={x} format={tokens} series={series} />
      <p data-testid="tokens-summary" data-total={total} className="text-xs text-stone-500 dark:text-stone-400">
        {Math.round(total).toLocaleString("en")} tokens over {perHour.length} simulated hour{perHour.length === 1 ? "" : "s"}; the busiest was hour {peak} with{" "}
        {Math.round(perHour[peak] ?? 0).toLocaleString("en")}.
      </p>
    </div>
  );
}
