// The figure: bytes per stored "what the call saw" record at 10,000 steps of
// history, as older builds stored it (every list whole, every sealed
// summary's ends and cites) and as it is stored now (lib/store/derived/seen-delta.ts),
// over runs of 12 calls (the run limit) that each add a reasoning step and its
// output: wakes whose calls all get the whole budget (a message's), and idle
// wakes whose first call is a lean first look (lib/context/lean.ts). Sizes are
// V8's serialization, the form IndexedDB keeps a value in Chromium. It prints
// the figures; it asserts sizes (and that every record reads back whole),
// never time.
import { serialize } from "node:v8";
import { describe, expect, it } from "vitest";
import { LEAN_BUDGET, leanContext } from "@/lib/context/lean";
import type { SeenCall } from "@/lib/context/replay";
import { contextsOfRun } from "@/lib/store/derived/contexts";
import type { ContextRow } from "@/lib/store/db/db";
import { encodeCall, type Previous } from "@/lib/store/derived/seen-delta";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import { MindWriter } from "@/lib/mind/log/mind-log";
import { openTestDb } from "../../helpers/db";
import { SeenLife, SYSTEM } from "../../helpers/seen-life";
import { id } from "../../helpers/steps";

const MIND = "00000000-0000-4000-8000-000000000001";
const HISTORY = 10_000;
const RUNS = 8;
const CALLS_PER_RUN = 12;

const bytes = (v: unknown) => serialize(v).length;
const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length));
const kib = (xs: number[]) => (xs.reduce((a, b) => a + b, 0) / 1024).toFixed(1);

async function measure(label: string, lean: boolean) {
  const db = await openTestDb("context-record-size");
  try {
    const life = new SeenLife(MIND, MIND);
    life.grow(HISTORY);
    await db.tiers.bulkAdd(life.seal());
    // What the calls saw, written by the mind's writer (each write its records, without steps here: the figure is the records').
    const recorder = new MindWriter(indexedDbMindState(db, MIND));
    const calls: SeenCall[] = [];
    for (let r = 0; r < RUNS; r++) {
      const runId = id(0x100000 + r, "cccccccccccc");
      for (let i = 1; i <= CALLS_PER_RUN; i++) {
        const first = lean && i === 1;
        const { call } = life.call({ run_id: runId, iteration: i, ...(first ? { budget: LEAN_BUDGET, build: leanContext, system: [SYSTEM[0], { kind: "first-look", text: "Look around; act only if something needs doing." }] } : {}) } as Parameters<SeenLife["call"]>[0]);
        recorder.record(call);
        calls.push(call);
        const sealed = life.seal();
        if (sealed.length) await db.tiers.bulkAdd(sealed);
      }
    }
    await recorder.flushed();

    // As older builds stored it: the call as given, its instructions by hash (a 64-hex sha-256 each).
    const before = calls.map((c) => bytes({ ...c, mind_id: MIND, system: c.system.map((s) => ({ kind: s.kind, hash: "0".repeat(64), tokens: s.tokens })) }));
    const rows: ContextRow[] = await db.contexts.toArray();
    const keyframes = rows.filter((r) => r.base === undefined).map(bytes);
    const deltas = rows.filter((r) => r.base !== undefined).map(bytes);
    const after = [...keyframes, ...deltas];
    const verbatim = calls.map((c) => c.parts.find((p) => p.kind === "verbatim")).map((p) => (p?.kind === "verbatim" ? p.step_ids.length : 0));
    const tiers = calls.map((c) => c.parts.filter((p) => p.kind === "tier").length);
    // The recorder's share of the time between model calls is the encoding (record() is synchronous; its writes go in the background): warm, as in a mind that has made thousands of calls, and without the recorder's cache of tier hashes.
    const PASSES = 30;
    let perCall = Infinity;
    for (let pass = 0; pass < PASSES; pass++) {
      const t0 = performance.now();
      let prev: Previous | undefined;
      for (const c of calls) prev = encodeCall(c, c.iteration === 1 ? undefined : prev).previous;
      perCall = Math.min(perCall, (performance.now() - t0) / calls.length);
    }
    console.log(
      [
        `${label}, ${HISTORY} steps: ${calls.length} calls (${RUNS} runs of ${CALLS_PER_RUN}), verbatim ${mean(verbatim)} ids and ${mean(tiers)} sealed-summary parts per call on average`,
        `  before (whole): ${mean(before)} B per record, ${kib(before)} KiB in all`,
        `  after: ${mean(after)} B per record, ${kib(after)} KiB in all (keyframes ${keyframes.length} × ${mean(keyframes)} B, deltas ${deltas.length} × ${mean(deltas)} B): ${(mean(before) / mean(after)).toFixed(1)}× smaller`,
        `  encoding: ${(perCall * 1000).toFixed(1)} µs per call, warm (best of ${PASSES} passes; this machine, noisy)`,
      ].join("\n"),
    );

    expect(keyframes).toHaveLength(RUNS);
    for (let r = 0; r < RUNS; r++) {
      const run = calls.slice(r * CALLS_PER_RUN, (r + 1) * CALLS_PER_RUN);
      expect(await contextsOfRun(db, MIND, run[0]?.run_id as string)).toEqual(run.map((call) => ({ call, missing: [] })));
    }
    return { before: mean(before), after: mean(after) };
  } finally {
    await db.delete();
  }
}

describe("bytes per context record at 10,000 steps", () => {
  it("wakes whose every call gets the whole budget: printed; at least 5× smaller, every record read back whole", async () => {
    const { before, after } = await measure("whole-budget wakes", false);
    expect(after * 5).toBeLessThan(before);
  }, 120_000);

  it("idle wakes whose first call is a lean first look: printed; at least 3× smaller, every record read back whole", async () => {
    const { before, after } = await measure("idle wakes (lean first look)", true);
    expect(after * 3).toBeLessThan(before);
  }, 120_000);
});
