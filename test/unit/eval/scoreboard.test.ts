// The scoreboard's words and places (lib/eval/scoreboard.ts): each metric's
// figure as shown, the simulated axis, where probes sit and on which row,
// how wakes are bucketed, and the variants' side-by-side rows.
import { describe, expect, it } from "vitest";
import { parseEvalResults, type EvalMetrics } from "@/lib/eval/results";
import { axisTicks, densityBuckets, formatHours, formatMetric, formatSeconds, formatUsd, isThisRun, markStep, METRICS, placeProbes, stackMarks, variantRows, wakeDensity } from "@/lib/eval/scoreboard";
import { makeResults, withVariants } from "../../fixtures/eval-results";

const R = makeResults({ message: "m", answer: "a", other: "o" });

describe("metrics in words", () => {
  it("lists every figure of EvalMetrics once, each with what it means", () => {
    expect(METRICS.map((m) => m.name).sort()).toEqual(Object.keys(R.metrics).sort());
    expect(METRICS.every((m) => m.means.length > 10)).toBe(true);
  });

  it("writes each figure as a person reads it; nothing measured is a dash", () => {
    const shown = Object.fromEntries(METRICS.map(({ name }) => [name, formatMetric(name, R.metrics[name])]));
    expect(shown).toEqual({
      first_response_s_p50: "42 s",
      first_response_s_p95: "5.2 min",
      reply_rate: "83.3%",
      duplicate_replies: "1",
      recall_accuracy: "0%",
      unprompted_done: "0",
      unprompted_per_person_day: "1.25/person/day",
      model_calls: "57",
      usd_per_hour: "$0.0013/h",
      tokens_per_hour_idle: "1,234/h",
      tokens_per_hour_busy: "5,678/h",
      context_tokens_p50: "2,100",
      context_tokens_max: "—",
      errors_by_reason: "timeout 2, budget 1",
    });
    const none: Partial<EvalMetrics> = { errors_by_reason: {}, reply_rate: null, usd_per_hour: 0, model_calls: 12345 };
    expect([formatMetric("errors_by_reason", none.errors_by_reason!), formatMetric("reply_rate", null), formatMetric("usd_per_hour", 0), formatMetric("model_calls", 12345)]).toEqual(["none", "—", "$0/h", "12,345"]);
  });

  it("reads a results.json written before unprompted_per_person_day was counted as not measured", () => {
    const { unprompted_per_person_day: _u, ...older } = R.metrics;
    const read = parseEvalResults(JSON.stringify({ ...R, metrics: older }));
    if (!read.ok) throw new Error(read.error);
    expect(read.results.metrics).toEqual({ ...R.metrics, unprompted_per_person_day: null });
    expect(formatMetric("unprompted_per_person_day", read.results.metrics.unprompted_per_person_day)).toBe("—");
  });

  it("seconds, dollars and hours", () => {
    expect([0.04, 59.96, 60, 3599, 3600, 5400].map(formatSeconds)).toEqual(["0 s", "60 s", "1 min", "60 min", "1 h", "1.5 h"]);
    expect([0, 0.004, 0.01, 12.345].map(formatUsd)).toEqual(["$0", "$0.0040", "$0.01", "$12.35"]);
    expect([0, 1.25, 47.5, 48, 54, 167.96].map(formatHours)).toEqual(["0 h", "1.25 h", "47.5 h", "2 d", "2 d 6 h", "7 d"]);
  });
});

describe("the axis", () => {
  it("hours for two days or less, at most a dozen ticks; days for longer; a week of days", () => {
    expect(axisTicks(2).map((t) => t.label)).toEqual(["0 h", "0.25 h", "0.5 h", "0.75 h", "1 h", "1.25 h", "1.5 h", "1.75 h", "2 h"]);
    expect(axisTicks(24).map((t) => t.h)).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24]);
    expect(axisTicks(48).map((t) => t.h)).toEqual([0, 6, 12, 18, 24, 30, 36, 42, 48]);
    expect(axisTicks(168).map((t) => t.label)).toEqual(["day 1", "day 2", "day 3", "day 4", "day 5", "day 6", "day 7"]);
    expect(axisTicks(24 * 20).map((t) => t.h)).toEqual([0, 48, 96, 144, 192, 240, 288, 336, 384, 432]);
    expect(axisTicks(0)).toEqual([{ h: 0, label: "0 h" }]);
  });
});

