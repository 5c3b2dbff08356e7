// lib/store/derived/contexts.ts's carriedBy: a call's record goes with the write of
// the step the call led to (one transaction), and on its own when it cannot
// (its step's write has begun, its instructions' text is not stored yet). A
// record never fails its step; a refused step takes its record with it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SeenCall } from "@/lib/context/replay";
import { CachedLog } from "@/lib/mind/cached-log";
import type { ReverieDb } from "@/lib/store/db/db";
import { contextOf, contextRecorder } from "@/lib/store/derived/contexts";
import { InvalidStepError, mindLog, tailSteps } from "@/lib/store/steps/steps";
import { recordingUsage } from "@/lib/store/derived/usage";
import type { Step } from "@/lib/trajectory/schema";
import { openTestDb } from "./helpers/db";
import { id, stepMaker } from "./helpers/steps";

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

  it("a record made before its step is written is stored with it: there once the write is, without waiting for the recorder", async () => {
    const errors: unknown[] = [];
    const recorder = contextRecorder(db, MIND, (e) => errors.push(e));
    const log = recorder.carriedBy(recordingUsage(MIND, mindLog(db, MIND)));
    // The first record's text is not stored yet: it goes on its own (and stores the text).
    const first = reasoning();
    await log.appendAll?.([first]);
    recorder.record(call(first.step_id));
    await recorder.settled();
    // Then the way the run goes: the step is kept and queued, the record made, and the write comes after.
    const cached = new CachedLog(log, 100, { nextTurn: () => new Promise((r) => setTimeout(r, 0)) });
    const step = reasoning();
    await cached.append(step);
    recorder.record(call(step.step_id));
    await cached.flushed();
    expect((await contextOf(db, MIND, step.step_id))?.call).toEqual(call(step.step_id));
    expect(await db.usage.get([MIND, step.step_id])).toBeDefined();
    expect((await contextOf(db, MIND, first.step_id))?.call).toEqual(call(first.step_id));
    expect(errors).toEqual([]);
  });

  it("a record that comes after its step's write began, or with a text never stored, is written on its own", async () => {
    const recorder = contextRecorder(db, MIND);
    const log = recorder.carriedBy(mindLog(db, MIND));
    const a = output();
    await log.appendAll?.([a]);
    recorder.record(call(a.step_id));
    const b = output();
    recorder.record(call(b.step_id, "A new text."));
    await log.appendAll?.([b]);
    await recorder.settled();
    expect((await contextOf(db, MIND, a.step_id))?.call).toEqual(call(a.step_id));
    expect((await contextOf(db, MIND, b.step_id))?.call).toEqual(call(b.step_id, "A new text."));
  });

  it("a refused step takes its record with it; the steps before it are stored with theirs", async () => {
    const recorder = contextRecorder(db, MIND);
    const log = recorder.carriedBy(recordingUsage(MIND, mindLog(db, MIND)));
    const seed = output();
    await log.appendAll?.([seed]);
    recorder.record(call(seed.step_id));
    await recorder.settled();
    const good = reasoning();
    const bad = { ...reasoning(), exit: "not a number" } as unknown as Step;
    const bad2 = { ...output(), exit: "nope" } as unknown as Step;
    recorder.record(call(good.step_id));
    recorder.record(call(bad.step_id));
    const refused = await log.appendAll?.([good, { ...bad, type: "shell-output" } as Step, bad2]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(InvalidStepError);
    expect((refused as InvalidStepError).stored).toBe(1);
    expect((await tailSteps(db, MIND, 10)).map((s) => s.step_id)).toEqual([seed.step_id, good.step_id]);
    expect((await contextOf(db, MIND, good.step_id))?.call).toEqual(call(good.step_id));
    expect(await contextOf(db, MIND, bad.step_id)).toBeUndefined();
  });

  it("a record that cannot be stored never fails its step: the step is written alone and the failure reported", async () => {
    const errors: unknown[] = [];
    const recorder = contextRecorder(db, MIND, (e) => errors.push(e));
    const log = recorder.carriedBy(mindLog(db, MIND));
    const seed = output();
    await log.appendAll?.([seed]);
    recorder.record(call(seed.step_id));
    await recorder.settled();
    const step = output();
    // Not storable: IndexedDB cannot clone a function.
    recorder.record({ ...call(step.step_id), parts: [() => 1] as unknown as SeenCall["parts"] });
    await log.appendAll?.([step]);
    expect((await tailSteps(db, MIND, 10)).map((s) => s.step_id)).toEqual([seed.step_id, step.step_id]);
    expect(await contextOf(db, MIND, step.step_id)).toBeUndefined();
    expect(errors).toHaveLength(1);
  });
});
