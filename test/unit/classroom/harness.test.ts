// lib/classroom: three harnesses on a simulated clock. The persistent lane's
// wake times are worked out by hand from Headlong's pacing (0 s three times,
// then 5, 10, 20 s … three wakes per level), the reactive lane has one wake
// per message, and every total is the sum of its wakes.
import { describe, expect, it } from "vitest";
import { compareHarnesses, latencySummary, simulate, type Assumptions } from "../../../lib/classroom/harness";
import { defaultAssumptions } from "../../../lib/classroom/assumptions";
import { DAY_PRESETS, DAY_S, clockOf, parseDay, type ScriptedDay } from "../../../lib/classroom/days";
import { DEFAULT_PACING } from "../../../lib/mind/pacing/pacing";

const PRICE = { input: 1, output: 2 };
const SMALL: Assumptions = {
  messageWake: { calls: 2, inputTokens: 8000, outputTokens: 300, runS: 2 },
  idleWake: { calls: 1, inputTokens: 2500, outputTokens: 80, runS: 1 },
  scheduleEveryS: 60,
  pacing: DEFAULT_PACING,
  price: PRICE,
};
const day = (lengthS: number, ...at: number[]): ScriptedDay => ({ name: "test", lengthS, messages: at.map((atS, i) => ({ atS, from: "Ada", text: `m${i}` })) });

describe("the persistent harness", () => {
  it("wakes exactly when Reverie's default pacing says, and a message cuts the pause short and rests it", () => {
    const r = simulate("persistent", day(200, 100), SMALL);
    // Each idle wake runs 1 s; the pause after it is delaySeconds(level): 0,0,0 then 5,5,5, 10,10,10, 20 …
    // 0 start; 1,2,3 at level 0; +1+5 → 9,15,21; +1+10 → 32,43,54; +1+20 → 75,96; the message at 100 (runs 2 s);
    // rested: 102,103,104; 110,116,122; 133,144,155; 176,197 (the next, 218, is past the day's end).
    expect(r.wakes.map((w) => w.atS)).toEqual([0, 1, 2, 3, 9, 15, 21, 32, 43, 54, 75, 96, 100, 102, 103, 104, 110, 116, 122, 133, 144, 155, 176, 197]);
    expect(r.wakes.map((w) => w.cause)).toEqual(["start", ...Array(11).fill("paced"), "message", ...Array(11).fill("paced")]);
    expect(r.wakes.map((w) => w.level)).toEqual([0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3]);
    expect(r.wakes.slice(4, 8).map((w) => w.pauseS)).toEqual([5, 5, 5, 10]);
    expect(r.latencyS).toEqual([2]);
  });

  it("a message that arrives during a run waits for it, and one wake answers every message waiting", () => {
    // Wakes at 0..3 run 1 s each; messages at 2.5 and 2.7 land in the run of 2..3.
    const r = simulate("persistent", day(10, 2.5, 2.7), SMALL);
    expect(r.wakes.slice(0, 5).map((w) => [w.atS, w.cause, w.answers])).toEqual([
      [0, "start", []],
      [1, "paced", []],
      [2, "paced", []],
      [3, "message", [0, 1]],
      [5, "paced", []],
    ]);
    expect(r.latencyS).toEqual([2.5, 2.3]);
  });
});

describe("the reactive harness", () => {
  it("has exactly one wake per message, in order, even when they arrive together", () => {
    const r = simulate("reactive", day(100, 10, 11, 50), SMALL);
    expect(r.wakes.map((w) => [w.atS, w.cause, w.answers])).toEqual([
      [10, "message", [0]],
      [12, "message", [1]],
      [50, "message", [2]],
    ]);
    expect(r.latencyS).toEqual([2, 3, 2]);
  });

  it("on every preset day: as many wakes as messages, all answered", () => {
    for (const p of DAY_PRESETS) {
      const parsed = parseDay(p.name, p.script);
      if (!parsed.ok) throw new Error(parsed.error);
      const r = simulate("reactive", parsed.day, defaultAssumptions());
      expect(r.wakes.length, p.key).toBe(parsed.day.messages.length);
      expect(r.latencyS.every((l) => l !== null)).toBe(true);
    }
  });
});

