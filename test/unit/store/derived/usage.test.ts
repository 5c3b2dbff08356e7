// Usage and cost: what the AI SDK reports becomes the step's `usage`; the
// usage table gets a row per call as its step is appended; the mind's spend
// this hour, today and its burn rate are read from it; this browser's price
// table; and, end to end through workers/host.ts against the scripted model
// server (a fake at the model's HTTP boundary), a mind's cap pauses it and a
// raised cap lets it go on.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILT_IN_PRICES, priceFor } from "@/lib/llm/prices";
import { stepUsage } from "@/lib/llm/usage";
import type { MindStatus } from "@/lib/protocol";
import type { ReverieDb } from "@/lib/store/db/db";
import { createMind, getMind, updateSettings } from "@/lib/store/minds/minds";
import { getPriceEdits, getPriceTable, setPriceTable } from "@/lib/store/minds/prices";
import { InvalidStepError } from "@/lib/mind/state/state";
import { MindWriter, TrajectoryLog } from "@/lib/mind/log/mind-log";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import { tailSteps } from "@/lib/store/steps/steps";
import { spendSummary, usageRow } from "@/lib/store/derived/usage";
import { formatTs, type Step } from "@/lib/trajectory/schema";
import { runMind } from "@/lib/home/tab";
import { on, silent } from "@/lib/mind/events";
import { startModelServer, type ModelServer } from "../../../fixtures/model-server";
import { openTestDb } from "../../helpers/db";

let db: ReverieDb;
beforeEach(async () => {
  db = await openTestDb("usage-test");
});
afterEach(async () => {
  await db.delete();
});

const usage = { inputTokens: 1000, inputTokenDetails: { noCacheTokens: 600, cacheReadTokens: 400, cacheWriteTokens: undefined }, outputTokens: 200, outputTokenDetails: { textTokens: 150, reasoningTokens: 50 } };

describe("stepUsage", () => {
  it("keeps input, cached input, output and reasoning tokens, and prices cached input at its own rate", () => {
    expect(stepUsage(usage, { price: { input: 2, output: 8, cachedInput: 0.5 }, model: "openai/gpt-4.1" })).toEqual({
      input_tokens: 1000,
      cached_input_tokens: 400,
      output_tokens: 200,
      reasoning_tokens: 50,
      usd: (600 * 2 + 400 * 0.5 + 200 * 8) / 1e6,
      model: "openai/gpt-4.1",
    });
  });

  it("without a price there is no cost; counts a provider left out are left out", () => {
    expect(stepUsage({ inputTokens: 12, outputTokens: undefined })).toEqual({ input_tokens: 12, output_tokens: 0 });
  });
});

describe("prices", () => {
  it("a mind's own price comes first, then this browser's table; an unknown model has none", () => {
    expect(priceFor({ provider: "openai", model: "gpt-4o-mini", price: { input: 9, output: 9 } }, BUILT_IN_PRICES)).toEqual({ input: 9, output: 9 });
    expect(priceFor({ provider: "openai", model: "gpt-4o-mini" }, BUILT_IN_PRICES)).toEqual(BUILT_IN_PRICES["openai/gpt-4o-mini"]);
    expect(priceFor({ provider: "openai-compatible", model: "llama3" }, BUILT_IN_PRICES)).toBeUndefined();
  });

  it("this browser keeps only its edits, read back over the built-in table; a bad table is refused and nothing changes", async () => {
    expect(await getPriceTable(db)).toEqual(BUILT_IN_PRICES);
    await setPriceTable(db, { ...BUILT_IN_PRICES, "openai/gpt-4o-mini": { input: 0.2, output: 0.8 }, "openai-compatible/llama3": { input: 0, output: 0 } });
    expect(await getPriceEdits(db)).toEqual({ "openai/gpt-4o-mini": { input: 0.2, output: 0.8 }, "openai-compatible/llama3": { input: 0, output: 0 } });
    expect((await getPriceTable(db))["openai/gpt-4o-mini"]).toEqual({ input: 0.2, output: 0.8 });
    await expect(setPriceTable(db, { x: { input: -1, output: 0 } })).rejects.toThrow();
    expect(Object.keys(await getPriceEdits(db))).toEqual(["openai/gpt-4o-mini", "openai-compatible/llama3"]);
  });
});

