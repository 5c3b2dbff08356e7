// The contexts table stores most records as a delta against their run's
// previous one (lib/store/derived/seen-delta.ts): what is read back must still be,
// field for field, the SeenCall the recorder was given, over interleaved runs,
// forced keyframes, a list that is not a clean drop-and-append, a changed set
// of instructions, a write that failed, and rows written by older builds; and
// a delta whose base is gone must say so, not throw.
import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isMessage } from "@/lib/context/conversation";
import { conversationCall, type SeenCall } from "@/lib/context/replay";
import { TokenCounter } from "@/lib/context/tokens";
import { MindWriter, TrajectoryLog } from "@/lib/mind/log/mind-log";
import { contextOf, contextsOfRun } from "@/lib/store/derived/contexts";
import type { ContextRow, ReverieDb } from "@/lib/store/db/db";
import { KEYFRAME_EVERY, listDelta } from "@/lib/store/derived/seen-delta";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import type { Step } from "@/lib/trajectory/schema";
import { openTestDb } from "../../helpers/db";
import { SeenLife, SYSTEM } from "../../helpers/seen-life";
import { id } from "../../helpers/steps";

const MIND = "00000000-0000-4000-8000-000000000001";
const RUN_A = id(0xa0001, "bbbbbbbbbbbb");
const RUN_B = id(0xb0001, "bbbbbbbbbbbb");
const RUN_C = id(0xc0001, "bbbbbbbbbbbb");

const rawRows = async (db: ReverieDb, runId: string) => (await db.contexts.where("[mind_id+run_id]").equals([MIND, runId]).toArray()).sort((a, b) => a.iteration - b.iteration);

describe("a clean drop-front / append of a list", () => {
  it("is the ids dropped and added; anything else is not a delta", () => {
    expect(listDelta(["a", "b", "c"], ["b", "c", "d", "e"])).toEqual({ drop: 1, add: ["d", "e"] });
    expect(listDelta(["a", "b", "c"], ["a", "b", "c"])).toEqual({ drop: 0, add: [] });
    expect(listDelta(["a", "b", "c"], ["c"])).toEqual({ drop: 2, add: [] });
    // A step gone from the middle, the end cut short, nothing in common, nothing at all.
    expect(listDelta(["a", "b", "c", "d"], ["b", "d", "e"])).toBeNull();
    expect(listDelta(["a", "b", "c"], ["a", "b"])).toBeNull();
    expect(listDelta(["a", "b"], ["c", "d"])).toBeNull();
    expect(listDelta(["a", "b"], [])).toBeNull();
  });
});

