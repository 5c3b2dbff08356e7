// Quiet hours as typed in Settings (components/settings/quiet-form.ts).
import { describe, expect, it } from "vitest";
import { readQuietFields } from "@/components/settings/quiet-form";
import { formOf } from "../../helpers/form";

const form = formOf;

describe("quiet hours in Settings", () => {
  it("are none while switched off, whatever the other fields hold", () => {
    expect(readQuietFields(form({ quiet_tz: "Nowhere/Land", quiet_ranges: "nonsense" }))).toEqual({ ok: true });
  });

  it("read the zone, the ranges (commas, spaces or dashes of any kind between), the alarms box and the messages choice", () => {
    expect(readQuietFields(form({ quiet_on: "on", quiet_tz: " Europe/Berlin ", quiet_ranges: "22:00–07:00, 12:30-13:30", quiet_alarms: "on", quiet_messages: "answer" }))).toEqual({
      ok: true,
      quiet: { tz: "Europe/Berlin", ranges: ["22:00-07:00", "12:30-13:30"], alarms: true, messages: "answer" },
    });
    expect(readQuietFields(form({ quiet_on: "on", quiet_tz: "UTC", quiet_ranges: "23:00-06:00", quiet_messages: "hold" }))).toEqual({
      ok: true,
      quiet: { tz: "UTC", ranges: ["23:00-06:00"], alarms: false, messages: "hold" },
    });
    // A form without the choice: messages are answered, as before it existed.
    expect(readQuietFields(form({ quiet_on: "on", quiet_tz: "UTC", quiet_ranges: "23:00-06:00" }))).toEqual({ ok: true, quiet: { tz: "UTC", ranges: ["23:00-06:00"], alarms: false, messages: "answer" } });
  });

  it("name each problem in a sentence: the zone, a range by what was typed, no range at all", () => {
    expect(readQuietFields(form({ quiet_on: "on", quiet_tz: "Mars/Olympus", quiet_ranges: "22:00-7:00" }))).toEqual({
      ok: false,
      problems: ["Quiet hours: not a known time zone (e.g. Europe/Berlin, America/New_York, UTC)", 'Quiet hours: 22:00-7:00: a range is "HH:MM-HH:MM", e.g. "22:00-07:00"'],
    });
    expect(readQuietFields(form({ quiet_on: "on", quiet_tz: "UTC", quiet_ranges: " " }))).toEqual({ ok: false, problems: ["Quiet hours: give at least one range, e.g. 22:00-07:00"] });
    expect(readQuietFields(form({ quiet_on: "on", quiet_tz: "UTC", quiet_ranges: "23:00-06:00", quiet_messages: "ignore" }))).toEqual({
      ok: false,
      problems: ['Quiet hours: messages are "answer" (at once) or "hold" (until the quiet hours end)'],
    });
  });
});