describe("the usage table", () => {
  const MIND = "00000000-0000-4000-8000-0000000000aa";
  const at = (iso: string) => Date.parse(iso);
  const reasoning = (n: number, ts: number, usd?: number): Step => ({
    type: "reasoning",
    step_id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    ts: formatTs(ts),
    thought: "t",
    cmd: "true",
    usage: { input_tokens: 10, output_tokens: 5, ...(usd !== undefined ? { usd } : {}), model: "m" },
  });

  it("a row per step with usage, written as the step is appended (children too); other steps write none", async () => {
    await db.trajectories.add({ mind_id: MIND, traj_id: MIND, name: "Ada", dir: "" });
    const writer = new MindWriter(indexedDbMindState(db, MIND));
    const log = new TrajectoryLog(writer, MIND);
    const ts = at("2025-01-01T12:10:00.000Z");
    await log.append(reasoning(1, ts, 0.25));
    await log.append({ type: "thought", step_id: "00000000-0000-4000-8000-000000000002", ts: formatTs(ts), content: "no call" });
    const child = await log.fork({ trajId: "00000000-0000-4000-8000-0000000000cc", name: "shellm x" });
    await child.append(reasoning(3, ts, 0.5));
    await writer.flushed();
    expect(await db.usage.toArray()).toEqual([
      { mind_id: MIND, step_id: reasoning(1, ts).step_id, traj_id: MIND, ts, usd: 0.25, input_tokens: 10, output_tokens: 5, model: "m" },
      { mind_id: MIND, step_id: reasoning(3, ts).step_id, traj_id: "00000000-0000-4000-8000-0000000000cc", ts, usd: 0.5, input_tokens: 10, output_tokens: 5, model: "m" },
    ]);
    expect(usageRow(MIND, reasoning(4, ts), MIND)?.usd).toBe(0);
  });

  it("a batch (one MindState append) writes its steps and their usage rows together; an invalid step is refused with the ones after it, the ones before it and their usage are stored", async () => {
    await db.trajectories.add({ mind_id: MIND, traj_id: MIND, name: "Ada", dir: "" });
    const state = indexedDbMindState(db, MIND);
    const appendAll = (steps: Step[]) => state.append({ steps: steps.map((step) => ({ trajId: MIND, step })), seen: [] });
    const ts = at("2025-01-01T12:10:00.000Z");
    const thought = (n: number): Step => ({ type: "thought", step_id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`, ts: formatTs(ts), content: `t${n}` });
    await appendAll([reasoning(1, ts, 0.25), thought(2), reasoning(3, ts, 0.5)]);
    const invalid = { type: "reasoning", step_id: "00000000-0000-4000-8000-000000000005", ts: formatTs(ts), thought: 5 } as unknown as Step;
    const refused = appendAll([reasoning(4, ts, 1), invalid, reasoning(6, ts, 2)]);
    await expect(refused).rejects.toThrow("Refusing to append an invalid step");
    await expect(refused).rejects.toBeInstanceOf(InvalidStepError);
    await expect(refused).rejects.toHaveProperty("stored", 1);
    expect((await tailSteps(db, MIND, 10)).map((st) => st.step_id.slice(-1))).toEqual(["1", "2", "3", "4"]);
    expect((await db.usage.toArray()).map((r) => [r.step_id.slice(-1), r.usd])).toEqual([
      ["1", 0.25],
      ["3", 0.5],
      ["4", 1],
    ]);
  });

  it("spend this UTC hour, this UTC day, and the burn rate over the last 60 minutes", async () => {
    const rows = [
      ["2024-12-31T23:50:00.000Z", 4], // yesterday
      ["2025-01-01T11:40:00.000Z", 1], // today, the hour before, within the last 60 minutes
      ["2025-01-01T12:05:00.000Z", 0.5], // this hour
      ["2025-01-01T12:20:00.000Z", 0.25],
    ] as const;
    for (const [i, [ts, usd]] of rows.entries()) await db.usage.put({ mind_id: MIND, step_id: `s${i}`, ts: at(ts), usd });
    await db.usage.put({ mind_id: "another mind", step_id: "x", ts: at("2025-01-01T12:20:00.000Z"), usd: 100 });
    expect(await spendSummary(db, MIND, at("2025-01-01T12:30:00.000Z"))).toEqual({ hourUsd: 0.75, dayUsd: 1.75, burnUsdPerHour: 1.75 });
  });
});

describe("a mind's cap, end to end through the host", () => {
  let model: ModelServer;
  beforeEach(async () => {
    model = await startModelServer();
  });
  afterEach(async () => {
    await model.close();
  });

  it("caps are required to start; at the cap the mind pauses with no call; a raised cap (a config step) lets it go on", async () => {
    // USD 1000 per million tokens: each scripted call (its usage set below) costs 0.1, over the hourly cap of 0.05.
    const settings = { provider: "openai-compatible" as const, baseURL: model.url, model: "scripted", price: { input: 1000, output: 1000 } };
    const mind = await createMind(db, { name: "Ada", persona: "p", model: settings, budget: { hour_usd: 0.05, day_usd: 5 } });
    const call = { text: "Working.\n\n```bash\necho step\n```", usage: { prompt_tokens: 60, completion_tokens: 40 } };
    model.setResponder(() => call);

    const statuses: MindStatus[] = [];
    let configChanged = 0;
    let handle = await runMind(db, mind.id, (e) => {
      if (e.type === "status") statuses.push(e.status);
      if (e.type === "settings-changed") configChanged++;
    });
    const until = async (cond: () => boolean | Promise<boolean>, what: string) => {
      for (let i = 0; i < 500; i++) {
        if (await cond()) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`never happened: ${what}`);
    };
    await until(() => statuses.some((s) => s.state === "paused"), "the pause");
    // Steps are written behind the loop: the pause's error step is stored a moment after the status says so.
    await until(async () => (await tailSteps(db, mind.id, 1)).at(-1)?.type === "error", "the pause's step, stored");
    expect(model.requests).toHaveLength(1);
    expect(statuses.find((s) => s.state === "paused")).toMatchObject({ state: "paused", reason: "budget", scope: "mind", cap: "hour", limitUsd: 0.05, spentUsd: expect.closeTo(0.1, 12) });
    const steps = await tailSteps(db, mind.id, 50);
    expect(steps.filter((s) => s.type === "reasoning").map((s) => (s as { usage?: unknown }).usage)).toEqual([{ input_tokens: 60, cached_input_tokens: 0, output_tokens: 40, reasoning_tokens: 0, usd: expect.closeTo(0.1, 12), model: "openai-compatible/scripted" }]);
    expect(steps.at(-1)).toMatchObject({ type: "error", reason: "budget", content: expect.stringContaining("The mind's hourly spend cap of $0.05 is reached ($0.10 spent)") });
    expect((await db.usage.toArray()).map((r) => [r.usd, r.input_tokens, r.output_tokens])).toEqual([[expect.closeTo(0.1, 12), 60, 40]]);

    // Its human raises the cap: a config step, which the running host hears of (the worker restarts on it).
    await updateSettings(db, mind.id, { model: settings, pacing: mind.pacing, max_iterations: mind.max_iterations, budget: { hour_usd: 10, day_usd: 20 } });
    await until(() => configChanged > 0, "the config change");
    await handle.stop();
    handle = await runMind(db, mind.id, on("status", ({ status: s }) => statuses.push(s)));
    await until(() => model.requests.length >= 2, "a call with the raised cap");
    await handle.stop();

    // A mind saved without caps (from before caps existed) does not start.
    const row = await getMind(db, mind.id);
    await db.minds.put({ id: mind.id, json: { ...row, budget: undefined } });
    await expect(runMind(db, mind.id, silent)).rejects.toThrow("Ada has no spend caps, so it does not start: set an hourly and a daily cap in Settings.");
  });

  it("a model with no known price does not start (its caps could not be kept)", async () => {
    const mind = await createMind(db, { name: "Bo", persona: "", model: { provider: "openai", model: "gpt-unknown", apiKey: "k" } });
    await expect(runMind(db, mind.id, silent)).rejects.toThrow("No price is known for openai/gpt-unknown, so its spend caps could not be kept: give its price per million tokens in Settings.");
  });
});