describe("context records stored as deltas, read back whole", () => {
  let db: ReverieDb;
  let life: SeenLife;
  const errors: unknown[] = [];

  beforeEach(async () => {
    db = await openTestDb("context-records-delta");
    life = new SeenLife(MIND, MIND);
    errors.length = 0;
  });
  afterEach(async () => {
    await db.delete();
  });

  /** The mind's writer over its IndexedDB state (the ContextPort a run records to); both hear of a record that could not be stored. */
  function recorder() {
    const writer = new MindWriter(indexedDbMindState(db, MIND, { onRecordError: (e) => errors.push(e) }), { onRecordError: (e) => errors.push(e) });
    return { writer, log: new TrajectoryLog(writer, MIND) };
  }

  /** The life so far in the store, as a run writes it: its steps appended, then what the call saw recorded, then written (with its sealed blocks). */
  async function settle(r: ReturnType<typeof recorder>, steps: Step[], ...calls: SeenCall[]) {
    for (const s of steps) await r.log.append(s);
    for (const c of calls) r.writer.record(c);
    await r.writer.flushed();
    const sealed = life.seal();
    if (sealed.length) await db.tiers.bulkAdd(sealed);
  }

  it("over interleaved runs, every record read back is the call it was made from, most of them small deltas", async () => {
    const r = recorder();
    await settle(r, life.grow(640));

    const given = new Map<string, SeenCall>();
    const promptB = life.make("prompt", { content: "A message from ana: water the basil." });
    const promptC = life.make("prompt", { content: "Nested task: count the notes." });
    const ancestors = life.steps.slice(-12);
    let failed = "";
    for (let i = 1; i <= 36; i++) {
      // Run A: the inner life, 36 calls (K = 16 forces keyframes); one call's list is not a clean append, one call's record cannot be stored.
      const a = life.call({ run_id: RUN_A, iteration: i });
      let call = a.call;
      if (i === 9) call = { ...call, parts: call.parts.map((p) => (p.kind === "verbatim" ? { ...p, step_ids: p.step_ids.filter((_, j) => j !== 5) } : p)) };
      if (i === 12) {
        failed = call.step_id;
        // IndexedDB cannot clone a function: this record's write fails (its steps are written again without it).
        await settle(r, a.steps, { ...call, unclonable: () => 1 } as unknown as SeenCall);
      } else {
        given.set(call.step_id, call);
        await settle(r, a.steps, call);
      }
      // Run B, interleaved: its own prompt pinned, a smaller budget, its instructions changed once (at its 5th call).
      if (i <= 10) {
        const b = life.call({ run_id: RUN_B, iteration: i, budget: 4_000, pinned: promptB, system: i >= 5 ? [...SYSTEM.slice(0, 3), { kind: "people", text: "ana: the gardener. ben: her neighbour.\n" }] : SYSTEM });
        given.set(b.call.step_id, b.call);
        await settle(r, b.steps, b.call);
      }
      // Run C, a nested run's: its ancestors' steps first, every call.
      if (i % 3 === 0 && i <= 15) {
        const c = life.call({ run_id: RUN_C, iteration: i / 3, pinned: promptC, ancestors });
        given.set(c.call.step_id, c.call);
        await settle(r, c.steps, c.call);
      }
    }
    // The responder's call: one conversation part, a run of its own.
    const message = life.make("message", { from: "ana", to: "Reverie", content: "Did you water the basil?" });
    if (!isMessage(message)) throw new Error("not a message step");
    await settle(r, [message]);
    const reply = life.make("message", { from: "Reverie", to: "ana", content: "Yes." });
    const answer = conversationCall({ person: "ana", selfName: "Reverie", inner: life.steps.slice(-20), conversation: [], message }, { step_id: reply.step_id, run_id: message.step_id, traj_id: MIND, system: { kind: "instructions", text: "Answer ana." }, counter: new TokenCounter() });
    given.set(answer.step_id, answer);
    await settle(r, [reply], answer);

    expect(errors).toHaveLength(1);
    expect(await contextOf(db, MIND, failed)).toBeUndefined();
    for (const [runId, n] of [[RUN_A, 35], [RUN_B, 10], [RUN_C, 5], [message.step_id, 1]] as const) {
      const read = await contextsOfRun(db, MIND, runId);
      expect(read.map((s) => s.missing.length)).toEqual(Array(n).fill(0));
      expect(read.map((s) => s.call)).toEqual([...given.values()].filter((c) => c.run_id === runId));
    }
    for (const [stepId, call] of given) expect(await contextOf(db, MIND, stepId)).toEqual({ call, missing: [] });

    // How they were stored: A's keyframes at its first call, after the failed write, and K calls after that; every other record names the one before it.
    const a = await rawRows(db, RUN_A);
    expect(a.filter((r) => r.base === undefined).map((r) => r.iteration)).toEqual([1, 13, 13 + KEYFRAME_EVERY]);
    for (const [j, r] of a.entries()) if (r.base !== undefined) expect(r.base).toBe(a[j - 1]?.step_id);
    // The 9th call's list was not an append: stored whole, and the 10th is a delta against it again.
    const verbatim = (r: ContextRow | undefined) => r?.parts.find((p) => (p as { kind: string }).kind === "verbatim") as Record<string, unknown>;
    expect(Object.keys(verbatim(a[8])).sort()).toEqual(["kind", "step_ids", "tokens"]);
    expect(Object.keys(verbatim(a[9])).sort()).toEqual(["add", "at", "drop", "kind", "tokens"]);
    // Instructions are stored by keyframes, and by a delta only when they changed.
    const b = await rawRows(db, RUN_B);
    expect(b.filter((r) => r.system !== undefined).map((r) => r.iteration)).toEqual([1, 5]);
    // A keyframe's sealed summaries name their tiers rows by hash, not by their ends and cites.
    const tier = a[0]?.parts.find((p) => (p as { kind: string }).kind === "tier");
    expect(Object.keys(tier as object).sort()).toEqual(["index", "kind", "sealed", "tier", "tokens"]);
  });

  it("rows stored by older builds (whole lists, every tier's ends and cites) still load, beside new ones", async () => {
    const { writer } = recorder();
    await db.tiers.bulkAdd(life.seal());
    life.grow(400);
    await db.tiers.bulkAdd(life.seal());
    const sha = (t: string) => createHash("sha256").update(t).digest("hex");
    const old = [1, 2, 3].map((i) => life.call({ run_id: RUN_A, iteration: i }).call);
    await db.settings.bulkPut(SYSTEM.map((s) => ({ key: `seen-text:${sha(s.text)}`, value: s.text })));
    // Exactly what the recorder wrote before deltas: the call, its instructions by hash.
    await db.contexts.bulkPut(old.map((c): ContextRow => ({ ...c, mind_id: MIND, system: c.system.map((s) => ({ kind: s.kind, hash: sha(s.text), tokens: s.tokens })) })));
    const fresh = [1, 2, 3].map((i) => life.call({ run_id: RUN_B, iteration: i }).call);
    for (const c of fresh) writer.record(c);
    await writer.flushed();
    expect(errors).toEqual([]);
    expect(await contextsOfRun(db, MIND, RUN_A)).toEqual(old.map((call) => ({ call, missing: [] })));
    expect(await contextsOfRun(db, MIND, RUN_B)).toEqual(fresh.map((call) => ({ call, missing: [] })));
    expect(await contextOf(db, MIND, old[1]?.step_id as string)).toEqual({ call: old[1], missing: [] });
  });

  it("a delta whose base is gone or damaged, or a sealed summary not the one seen, is reported in `missing`, never thrown", async () => {
    const { writer } = recorder();
    life.grow(300);
    await db.tiers.bulkAdd(life.seal());
    const calls = [1, 2, 3, 4].map((i) => life.call({ run_id: RUN_A, iteration: i }).call);
    for (const c of calls) writer.record(c);
    await writer.flushed();
    const [first, second, third, fourth] = calls as [SeenCall, SeenCall, SeenCall, SeenCall];
    expect(await contextsOfRun(db, MIND, RUN_A)).toEqual(calls.map((call) => ({ call, missing: [] })));

    // The second record gone: the third cannot be rebuilt from it, nor the fourth from the third; the first is whole still.
    await db.contexts.delete([MIND, second.step_id]);
    const gone = await contextsOfRun(db, MIND, RUN_A);
    expect(gone.map((s) => s.call.step_id)).toEqual([first.step_id, third.step_id, fourth.step_id]);
    expect(gone[0]).toEqual({ call: first, missing: [] });
    expect(gone[1]?.missing).toContain(`the record before it (${second.step_id.slice(0, 8)})`);
    expect(gone[2]?.missing.length).toBeGreaterThan(0);
    // What is left of them is what they stored themselves: never a part of someone else's.
    expect(gone[1]?.call.parts.length).toBeLessThan(third.parts.length);
    expect((await contextOf(db, MIND, fourth.step_id))?.missing.length).toBeGreaterThan(0);

    // Damaged (it does not parse): the same.
    await db.contexts.put({ ...(await db.contexts.get([MIND, first.step_id])), step_id: second.step_id, parts: "nope" } as unknown as ContextRow);
    expect((await contextOf(db, MIND, third.step_id))?.missing).toContain(`the record before it (${second.step_id.slice(0, 8)})`);

    // A tiers row that is not the one the call saw (its cites changed): that summary is missing, the rest is there.
    const shown = first.parts.find((p) => p.kind === "tier");
    if (shown?.kind !== "tier") throw new Error("the first call shows no sealed summary");
    await db.tiers.update([MIND, MIND, shown.tier, shown.index], { cites: ["someone-else"] });
    const changed = await contextOf(db, MIND, first.step_id);
    expect(changed?.missing).toEqual([`summary tier ${shown.tier} #${shown.index} (not the one this call saw)`]);
    expect(changed?.call.parts).toEqual(first.parts.filter((p) => p !== shown));
    expect(errors).toEqual([]);
  });
});
