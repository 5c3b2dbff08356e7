// The new-mind form's pacing in plain words and the cost forecast it implies:
// the sentence follows the mind's own backoff rules, the forecast is the
// Usage tab's (lib/onboarding/forecast) at the price the mind would be counted at.
import { describe, expect, it } from "vitest";
import { draftForecast, draftPrice } from "@/components/onboarding/forecast-draft";
import { readPacingFields } from "@/components/onboarding/pacing-form";
import { pacingPlan, pacingProblems, pacingSentence, shortDuration } from "@/components/onboarding/pacing-words";
import { BUILT_IN_PRICES } from "@/lib/llm/prices";
import { TYPICAL_IDLE_WAKE } from "@/lib/onboarding/forecast";
import { afterWake, DEFAULT_PACING, delaySeconds, RESTED } from "@/lib/mind/pacing/pacing";
import { formOf } from "../../helpers/form";

const form = formOf;

describe("the pacing in plain words", () => {
  it("Headlong's defaults: pauses from the 3rd quiet wake, 5 s doubling every 3 wakes, 5 min after about 16 min", () => {
    expect(pacingSentence(DEFAULT_PACING)).toBe(
      "When nobody is around and it finds nothing to do, it starts pausing after its 3rd quiet wake: 5 s at first, twice as long every 3 quiet wakes, up to 5 min (after about 16 min of quiet). Then at most 12 wakes an hour; a message or real work brings it back to no pause.",
    );
  });

  it("agrees with the mind's own backoff, wake by wake", () => {
    for (const p of [DEFAULT_PACING, { base_s: 1, cap_s: 4, ticks_per_level: 1 }, { base_s: 3, cap_s: 1000, ticks_per_level: 2 }]) {
      let state = RESTED;
      const delays: number[] = [];
      while (delays.at(-1) !== p.cap_s) {
        state = afterWake(state, { reactive: false, didWork: false }, p);
        delays.push(delaySeconds(state.level, p));
      }
      const plan = pacingPlan(p);
      expect(delays.findIndex((d) => d > 0) + 1).toBe(plan.wakesBeforeFirstPause);
      expect(delays.slice(0, -1).reduce((a, b) => a + b, 0)).toBe(plan.secondsToCap);
    }
  });

  it("a first pause at the cap, one wake per level, and a cap of hours read as they should", () => {
    expect(pacingSentence({ base_s: 300, cap_s: 300, ticks_per_level: 3 })).toBe(
      "When nobody is around and it finds nothing to do, it starts pausing after its 3rd quiet wake: 5 min each time. Then at most 12 wakes an hour; a message or real work brings it back to no pause.",
    );
    expect(pacingSentence({ base_s: 1, cap_s: 4, ticks_per_level: 1 })).toContain("after its 1st quiet wake: 1 s at first, twice as long every quiet wake, up to 4 s (after about 3 s of quiet). Then at most 900 wakes an hour");
    expect(pacingSentence({ base_s: 2, cap_s: 7200, ticks_per_level: 2 })).toContain("up to 2 h (after about 4.6 h of quiet). Then at most 0.5 wakes an hour");
    expect([shortDuration(5), shortDuration(90), shortDuration(300), shortDuration(5400)]).toEqual(["5 s", "1.5 min", "5 min", "1.5 h"]);
  });

  it("says the quiet hours, when the mind has them", () => {
    expect(pacingSentence({ ...DEFAULT_PACING, quiet: { tz: "Europe/Berlin", ranges: ["22:00-07:00"], alarms: true, messages: "answer" } })).toMatch(
      /a message or real work brings it back to no pause\. It makes no wake of its own in its quiet hours, 22:00–07:00 \(Europe\/Berlin\) \(alarms still ring\); a message still wakes it\.$/,
    );
    expect(pacingSentence({ ...DEFAULT_PACING, quiet: { tz: "UTC", ranges: ["12:00-13:00", "23:00-06:00"], alarms: false, messages: "answer" } })).toContain("in its quiet hours, 12:00–13:00, 23:00–06:00 (UTC); a message still wakes it.");
  });

  it("says when messages wait, when its human chose to hold them: at the end of the stretch, however many ranges run into it", () => {
    expect(pacingSentence({ ...DEFAULT_PACING, quiet: { tz: "Europe/Berlin", ranges: ["22:00-07:00"], alarms: true, messages: "hold" } })).toMatch(
      /It makes no wake of its own in its quiet hours, 22:00–07:00 \(Europe\/Berlin\) \(alarms still ring\); messages wait until 07:00\.$/,
    );
    expect(pacingSentence({ ...DEFAULT_PACING, quiet: { tz: "UTC", ranges: ["22:00-00:00", "00:00-06:30"], alarms: false, messages: "hold" } })).toMatch(/\(UTC\); messages wait until 06:30\.$/);
    expect(pacingSentence({ ...DEFAULT_PACING, quiet: { tz: "UTC", ranges: ["12:00-13:00", "23:00-06:00"], alarms: false, messages: "hold" } })).toMatch(/\(UTC\); messages wait until the stretch ends \(13:00 or 06:00\)\.$/);
  });

  it("fields that cannot be a pacing are each named, in plain words", () => {
    expect(readPacingFields(form({ base_s: "5", cap_s: "300", ticks_per_level: "3" }))).toEqual({ ok: true, pacing: DEFAULT_PACING });
    expect(readPacingFields(form({ base_s: "", cap_s: "-1", ticks_per_level: "1.5" }))).toEqual({
      ok: false,
      problems: ["The first pause is a number of seconds above 0.", "The longest pause is a number of seconds above 0.", "Idle wakes per level is a whole number above 0."],
    });
    expect(pacingProblems({ base_s: 60, cap_s: 5, ticks_per_level: 3 })).toEqual(["The longest pause cannot be shorter than the first one."]);
  });
});

