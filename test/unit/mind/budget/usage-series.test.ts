// lib/mind/budget/usage-series.ts: tokens and dollars per UTC hour and day. On
// hand-written rows the whole series is checked; then, with known calls at a
// known price written through the real usage table (the mind's writer over
// indexedDbMindState, which derives a usage row per call) and
// priced by lib/llm/price.ts, the newest hour and day equal spendSummary's
// figures, to the last bit.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { costUsd } from "@/lib/llm/price";
import { type Price } from "@/lib/mind/settings/model";
import { stepUsage } from "@/lib/llm/usage";
import { usageSeries, seriesStart } from "@/lib/mind/budget/usage-series";
import type { ReverieDb } from "@/lib/store/db/db";
import { MindWriter, TrajectoryLog } from "@/lib/mind/log/mind-log";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import { usageRowsSince } from "@/lib/store/steps/timeline";
import { spendSummary } from "@/lib/store/derived/usage";
import { formatTs, type Step } from "@/lib/trajectory/schema";
import { openTestDb } from "../../helpers/db";

const H = 3_600_000;
const NOW = Date.parse("2026-03-02T12:30:00.000Z");

describe("usageSeries", () => {
  const rows = [
    { ts: Date.parse("2026-03-01T23:59:59.999Z"), usd: 0.5, input_tokens: 1000, output_tokens: 100 },
    { ts: Date.parse("2026-03-02T11:10:00.000Z"), usd: 0.25, input_tokens: 200, cached_input_tokens: 50, output_tokens: 20 },
    { ts: Date.parse("2026-03-02T12:00:00.000Z"), usd: 0.125, input_tokens: 300, output_tokens: 30 },
    { ts: Date.parse("2026-03-02T12:29:00.000Z"), usd: 0.0625, input_tokens: 400, output_tokens: 40 },
    // Before the series, and (a clock gone wrong) after now: left out.
    { ts: Date.parse("2026-01-01T00:00:00.000Z"), usd: 9, input_tokens: 9, output_tokens: 9 },
    { ts: NOW + 1, usd: 9, input_tokens: 9, output_tokens: 9 },
  ];
  const empty = (start: number) => ({ start, calls: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, usd: 0 });

  it("per hour: the last N UTC hours, the newest holding now", () => {
    const hourStart = Date.parse("2026-03-02T12:00:00.000Z");
    expect(usageSeries(rows, "hour", NOW, 14)).toEqual({
      bucket: "hour",
      buckets: [
        { start: hourStart - 13 * H, calls: 1, inputTokens: 1000, cachedInputTokens: 0, outputTokens: 100, usd: 0.5 },
        ...Array.from({ length: 11 }, (_, i) => empty(hourStart - (12 - i) * H)),
        { start: hourStart - H, calls: 1, inputTokens: 200, cachedInputTokens: 50, outputTokens: 20, usd: 0.25 },
        { start: hourStart, calls: 2, inputTokens: 700, cachedInputTokens: 0, outputTokens: 70, usd: 0.1875 },
      ],
    });
  });

  it("per day: the last 30 UTC days by default", () => {
    const s = usageSeries(rows, "day", NOW);
    expect(s.buckets).toHaveLength(30);
    expect(s.buckets[0]?.start).toBe(Date.parse("2026-02-01T00:00:00.000Z"));
    expect(s.buckets.slice(-2)).toEqual([
      { start: Date.parse("2026-03-01T00:00:00.000Z"), calls: 1, inputTokens: 1000, cachedInputTokens: 0, outputTokens: 100, usd: 0.5 },
      { start: Date.parse("2026-03-02T00:00:00.000Z"), calls: 3, inputTokens: 900, cachedInputTokens: 50, outputTokens: 90, usd: 0.4375 },
    ]);
    expect(s.buckets.slice(0, -2).every((b) => b.calls === 0)).toBe(true);
    expect(seriesStart("hour", NOW)).toBe(Date.parse("2026-03-02T12:00:00.000Z") - 47 * H);
  });
});