describe("the scheduled harness", () => {
  it("ticks on its timer, and a tick missed during a run fires once the run ends", () => {
    // Ticks at 60, 120, 180; the message at 119 runs until 121, so the tick of 120 fires at 121.
    const r = simulate("scheduled", day(200, 119), SMALL);
    expect(r.wakes.map((w) => [w.atS, w.cause])).toEqual([
      [60, "timer"],
      [119, "message"],
      [121, "timer"],
      [180, "timer"],
    ]);
  });
});

describe("costs", () => {
  it("every wake is priced at the model's price, and the totals are the sums of the wakes", () => {
    const [reactive, scheduled, persistent] = compareHarnesses(day(200, 100), SMALL);
    // A message wake: 2 calls of (8000 × 1 + 300 × 2) / 1e6 USD = 0.0172; an idle wake: (2500 + 160) / 1e6 = 0.00266.
    expect(reactive?.usd).toBeCloseTo(0.0172, 12);
    expect(reactive?.calls).toBe(2);
    expect(scheduled?.usd).toBeCloseTo(0.0172 + 3 * 0.00266, 12);
    expect(scheduled?.calls).toBe(2 + 3);
    expect(persistent?.usd).toBeCloseTo(0.0172 + 23 * 0.00266, 12);
    expect(persistent?.inputTokens).toBe(16000 + 23 * 2500);
    expect(persistent?.outputTokens).toBe(600 + 23 * 80);
    for (const r of [reactive, scheduled, persistent]) {
      if (!r) throw new Error("missing harness");
      expect(r.usd).toBeCloseTo(r.wakes.reduce((t, w) => t + w.usd, 0), 12);
      expect(r.calls).toBe(r.wakes.reduce((t, w) => t + w.calls, 0));
    }
  });

  it("a whole school day: the persistent mind wakes far more often, at its pacing cap through the night", () => {
    const parsed = parseDay("school", DAY_PRESETS[0]?.script ?? "");
    if (!parsed.ok) throw new Error(parsed.error);
    const [reactive, scheduled, persistent] = compareHarnesses(parsed.day, defaultAssumptions());
    expect(reactive?.wakes.length).toBe(8);
    // 96 ticks of 15 min in a day, less the one at 00:00 (the timer starts with the day).
    expect(scheduled?.wakes.filter((w) => w.cause === "timer").length).toBe(95);
    // The start and 21 wakes (levels 0 to 6, three each) climb to the 300 s cap; after that, through the night until
    // Ada's first message at 08:00, a wake comes every 305 s (the cap plus a 5 s idle run).
    const night = (persistent?.wakes ?? []).filter((w) => w.atS < 8 * 3600);
    const gaps = night.slice(22).map((w, i) => w.atS - (night[i + 21]?.atS ?? 0));
    expect(gaps.length).toBeGreaterThan(80);
    expect(new Set(gaps)).toEqual(new Set([305]));
    expect(night.slice(19, 23).map((w) => w.level)).toEqual([6, 6, 6, 7]);
    // Every message rests the pacing, so the day costs far more wakes than the messages.
    expect(persistent?.wakes.length).toBeGreaterThan(10 * (reactive?.wakes.length ?? 0));
    expect(latencySummary(persistent?.latencyS ?? []).unanswered).toBe(0);
  });
});

describe("parseDay", () => {
  it("reads one message a line and skips blanks and comments", () => {
    expect(parseDay("d", "# morning\n08:30 Ada: hello\n\n23:59:30 Ben: late: very")).toEqual({
      ok: true,
      day: {
        name: "d",
        lengthS: DAY_S,
        messages: [
          { atS: 8 * 3600 + 30 * 60, from: "Ada", text: "hello" },
          { atS: 23 * 3600 + 59 * 60 + 30, from: "Ben", text: "late: very" },
        ],
      },
    });
  });

  it("names the line at fault", () => {
    expect(parseDay("d", "08:30 Ada: hi\nlunch Ben: hi")).toEqual({ ok: false, error: 'Line 2: "lunch Ben: hi" is not "HH:MM who: text" (e.g. "08:30 Ada: hello").' });
    expect(parseDay("d", "25:00 Ada: hi")).toEqual({ ok: false, error: "Line 1: 25:00 is not a time of day (00:00 to 23:59)." });
    expect(parseDay("d", "\n# nothing\n").ok).toBe(false);
  });

  it("clockOf writes seconds since midnight as a time of day", () => {
    expect([0, 8 * 3600 + 5 * 60, 3661].map(clockOf)).toEqual(["00:00", "08:05", "01:01:01"]);
  });
});