describe("the cost forecast a new mind's settings imply", () => {
  it("at the model's price in this browser's table: a typical idle wake, 12 an hour at the default cap", () => {
    const price = draftPrice({ provider: "openai", model: "gpt-4o-mini" }, undefined, BUILT_IN_PRICES);
    expect(price).toEqual(BUILT_IN_PRICES["openai/gpt-4o-mini"]);
    const f = draftForecast(DEFAULT_PACING, price, { hour_usd: 1, day_usd: 5 });
    // A typical idle wake's tokens (2,500 in and 80 out today: $0.000423) at $0.15 in and $0.60 out per million, 12 an hour.
    const wake = (TYPICAL_IDLE_WAKE.inputTokens * 0.15 + TYPICAL_IDLE_WAKE.outputTokens * 0.6) / 1e6;
    expect(f.basis).toBe("price");
    expect(f.wakeUsd).toBeCloseTo(wake, 12);
    expect(f.hourUsd).toBeCloseTo(wake * 12, 12);
    expect(f.dayUsd).toBeCloseTo(wake * 12 * 24, 12);
    expect([f.overHourCap, f.overDayCap]).toEqual([false, false]);
  });

  it("a typed price wins over the table, the proxy's price is the host's, and a shorter cap costs more, over the caps", () => {
    expect(draftPrice({ provider: "openai", model: "gpt-4o-mini", price: { input: 10, output: 10 } }, undefined, BUILT_IN_PRICES)).toEqual({ input: 10, output: 10 });
    const offer = { available: true as const, models: [{ id: "scripted", price: { input: 1, output: 2 } }] };
    expect(draftPrice({ provider: "proxy", model: "scripted" }, offer, {})).toEqual({ input: 1, output: 2 });
    const f = draftForecast({ base_s: 1, cap_s: 10, ticks_per_level: 1 }, { input: 100, output: 100 }, { hour_usd: 1, day_usd: 5 });
    expect(f.wakesPerHour).toBe(360);
    expect([f.overHourCap, f.overDayCap]).toEqual([true, true]);
  });

  it("no price known: an unknown forecast, not a guess", () => {
    expect(draftPrice({ provider: "openai-compatible", model: "llama3.1", baseURL: "http://localhost:11434/v1" }, undefined, BUILT_IN_PRICES)).toBeUndefined();
    expect(draftForecast(DEFAULT_PACING, undefined)).toMatchObject({ basis: "unknown", wakeUsd: null, hourUsd: null, dayUsd: null, wakesPerHour: 12 });
  });
});
