// lib/onboarding/forecast.ts: the spend per hour and per day if the mind woke at
// its pacing cap forever, each wake an idle one: from the average of its own
// idle wakes (read from the usage table, written by the mind's own writer
// through its IndexedDB state, at a price through lib/llm/price.ts), or from a typical idle wake at its
// model's price when it has none on record.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { costUsd } from "@/lib/llm/price";
import { type Price } from "@/lib/mind/settings/model";
import { forecast, idleWakeCosts, TYPICAL_IDLE_WAKE } from "@/lib/onboarding/forecast";
import { DEFAULT_PACING } from "@/lib/mind/pacing/pacing";
import type { ReverieDb } from "@/lib/store/db/db";
import { MindWriter, TrajectoryLog } from "@/lib/mind/log/mind-log";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import { readTimeline, usageRowsSince } from "@/lib/store/steps/timeline";
import { formatTs, type Step } from "@/lib/trajectory/schema";
import { timelineOf } from "@/lib/trajectory/timeline";
import { openTestDb } from "../helpers/db";

const MIND = "00000000-0000-4000-8000-00000000bbbb";
const T0 = Date.parse("2026-03-02T10:00:00.000Z");
const price: Price = { input: 0.15, output: 0.6 };

describe("forecast", () => {
  it("at the default cap (300 s) a mind wakes 12 times an hour; without history it prices a typical idle wake", () => {
    const typical = costUsd(price, TYPICAL_IDLE_WAKE);
    expect(forecast({ pacing: DEFAULT_PACING, idleWakes: [], typicalWakeUsd: typical, budget: { hour_usd: 1, day_usd: 5 } })).toEqual({
      basis: "price",
      samples: 0,
      wakeUsd: typical,
      wakesPerHour: 12,
      quietHoursPerDay: 0,
      hourUsd: typical * 12,
      dayUsd: typical * 12 * 24,
      overHourCap: false,
      overDayCap: false,
    });
  });

  it("history beats the price table; the caps say when the floor is already over them", () => {
    expect(forecast({ pacing: { ...DEFAULT_PACING, cap_s: 60 }, idleWakes: [0.01, 0.03], typicalWakeUsd: 99, budget: { hour_usd: 1, day_usd: 20 } })).toEqual({
      basis: "history",
      samples: 2,
      wakeUsd: 0.02,
      wakesPerHour: 60,
      quietHoursPerDay: 0,
      hourUsd: 0.02 * 60,
      dayUsd: 0.02 * 60 * 24,
      overHourCap: true,
      overDayCap: true,
    });
  });

  it("quiet hours have no idle wakes: a day costs its waking hours only, ranges that overlap counted once", () => {
    const quiet = { tz: "Europe/Berlin", ranges: ["22:00-07:00", "06:00-08:00"], alarms: true, messages: "answer" as const };
    const f = forecast({ pacing: { ...DEFAULT_PACING, cap_s: 60, quiet }, idleWakes: [0.01], budget: { hour_usd: 1, day_usd: 20 } });
    expect(f.quietHoursPerDay).toBe(10);
    expect(f.hourUsd).toBeCloseTo(0.6);
    expect(f.dayUsd).toBeCloseTo(0.6 * 14);
  });

  it("no idle wake on record and no price: unknown, and no figure made up", () => {
    expect(forecast({ pacing: DEFAULT_PACING, idleWakes: [] })).toEqual({ basis: "unknown", samples: 0, wakeUsd: null, wakesPerHour: 12, quietHoursPerDay: 0, hourUsd: null, dayUsd: null, overHourCap: false, overDayCap: false });
  });
});

describe("the forecast from the ledger", () => {
  let db: ReverieDb;
  beforeEach(async () => {
    db = await openTestDb("forecast");
  });
  afterEach(async () => {
    await db.delete();
  });

  it("averages what the idle wakes' calls cost in the usage table; working wakes and the responder are left out", async () => {
    await db.trajectories.add({ mind_id: MIND, traj_id: MIND, name: "Mo", dir: "" });
    const writer = new MindWriter(indexedDbMindState(db, MIND));
    const log = new TrajectoryLog(writer, MIND);
    let n = 0;
    const id = () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
    const ts = (s: number) => formatTs(T0 + s * 1000);
    const call = (tokens: { inputTokens: number; outputTokens: number }) => ({ input_tokens: tokens.inputTokens, output_tokens: tokens.outputTokens, usd: costUsd(price, tokens) });
    // A wake on schedule whose run makes these calls and ends with this FINAL.
    const wake = async (s: number, calls: { inputTokens: number; outputTokens: number }[], final: string) => {
      const w = id();
      const run = id();
      const steps: Step[] = [
        { type: "wake", step_id: w, ts: ts(s), reason: "scheduled", level: 7, delay_s: 300, source: "monolith" },
        { type: "shellm-run", step_id: run, ts: ts(s), launched_by: "monolith", wake: w },
        ...calls.map((c, i): Step => ({ type: "reasoning", step_id: id(), ts: ts(s + i + 1), run_id: run, thought: "t", cmd: "FINAL=idle", usage: call(c) })),
        { type: "final", step_id: id(), ts: ts(s + 5), run_id: run, content: final },
      ];
      for (const step of steps) await log.append(step);
    };
    const a = { inputTokens: 2471, outputTokens: 83 };
    const b = { inputTokens: 2300, outputTokens: 40 };
    const c = { inputTokens: 1900, outputTokens: 120 };
    await wake(0, [a], "idle");
    await wake(300, [b, c], "idle: still nothing");
    await wake(600, [{ inputTokens: 16_000, outputTokens: 900 }], "learn: something"); // worked: not an idle wake
    await log.append({ type: "observation", step_id: id(), ts: ts(700), content: "I answered Ada.", decision: "replied", source: "responder", usage: call({ inputTokens: 5000, outputTokens: 50 }) });

    await writer.flushed();
    const { steps } = await readTimeline(db, MIND, null);
    const rows = await usageRowsSince(db, MIND, 0);
    expect(rows).toHaveLength(5);
    const costs = idleWakeCosts(timelineOf(steps), rows);
    expect(costs).toEqual([costUsd(price, a), costUsd(price, b) + costUsd(price, c)]);
    const f = forecast({ pacing: DEFAULT_PACING, idleWakes: costs, typicalWakeUsd: costUsd(price, TYPICAL_IDLE_WAKE) });
    const mean = (costUsd(price, a) + (costUsd(price, b) + costUsd(price, c))) / 2;
    expect(f).toMatchObject({ basis: "history", samples: 2, wakeUsd: mean, hourUsd: mean * 12, dayUsd: mean * 12 * 24 });
    // A row missing from what was read: that wake is left out, not counted as free.
    expect(idleWakeCosts(timelineOf(steps), rows.slice(1))).toEqual([costUsd(price, b) + costUsd(price, c)]);
  });

});
