// lib/store/mind-state.ts (indexedDbMindState) under the mind's writer
// (lib/mind/log/mind-log.ts MindWriter): a call's record goes with the write of the
// step the call led to (one transaction, with the step's usage row), and with
// the next write when its step's write has begun. Instruction texts not stored
// yet are stored before the row that names them. A record never fails its
// step; a refused step takes its record with it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SeenCall } from "@/lib/context/replay";
import { MindWriter, TrajectoryLog } from "@/lib/mind/log/mind-log";
import { InvalidStepError } from "@/lib/mind/state/state";
import type { ReverieDb } from "@/lib/store/db/db";
import { contextOf } from "@/lib/store/derived/contexts";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import { tailSteps } from "@/lib/store/steps/steps";
import type { Step } from "@/lib/trajectory/schema";
import { openTestDb } from "../../helpers/db";
import { id, stepMaker } from "../../helpers/steps";

const MIND = "00000000-0000-4000-8000-000000000001";

function call(stepId: string, text = "Be brief."): SeenCall {
  return { step_id: stepId, run_id: id(900), traj_id: MIND, iteration: 1, self_name: "Reverie", budget: 100, before: 0, tokens: 5, system: [{ kind: "instructions", text, tokens: 2 }], parts: [{ kind: "verbatim", step_ids: [stepId], tokens: 3 }] };
}

