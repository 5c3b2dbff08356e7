"use client";
// A mind's spend caps, in USD per UTC hour and per UTC day. Shared by the
// new-mind form (ids cap-hour, cap-day) and Settings (settings-cap-hour …).
import { DEFAULT_BUDGET } from "@/lib/mind/budget/budget";
import type { BudgetConfig } from "@/lib/trajectory/schema";
import { inputClass } from "./ModelFields";
import { CAP_DAY_FIELD, CAP_HOUR_FIELD } from "./money-form";

export function BudgetFields({ initial, testIdPrefix = "" }: { initial?: BudgetConfig; testIdPrefix?: string }) {
  const value = initial ?? DEFAULT_BUDGET;
  return (
    <fieldset className="grid gap-3 sm:grid-cols-2">
      <legend className="mb-1 text-sm font-medium">Spend caps</legend>
      <label className="block text-sm">
        USD per hour
        <input name={CAP_HOUR_FIELD} type="number" min={0} step="any" required defaultValue={value.hour_usd} className={inputClass} data-testid={`${testIdPrefix}cap-hour`} />
      </label>
      <label className="block text-sm">
        USD per day
        <input name={CAP_DAY_FIELD} type="number" min={0} step="any" required defaultValue={value.day_usd} className={inputClass} data-testid={`${testIdPrefix}cap-day`} />
      </label>
      <p className="text-xs text-stone-500 dark:text-stone-400 sm:col-span-2">
        At a cap the mind pauses, keeping every step, until the hour or the day (UTC) rolls over or you raise the cap.
        {initial ? "" : " A mind cannot start without both."}
      </p>
    </fieldset>
  );
}
