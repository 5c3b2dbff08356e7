"use client";
// What the new mind would cost if it only ever idled at its longest pause:
// the Usage tab's forecast, for the model, price, pacing and caps as typed.
import { TYPICAL_IDLE_WAKE, type Forecast } from "@/lib/onboarding/forecast";
import { usd } from "../usage/format";

export function OnboardingForecast({ forecast, model }: { forecast: Forecast | null; model: string }) {
  const box = "rounded bg-stone-50 px-3 py-2 text-sm dark:bg-stone-900";
  if (!forecast) {
    return (
      <p data-testid="onboarding-forecast" data-basis="none" className={box}>
        Cost forecast: set the pacing above to see what it would cost.
      </p>
    );
  }
  const perHour = Number(forecast.wakesPerHour.toFixed(2));
  if (forecast.hourUsd === null || forecast.dayUsd === null || forecast.wakeUsd === null) {
    return (
      <p data-testid="onboarding-forecast" data-basis={forecast.basis} className={box}>
        Cost forecast: no price known for this model{model ? ` (${model})` : ""}, so no forecast. Give its price above to see what {perHour} idle wakes an hour would cost.
      </p>
    );
  }
  const over = forecast.overHourCap ? "hourly" : forecast.overDayCap ? "daily" : null;
  return (
    <p data-testid="onboarding-forecast" data-basis={forecast.basis} className={box}>
      Cost forecast, idling at its longest pause ({perHour} wakes an hour, each about {TYPICAL_IDLE_WAKE.inputTokens.toLocaleString("en")} tokens in and {TYPICAL_IDLE_WAKE.outputTokens} out, {usd(forecast.wakeUsd)}):{" "}
      <strong data-testid="onboarding-forecast-hour">{usd(forecast.hourUsd)}</strong> an hour, <strong data-testid="onboarding-forecast-day">{usd(forecast.dayUsd)}</strong> a day. That is its floor: thinking, acting and
      answering people cost more.
      {over && <strong className="ml-1 text-red-700 dark:text-red-400">That is over its {over} spend cap: the cap would pause it even when it only idles.</strong>}
    </p>
  );
}