describe("context records carried by their step's write", () => {
  let db: ReverieDb;
  const mk = stepMaker();
  const reasoning = (): Step => mk("reasoning", { thought: "t", cmd: "echo", usage: { input_tokens: 10, output_tokens: 5, usd: 0.001 } });
  const output = (): Step => mk("shell-output", { stdout: "", stderr: "", exit: 0, exec_s: 0, timed_out: false });

  beforeEach(async () => {
    db = await openTestDb("context-records");
  });
  afterEach(async () => {
    db.close();
  });

  it("a record made before its step is written is stored with it, in the same write as the step and its usage row", async () => {
    const errors: unknown[] = [];
    const state = indexedDbMindState(db, MIND, { onRecordError: (e) => errors.push(e) });
    const appends: number[] = [];
    const counted = { ...state, append: (batch: Parameters<typeof state.append>[0]) => (appends.push(batch.seen.length), state.append(batch)) };
    // The way the run goes: the step is kept and queued, the record made, and the write comes a turn after.
    const writer = new MindWriter(counted, { nextTurn: () => new Promise((r) => setTimeout(r, 0)), onRecordError: (e) => errors.push(e) });
    const log = new TrajectoryLog(writer, MIND, 100);
    // The first record's text is not stored yet: it is stored with the record's write.
    const first = reasoning();
    await log.append(first);
    writer.record(call(first.step_id));
    await writer.flushed();
    const step = reasoning();
    await log.append(step);
    writer.record(call(step.step_id));
    await writer.flushed();
    // One write each, its step and record together.
    expect(appends).toEqual([1, 1]);
    expect((await contextOf(db, MIND, step.step_id))?.call).toEqual(call(step.step_id));
    expect(await db.usage.get([MIND, step.step_id])).toBeDefined();
    expect((await contextOf(db, MIND, first.step_id))?.call).toEqual(call(first.step_id));
    expect(errors).toEqual([]);
  });

  it("a record that comes after its step's write began goes with the next write (or alone, when no step follows); a text never stored is stored with it", async () => {
    const state = indexedDbMindState(db, MIND);
    const batches: { steps: string[]; seen: string[] }[] = [];
    const writer = new MindWriter({ ...state, append: (batch) => (batches.push({ steps: batch.steps.map((s) => s.step.step_id), seen: batch.seen.map((c) => c.step_id) }), state.append(batch)) });
    const log = new TrajectoryLog(writer, MIND);
    const a = output();
    await log.append(a);
    await Promise.resolve(); // the write of a has begun
    writer.record(call(a.step_id));
    const b = output();
    await log.append(b);
    writer.record(call(b.step_id, "A new text."));
    await writer.flushed();
    // a's record went with b's write; b's record too (b was still queued).
    expect(batches).toEqual([
      { steps: [a.step_id], seen: [] },
      { steps: [b.step_id], seen: [a.step_id, b.step_id] },
    ]);
    // A record whose step's write has begun, and no step after it: written in a write of its own.
    const c = output();
    await log.append(c);
    await Promise.resolve();
    writer.record(call(c.step_id, "Another text."));
    await writer.flushed();
    expect(batches.slice(2)).toEqual([
      { steps: [c.step_id], seen: [] },
      { steps: [], seen: [c.step_id] },
    ]);
    expect((await contextOf(db, MIND, a.step_id))?.call).toEqual(call(a.step_id));
    expect((await contextOf(db, MIND, b.step_id))?.call).toEqual(call(b.step_id, "A new text."));
    expect((await contextOf(db, MIND, c.step_id))?.call).toEqual(call(c.step_id, "Another text."));
  });

  it("a refused step takes its record with it; the steps before it are stored with theirs", async () => {
    const state = indexedDbMindState(db, MIND);
    const writer = new MindWriter(state);
    const log = new TrajectoryLog(writer, MIND);
    const seed = output();
    await log.append(seed);
    writer.record(call(seed.step_id));
    await writer.flushed();
    const good = reasoning();
    const bad = { ...reasoning(), exit: "not a number" } as unknown as Step;
    const bad2 = { ...output(), exit: "nope" } as unknown as Step;
    // One batch: the good step, then two the schemas refuse.
    await state.append({ steps: [good, { ...bad, type: "shell-output" } as Step, bad2].map((step) => ({ trajId: MIND, step })), seen: [call(good.step_id), call(bad.step_id)] }).then(
      () => expect.unreachable(),
      (refused: unknown) => {
        expect(refused).toBeInstanceOf(InvalidStepError);
        expect((refused as InvalidStepError).stored).toBe(1);
      },
    );
    expect((await tailSteps(db, MIND, 10)).map((s) => s.step_id)).toEqual([seed.step_id, good.step_id]);
    expect((await contextOf(db, MIND, good.step_id))?.call).toEqual(call(good.step_id));
    expect(await db.usage.get([MIND, good.step_id])).toBeDefined();
    expect(await contextOf(db, MIND, bad.step_id)).toBeUndefined();
    // Through the writer: the refusal fails the next append, the record of the refused step is not kept.
    const bad3 = { ...output(), exit: "again" } as unknown as Step;
    await log.append(bad3);
    writer.record(call(bad3.step_id));
    await expect(writer.flushed()).rejects.toBeInstanceOf(InvalidStepError);
    await expect(log.append(output())).rejects.toBeInstanceOf(InvalidStepError);
    expect(await contextOf(db, MIND, bad3.step_id)).toBeUndefined();
    expect(await tailSteps(db, MIND, 10)).toHaveLength(2);
  });

  it("a record that cannot be stored never fails its step: the write is made again without it, and the failure reported", async () => {
    const errors: unknown[] = [];
    const state = indexedDbMindState(db, MIND);
    const writer = new MindWriter(state, { onRecordError: (e) => errors.push(e) });
    const log = new TrajectoryLog(writer, MIND);
    const seed = output();
    await log.append(seed);
    writer.record(call(seed.step_id));
    await writer.flushed();
    const step = output();
    await log.append(step);
    // Not storable: IndexedDB cannot clone a function.
    writer.record({ ...call(step.step_id), parts: [() => 1] as unknown as SeenCall["parts"] });
    await writer.flushed();
    expect((await tailSteps(db, MIND, 10)).map((s) => s.step_id)).toEqual([seed.step_id, step.step_id]);
    expect(await contextOf(db, MIND, step.step_id)).toBeUndefined();
    expect((await contextOf(db, MIND, seed.step_id))?.call).toEqual(call(seed.step_id));
    expect(errors).toHaveLength(1);
    // The writer goes on.
    const next = output();
    await log.append(next);
    await writer.flushed();
    expect(await tailSteps(db, MIND, 10)).toHaveLength(3);
  });

  it("the steps, their usage rows and their context rows land in ONE transaction: a write failing at the contexts table stores no step and no usage", async () => {
    const state = indexedDbMindState(db, MIND);
    const step = reasoning();
    // A row IndexedDB cannot clone fails the transaction at the contexts table, after the steps and usage rows were put in it.
    const failing = { ...call(step.step_id), parts: [() => 1] as unknown as SeenCall["parts"] };
    await expect(state.append({ steps: [{ trajId: MIND, step }], seen: [failing] })).rejects.toThrow();
    expect(await tailSteps(db, MIND, 10)).toEqual([]);
    expect(await db.usage.count()).toBe(0);
    expect(await db.contexts.count()).toBe(0);
    // The same batch without the record is stored whole.
    await state.append({ steps: [{ trajId: MIND, step }], seen: [] });
    expect((await tailSteps(db, MIND, 10)).map((s) => s.step_id)).toEqual([step.step_id]);
    expect(await db.usage.get([MIND, step.step_id])).toBeDefined();
  });
});