describe("wakes", () => {
  it("counts wakes per stretch of the run, the end in the last stretch, those outside left out", () => {
    const w = (at_h: number) => ({ at_h, reason: "scheduled", mode: "idle" as const, tokens: 0, model_s: 0, exec_s: 0 });
    expect(wakeDensity([w(0), w(0.1), w(1), w(3.9), w(4), w(-1), w(5)], 4, 4)).toEqual([2, 1, 0, 2]);
    expect(wakeDensity(R.wakes, 24, densityBuckets(24))).toHaveLength(96);
    expect(wakeDensity(R.wakes, 24, 24).reduce((a, n) => a + n, 0)).toBe(48);
  });

  it("a quarter hour per stretch, at most 168 (an hour each over a week)", () => {
    expect([0.1, 2, 24, 42, 168, 1000].map(densityBuckets)).toEqual([1, 8, 96, 168, 168, 168]);
  });
});

describe("probes on the timeline", () => {
  it("sits each where it was decided, one decided by nothing where it was asked, and lists one with no time", () => {
    const { placed, unplaced } = placeProbes(R.probes);
    expect(placed.map((p) => [p.probe.id, p.h, p.decided])).toEqual([
      ["hello", 1.25, true],
      ["cat", 5.5, true],
      ["quiet", 3.5, false],
    ]);
    expect(unplaced.map((p) => p.id)).toEqual(["spend"]);
    // Without its message's time, it waits beside the others.
    expect(placeProbes(R.probes.map((p) => ({ ...p, asked_h: null }))).unplaced.map((p) => p.id)).toEqual(["quiet", "spend"]);
  });

  it("puts marks closer than the gap on rows of their own, in the order given", () => {
    expect(stackMarks([10, 10.5, 50, 11, 12, 11.6], 1.5)).toEqual([0, 1, 0, 2, 1, 0]);
    expect(stackMarks([], 1)).toEqual([]);
  });

  it("a mark opens the mind's step that decided it, else the person's message", () => {
    expect(R.probes.map(markStep)).toEqual(["a", "a", "o", undefined]);
  });
});

describe("variants side by side", () => {
  const v = withVariants(R);

  it("a row per figure, a cell per variant: passed, hours, each probe, each metric", () => {
    const rows = variantRows(v.variants!);
    expect(rows.map((r) => r.key)).toEqual(["passed", "simulated", "probe:hello", "probe:cat", "probe:quiet", "probe:spend", ...METRICS.map((m) => `metric:${m.name}`)]);
    const byKey = new Map(rows.map((r) => [r.key, r.cells]));
    expect(byKey.get("passed")).toEqual([
      { text: "3 / 4", value: 3 },
      { text: "4 / 4", value: 4 },
    ]);
    expect(byKey.get("probe:cat")).toEqual([
      { text: "fail", value: false, pass: false },
      { text: "pass", value: true, pass: true },
    ]);
    expect(byKey.get("metric:model_calls")).toEqual([
      { text: "57", value: 57 },
      { text: "99", value: 99 },
    ]);
    expect(byKey.get("simulated")?.map((c) => c.text)).toEqual(["24 h", "24 h"]);
  });

  it("a probe one variant lacks is a dash there; a stopped run says so", () => {
    const [a, b] = v.variants!;
    const rows = variantRows([{ ...a!, complete: false, simulated_h: 3 }, { ...b!, probes: b!.probes.slice(0, 1) }]);
    expect(rows.find((r) => r.key === "probe:cat")?.cells[1]).toEqual({ text: "—", value: null });
    expect(rows.find((r) => r.key === "simulated")?.cells[0]?.text).toBe("3 h (stopped early)");
  });

  it("marks this archive's own run among them by its label", () => {
    expect(v.variants!.map((x) => isThisRun(x, v))).toEqual([true, false]);
  });
});
