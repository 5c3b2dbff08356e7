"use client";
// Quiet hours in Settings: stretches of the mind's local day with no wake of
// its own (alarms ring through unless unticked; a message is answered at once,
// or held until they end, as chosen).
import { useState } from "react";
import type { QuietHours } from "@/lib/trajectory/schema";
import { inputClass } from "./ModelFields";
import { useHydrated } from "../use-hydrated";
import { QUIET_ALARMS_FIELD, QUIET_MESSAGES_FIELD, QUIET_ON_FIELD, QUIET_RANGES_FIELD, QUIET_TZ_FIELD, rangesText } from "./quiet-form";

/** This browser's own zone, for a mind that has none yet. */
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** `testIds`: the fields' test-id prefix (Settings' `settings-quiet-…`; the new-mind form's `new-mind-quiet-…`). */
export function QuietHoursFields({ initial, testIds = "settings" }: { initial: QuietHours | undefined; testIds?: "settings" | "new-mind" }) {
  const [on, setOn] = useState(initial !== undefined);
  // The server knows no browser's zone: its HTML says UTC, and the field is made again with this browser's once hydrated.
  const hydrated = useHydrated();
  const zone = initial?.tz ?? (hydrated ? browserZone() : "UTC");
  return (
    <fieldset className="grid gap-3 sm:grid-cols-3">
      <legend className="mb-1 text-sm font-medium">Quiet hours</legend>
      <label className="flex items-center gap-2 text-sm sm:col-span-3">
        <input type="checkbox" name={QUIET_ON_FIELD} defaultChecked={on} onChange={(e) => setOn(e.currentTarget.checked)} data-testid={`${testIds}-quiet-on`} />
        No wakes of its own at these hours
      </label>
      <label className="block text-sm">
        Time zone
        <input name={QUIET_TZ_FIELD} type="text" disabled={!on} key={zone} defaultValue={zone} className={inputClass} data-testid={`${testIds}-quiet-tz`} />
      </label>
      <label className="block text-sm">
        Hours (HH:MM-HH:MM, commas between)
        <input name={QUIET_RANGES_FIELD} type="text" disabled={!on} defaultValue={rangesText(initial)} className={inputClass} data-testid={`${testIds}-quiet-ranges`} />
      </label>
      <label className="flex items-center gap-2 self-end text-sm">
        <input type="checkbox" name={QUIET_ALARMS_FIELD} disabled={!on} defaultChecked={initial?.alarms ?? true} data-testid={`${testIds}-quiet-alarms`} />
        Alarms and alerts still ring
      </label>
      <label className="block text-sm sm:col-span-3">
        Messages in quiet hours
        <select name={QUIET_MESSAGES_FIELD} disabled={!on} defaultValue={initial?.messages ?? "answer"} className={inputClass} data-testid={`${testIds}-quiet-messages`}>
          <option value="answer">answered at once</option>
          <option value="hold">held until the quiet hours end</option>
        </select>
      </label>
    </fieldset>
  );
}
