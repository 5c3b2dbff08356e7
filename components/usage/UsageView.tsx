"use client";
// What a mind costs, from its usage table: tokens and dollars per hour (last
// 48 h) and per day (last 30 days) as charts and as a table, the burn rate,
// and the forecast at its pacing cap (its floor while it runs).
import { useMemo, useState } from "react";
import { costUsd } from "@/lib/llm/price";
import { priceFor } from "@/lib/llm/prices";
import { forecast as forecastOf, idleWakeCosts, TYPICAL_IDLE_WAKE, type Forecast } from "@/lib/onboarding/forecast";
import { seriesStart, usageSeries } from "@/lib/mind/budget/usage-series";
import { useTimelineSteps, useUsageRows } from "@/lib/store/view/hooks";
import { usePriceTable, useSpend } from "@/lib/store/view/hooks-settings";
import { timelineOf } from "@/lib/trajectory/timeline";
import { UsageCharts } from "./UsageCharts";
import { UsageTable } from "./UsageTable";
import { usd } from "./format";
import type { MindSettings } from "@/lib/mind/settings/settings";

const DAY_MS = 86_400_000;

export function UsageView({ mind }: { mind: MindSettings }) {
  // The last 48 hours (which hold today) are re-read every 2 s, as the spend line is; the days before, once.
  const [span] = useState(() => ({ days: seriesStart("day", Date.now()), hours: seriesStart("hour", Date.now()) }));
  const older = useUsageRows(mind.id, span.days, span.hours);
  const recent = useUsageRows(mind.id, span.hours);
  const rows = useMemo(() => (older && recent ? [...older, ...recent] : undefined), [older, recent]);
  const spend = useSpend(mind.id);
  const [wakesSince] = useState(() => Date.now() - DAY_MS);
  const steps = useTimelineSteps(mind.id, wakesSince);
  const table = usePriceTable();

  const series = useMemo(() => {
    if (!rows) return null;
    const now = Date.now();
    return { hour: usageSeries(rows, "hour", now), day: usageSeries(rows, "day", now) };
  }, [rows]);
  const forecast = useMemo(() => {
    if (!steps || !rows || !table) return null;
    const price = priceFor(mind.model, table);
    return forecastOf({
      pacing: mind.pacing,
      idleWakes: idleWakeCosts(timelineOf(steps), rows),
      ...(price ? { typicalWakeUsd: costUsd(price, TYPICAL_IDLE_WAKE) } : {}),
      ...(mind.budget ? { budget: mind.budget } : {}),
    });
  }, [steps, rows, table, mind]);

  return (
    // tabIndex: the view scrolls and holds nothing focusable, so the keyboard needs a way to scroll it.
    <section data-testid="usage-view" aria-label="Usage" tabIndex={0} className="flex min-h-0 flex-1 flex-col gap-4 overflow-auto py-3">
      <p className="flex flex-wrap gap-x-4 text-sm">
        <span>
          Burn rate: <span data-testid="usage-burn">{spend ? `${usd(spend.burnUsdPerHour)}/h` : "…"}</span> (what the last 60 minutes cost)
        </span>
      </p>
      <ForecastLine forecast={forecast} capS={mind.pacing.cap_s} />
      {series ? <UsageCharts hour={series.hour} day={series.day} testIdPrefix="usage-chart" /> : <p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>}
      {series && <UsageTable hour={series.hour} day={series.day} />}
    </section>
  );
}

function ForecastLine({ forecast, capS }: { forecast: Forecast | null; capS: number }) {
  if (!forecast) return <p className="text-sm text-stone-500 dark:text-stone-400">Forecast: …</p>;
  const pace = `one idle wake every ${capS} s, ${Number(forecast.wakesPerHour.toFixed(2))} an hour${forecast.quietHoursPerDay > 0 ? `, none in its ${Number(forecast.quietHoursPerDay.toFixed(2))} quiet hours a day` : ""}`;
  const basis =
    forecast.basis === "history"
      ? `from the average of its last ${forecast.samples} idle wake${forecast.samples === 1 ? "" : "s"} (${usd(forecast.wakeUsd ?? 0)} each)`
      : forecast.basis === "price"
        ? `from the price table: no idle wake on record yet, so a typical one (${TYPICAL_IDLE_WAKE.inputTokens.toLocaleString("en")} tokens in, ${TYPICAL_IDLE_WAKE.outputTokens} out, ${usd(forecast.wakeUsd ?? 0)}) at its model's price`
        : "";
  return (
    <p data-testid="usage-forecast" data-basis={forecast.basis} className="text-sm">
      {forecast.hourUsd === null || forecast.dayUsd === null ? (
        <>Forecast at the pacing cap ({pace}): unknown, since it has no idle wake on record and its model has no price. Give one in Settings or the price table.</>
      ) : (
        <>
          Forecast at the pacing cap ({pace}): <strong data-testid="forecast-hour">{usd(forecast.hourUsd)}</strong> an hour,{" "}
          <strong data-testid="forecast-day">{usd(forecast.dayUsd)}</strong> a day, {basis}.
          {(forecast.overHourCap || forecast.overDayCap) && (
            <strong className="ml-1 text-red-700 dark:text-red-400">That is over its {forecast.overHourCap ? "hourly" : "daily"} spend cap: the cap will pause it even when it only idles.</strong>
          )}
        </>
      )}
    </p>
  );
}