describe("the charts agree with the ledger", () => {
  const MIND = "00000000-0000-4000-8000-00000000aaaa";
  let db: ReverieDb;
  beforeEach(async () => {
    db = await openTestDb("usage-series");
  });
  afterEach(async () => {
    await db.delete();
  });

  it("known calls at a known price: each bucket is what the calls cost, and the newest hour and day are spendSummary's", async () => {
    await db.trajectories.add({ mind_id: MIND, traj_id: MIND, name: "Mo", dir: "" });
    const writer = new MindWriter(indexedDbMindState(db, MIND));
    const log = new TrajectoryLog(writer, MIND);
    // Prices that do not add up exactly in binary floating point, so any other order of summing would show.
    const price: Price = { input: 0.15, output: 0.6, cachedInput: 0.075 };
    const calls = [
      { at: "2026-03-01T22:15:00.000Z", inputTokens: 2471, outputTokens: 83 },
      { at: "2026-02-27T08:00:00.000Z", inputTokens: 1234, outputTokens: 56 }, // before the last 48 hours: in the days only
      { at: "2026-03-02T11:05:00.000Z", inputTokens: 2470, cachedInputTokens: 1200, outputTokens: 61 },
      { at: "2026-03-02T12:01:00.000Z", inputTokens: 9000, outputTokens: 700 },
      { at: "2026-03-02T12:02:00.000Z", inputTokens: 2400, outputTokens: 77 },
      { at: "2026-03-02T12:29:59.999Z", inputTokens: 3100, cachedInputTokens: 3000, outputTokens: 5 },
    ];
    for (const [i, c] of calls.entries()) {
      const usage = stepUsage({ inputTokens: c.inputTokens, inputTokenDetails: { noCacheTokens: c.inputTokens - (c.cachedInputTokens ?? 0), cacheReadTokens: c.cachedInputTokens ?? 0, cacheWriteTokens: undefined }, outputTokens: c.outputTokens, outputTokenDetails: { textTokens: c.outputTokens, reasoningTokens: 0 } }, { price, model: "m" });
      expect(usage.usd).toBe(costUsd(price, c));
      const step: Step = { type: "reasoning", step_id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, ts: formatTs(Date.parse(c.at)), thought: "t", cmd: "true", usage };
      await log.append(step);
    }
    await writer.flushed();
    const rows = await usageRowsSince(db, MIND, seriesStart("day", NOW));
    // The page reads the days before the last 48 hours once and the 48 hours every 2 s: together, the same rows in the same order.
    const split = seriesStart("hour", NOW);
    expect([...(await usageRowsSince(db, MIND, seriesStart("day", NOW), split)), ...(await usageRowsSince(db, MIND, split))]).toEqual(rows);
    const hours = usageSeries(rows, "hour", NOW);
    const days = usageSeries(rows, "day", NOW);
    const spend = await spendSummary(db, MIND, NOW);
    const cost = (...ix: number[]) => ix.reduce((t, i) => t + costUsd(price, calls[i]!), 0);

    expect(hours.buckets.at(-1)).toEqual({ start: Date.parse("2026-03-02T12:00:00.000Z"), calls: 3, inputTokens: 14_500, cachedInputTokens: 3000, outputTokens: 782, usd: cost(3, 4, 5) });
    expect(hours.buckets.at(-2)).toEqual({ start: Date.parse("2026-03-02T11:00:00.000Z"), calls: 1, inputTokens: 2470, cachedInputTokens: 1200, outputTokens: 61, usd: cost(2) });
    expect(hours.buckets.at(-15)).toEqual({ start: Date.parse("2026-03-01T22:00:00.000Z"), calls: 1, inputTokens: 2471, cachedInputTokens: 0, outputTokens: 83, usd: cost(0) });
    expect(days.buckets.at(-1)?.usd).toBe(cost(2, 3, 4, 5));
    expect(days.buckets.find((b) => b.start === Date.parse("2026-02-27T00:00:00.000Z"))).toEqual({ start: Date.parse("2026-02-27T00:00:00.000Z"), calls: 1, inputTokens: 1234, cachedInputTokens: 0, outputTokens: 56, usd: cost(1) });
    // The page's spend line and the charts read the same ledger: equal, not merely close.
    expect(hours.buckets.at(-1)?.usd).toBe(spend.hourUsd);
    expect(days.buckets.at(-1)?.usd).toBe(spend.dayUsd);
    expect(hours.buckets.reduce((t, b) => t + b.calls, 0)).toBe(calls.length - 1);
    expect(days.buckets.reduce((t, b) => t + b.calls, 0)).toBe(calls.length);
  });
});
