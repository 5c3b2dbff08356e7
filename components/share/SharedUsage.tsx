"use client";
// An operator's view of what the mind spends, read-only: this hour and today
// against its caps, the burn rate, the last 30 days in sum, and the owner's
// Usage charts and table drawn from the figures the server summed.
import type { MindUsage } from "@/lib/sharing/wire";
import type { ShareClient } from "@/lib/sharing/client";
import { UsageCharts } from "../usage/UsageCharts";
import { UsageTable } from "../usage/UsageTable";
import { usd } from "../usage/format";
import { useSharedUsage } from "./use-shared-usage";

const btn = "min-h-10 rounded border border-stone-300 px-3 py-1 text-sm hover:bg-stone-100 disabled:opacity-40 dark:border-stone-700 dark:hover:bg-stone-900";

export function SharedUsage({ client }: { client: ShareClient }) {
  const { usage, error, loading, refresh } = useSharedUsage(client);
  return (
    <section data-testid="shared-usage" aria-label="Usage" className="flex flex-col gap-3 py-3">
      <div className="flex flex-wrap items-center gap-2">
        <h2 className="text-sm font-semibold">Usage</h2>
        <button type="button" data-testid="shared-usage-refresh" className={btn} disabled={loading} onClick={refresh}>
          {loading && usage ? "Refreshing…" : "Refresh"}
        </button>
        {usage && <span className="text-xs text-stone-500 dark:text-stone-400">as of {new Date(usage.now).toISOString().slice(11, 16)} UTC</span>}
      </div>
      {error && (
        <p role="alert" data-testid="shared-usage-error" className="text-sm text-red-700 dark:text-red-300">
          The usage could not be read: {error}
        </p>
      )}
      {!usage && loading && <p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>}
      {usage && <UsageFigures usage={usage} />}
    </section>
  );
}

/** The figures once read: shown as they came, until a refresh brings new ones. */
export function UsageFigures({ usage }: { usage: MindUsage }) {
  const { caps } = usage;
  const of = (cap: number | undefined) => (cap === undefined ? "" : ` of ${usd(cap)}`);
  const atCap = caps && (usage.day_usd >= caps.day_usd ? "daily" : usage.hour_usd >= caps.hour_usd ? "hourly" : null);
  const month = usage.day.buckets.reduce((t, b) => ({ calls: t.calls + b.calls, input: t.input + b.inputTokens, cached: t.cached + b.cachedInputTokens, output: t.output + b.outputTokens, usd: t.usd + b.usd }), {
    calls: 0,
    input: 0,
    cached: 0,
    output: 0,
    usd: 0,
  });
  return (
    <>
      <p className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
        <span>
          This hour: <span data-testid="shared-usage-hour">{usd(usage.hour_usd)}</span>
          {of(caps?.hour_usd)}
        </span>
        <span>
          Today: <span data-testid="shared-usage-today" data-usd={usage.day_usd}>{usd(usage.day_usd)}</span>
          {of(caps?.day_usd)}
        </span>
        <span>
          Burn rate: <span data-testid="shared-usage-burn">{usd(usage.burn_usd_per_hour)}/h</span> (what the last 60 minutes cost)
        </span>
      </p>
      {!caps && <p className="text-sm text-stone-600 dark:text-stone-400">The server holds no spend caps for this mind (its owner&apos;s settings have not synced here).</p>}
      {atCap && (
        <p role="status" className="text-sm font-semibold text-red-700 dark:text-red-400">
          It is at its {atCap} spend cap: it makes no model calls until the period rolls over or its owner raises the cap.
        </p>
      )}
      <p data-testid="shared-usage-month" className="text-sm">
        Last 30 days: {month.calls.toLocaleString("en")} model call{month.calls === 1 ? "" : "s"}, {month.input.toLocaleString("en")} tokens in
        {month.cached > 0 ? ` (${month.cached.toLocaleString("en")} from cache)` : ""}, {month.output.toLocaleString("en")} out, {usd(month.usd)}.
      </p>
      <UsageCharts hour={usage.hour} day={usage.day} testIdPrefix="shared-usage-chart" />
      <UsageTable hour={usage.hour} day={usage.day} />
    </>
  );
}

