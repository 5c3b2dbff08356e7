// lib/mind/log/mind-log.ts: the mind's one writer (MindWriter) over its MindState,
// and the trajectory logs (TrajectoryLog) the loop reads and appends through.
// The store is a MemoryMindState behind a proxy that counts its reads, records
// every batch handed to `append`, and can hold writes (and reads) at a gate.
// After the first read, tail and count come from memory; the mind's own
// appends are kept as written and written behind, in order, batched while a
// write is in flight, every trajectory through one queue, with what the model
// calls saw riding beside their steps; steps others wrote come in through
// `ingest`; reads past the window go to the store.
import { describe, expect, it, vi } from "vitest";
import type { SeenCall } from "../../../../lib/context/replay";
import { SealedPast } from "../../../../lib/context/sealed-past";
import { MemoryMindState } from "../../../../lib/mind/state/memory-state";
import { CHILD_WINDOW, GATHER_MS, MindWriter, TrajectoryLog, WINDOW, type WriterOptions } from "../../../../lib/mind/log/mind-log";
import { InvalidStepError, type MindState, type StateBatch } from "../../../../lib/mind/state/state";
import type { Step } from "../../../../lib/trajectory/schema";
import { id, stepMaker } from "../../helpers/steps";

const ROOT = "00000000-0000-4000-8000-00000000beef";
const CHILD = "00000001-0000-4000-8000-00000000c41d";

const mine = stepMaker({ tail: "000000000000" });
const theirs = stepMaker({ tail: "cccccccccccc" });

const thoughts = (n: number, make = mine) => Array.from({ length: n }, (_, i) => make("thought", { content: `t${i}` }));
const content = (s: Step) => (s as { content?: string }).content;
const tick = () => new Promise<void>((r) => setTimeout(r, 0));

/** What a model call saw, for the step it led to. */
function seen(step: Step): SeenCall {
  return { step_id: step.step_id, run_id: id(900), traj_id: ROOT, iteration: 1, self_name: "Reverie", budget: 100, before: 0, tokens: 5, system: [{ kind: "instructions", text: "Be brief.", tokens: 2 }], parts: [{ kind: "verbatim", step_ids: [step.step_id], tokens: 3 }] };
}

/** A batch as the writer hands it to the store. */
const batch = (steps: [string, Step][], calls: SeenCall[] = []): StateBatch => ({ steps: steps.map(([trajId, step]) => ({ trajId, step })), seen: calls });
const root = (...steps: Step[]): [string, Step][] => steps.map((s) => [ROOT, s]);

/**
 * A MemoryMindState (holding `initial` in its root) behind a proxy: reads are
 * counted, every batch handed to `append` is recorded as handed, `hold` makes
 * each write wait at `gate` (released one by one), `holdReads` delivers tail and
 * count replies (taken when asked) only once `readGate` is opened, and `refuse`
 * can reject a batch before the store sees it.
 */
async function counted(initial: Step[] = []) {
  const state = new MemoryMindState(ROOT);
  if (initial.length) await state.append(batch(root(...initial)));
  const reads = { tail: [] as number[], count: 0, appends: 0 };
  /** The trajectory of each tail read. */
  const tailOf: string[] = [];
  const batches: StateBatch[] = [];
  const gate: (() => void)[] = [];
  const readGate: (() => void)[] = [];
  const control = {
    hold: false,
    holdReads: false,
    refuse: null as ((b: StateBatch) => Error | null) | null,
  };
  const delivered = <T>(reply: Promise<T>): Promise<T> => (control.holdReads ? new Promise<void>((r) => readGate.push(r)).then(() => reply) : reply);
  const proxy: MindState = {
    mindId: state.mindId,
    append: async (b) => {
      reads.appends++;
      batches.push({ steps: [...b.steps], seen: [...b.seen] });
      if (control.hold) await new Promise<void>((r) => gate.push(r));
      const refused = control.refuse?.(b);
      if (refused) throw refused;
      return state.append(b);
    },
    tail: (trajId, n) => {
      reads.tail.push(n);
      tailOf.push(trajId);
      return delivered(state.tail(trajId, n));
    },
    count: (trajId) => {
      reads.count++;
      return delivered(state.count(trajId));
    },
    find: (q, limit) => state.find(q, limit),
    search: (trajId, text, limit) => state.search(trajId, text, limit),
    ofKind: (trajId, kinds, limit, after) => state.ofKind(trajId, kinds, limit, after),
    fork: (parent, child) => state.fork(parent, child),
    putBlob: (trajId, name, text) => state.putBlob(trajId, name, text),
    blob: (trajId, ref) => state.blob(trajId, ref),
    tiers: (trajId) => state.tiers(trajId),
    spendSince: (ms) => state.spendSince(ms),
    files: state.files,
    record: () => state.record(),
    saveShellState: (s) => state.saveShellState(s),
    savePacing: (p) => state.savePacing(p),
    inbound: state.inbound,
  };
  /** Let the next held write go on (waiting, a task at a time, for one to be held). */
  const release = async () => {
    for (let i = 0; i < 50 && gate.length === 0; i++) await tick();
    const open = gate.shift();
    if (!open) throw new Error("no write is held");
    open();
  };
  return { state, proxy, reads, tailOf, batches, gate, readGate, control, release };
}

/** A writer over the proxy, and its root trajectory's log. */
function logOver(proxy: MindState, size?: number, options?: WriterOptions) {
  const writer = new MindWriter(proxy, options);
  return { writer, log: new TrajectoryLog(writer, ROOT, size) };
}

describe("TrajectoryLog over MindWriter", () => {
  it("reads the store once (tail of the window and count); later tails and counts are served from memory", async () => {
    const initial = thoughts(5);
    const { proxy, reads } = await counted(initial);
    const { log } = logOver(proxy, 10);
    expect(await log.tail(3)).toEqual(initial.slice(-3));
    expect(await log.count()).toBe(5);
    expect(await log.tail(5)).toEqual(initial);
    expect(await log.tail(50)).toEqual(initial); // the window holds the whole trajectory
    expect(await log.tail(0)).toEqual([]);
    expect(await log.count()).toBe(5);
    expect(reads).toEqual({ tail: [10], count: 1, appends: 0 });
  });

  it("concurrent first reads share one load", async () => {
    const initial = thoughts(2);
    const { proxy, reads } = await counted(initial);
    const { log } = logOver(proxy, 10);
    const [a, b, c] = await Promise.all([log.tail(1), log.count(), log.tail(2)]);
    expect([a, b, c]).toEqual([initial.slice(-1), 2, initial]);
    expect(reads).toEqual({ tail: [10], count: 1, appends: 0 });
  });

  it("keeps its own appends without reading them back; what is appended while a write is in flight goes in the next write, all at once", async () => {
    const initial = thoughts(2);
    const { state, proxy, reads, batches, control, release } = await counted(initial);
    control.hold = true;
    const { writer, log } = logOver(proxy, 10);
    const [a, b, c] = [mine("thought", { content: "a" }), mine("thought", { content: "b" }), mine("thought", { content: "c" })];
    await log.append(a); // resolves before its write is done
    await log.append(b); // so does this one: it waits in the queue, not in the run
    await log.append(c);
    expect(await log.tail(10)).toEqual([...initial, a, b, c]);
    expect(await log.count()).toBe(5);
    expect(state.steps()).toEqual(initial);
    let done = false;
    const flushed = writer.flushed().then(() => (done = true));
    await release();
    await tick();
    expect(state.steps()).toEqual([...initial, a]);
    expect(done).toBe(false); // flushed() waits for the write behind too
    await release();
    await flushed;
    expect(batches).toEqual([batch(root(a)), batch(root(b, c))]);
    expect(state.steps()).toEqual([...initial, a, b, c]);
    expect(reads).toEqual({ tail: [10], count: 1, appends: 2 });
  });

  it("with a later start (the worker's next task), the steps one turn appends go in one write", async () => {
    const { state, proxy, batches } = await counted();
    const { writer, log } = logOver(proxy, 10, { nextTurn: () => new Promise((r) => setTimeout(r, 0)) });
    const [a, b, c] = thoughts(3) as [Step, Step, Step];
    await log.append(a);
    await log.append(b); // the same turn: nothing is written yet
    expect(state.steps()).toEqual([]);
    expect(batches).toEqual([]);
    await writer.flushed();
    await log.append(c);
    await writer.flushed();
    expect(batches).toEqual([batch(root(a, b)), batch(root(c))]);
    expect(state.steps()).toEqual([a, b, c]);
  });

  it("started GATHER_MS later (as the worker starts them): the steps of that time go in one write, however many tasks append them", async () => {
    vi.useFakeTimers();
    try {
      const { state, proxy, batches } = await counted();
      const { writer, log } = logOver(proxy, 10, { nextTurn: () => new Promise((r) => setTimeout(r, GATHER_MS)) });
      const [a, b, c, d] = thoughts(4) as [Step, Step, Step, Step];
      await log.append(a);
      await vi.advanceTimersByTimeAsync(GATHER_MS / 2);
      await log.append(b); // a task later: still gathering
      await vi.advanceTimersByTimeAsync(GATHER_MS / 2 - 1);
      await log.append(c);
      expect(state.steps()).toEqual([]);
      // Kept at once all the same: the mind reads what it has not stored yet.
      expect(await log.tail(3)).toEqual([a, b, c]);
      await vi.advanceTimersByTimeAsync(1);
      expect(batches).toEqual([batch(root(a, b, c))]);
      expect(state.steps()).toEqual([a, b, c]);
      // A step after the write waits its own GATHER_MS; flushed() waits with it.
      await log.append(d);
      const flushed = writer.flushed();
      await vi.advanceTimersByTimeAsync(GATHER_MS - 1);
      expect(state.steps()).toEqual([a, b, c]);
      await vi.advanceTimersByTimeAsync(1);
      await flushed;
      expect(batches).toEqual([batch(root(a, b, c)), batch(root(d))]);
      expect(state.steps()).toEqual([a, b, c, d]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("the queue behind a write is bounded: an append past it waits for the write in flight", async () => {
    const { state, proxy, batches, control, release } = await counted();
    control.hold = true;
    const { writer, log } = logOver(proxy, 10, { batch: 2 });
    const [a, b, c, d] = thoughts(4) as [Step, Step, Step, Step];
    await log.append(a); // in flight
    await log.append(b); // queued
    await log.append(c); // queued: the queue is full
    let fourth = false;
    const appending = log.append(d).then(() => (fourth = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(fourth).toBe(false);
    expect(await log.count()).toBe(3); // not kept either, until it is queued
    await release(); // a is stored; b and c are handed to the store together, and d takes their place in the queue
    await appending;
    expect(state.steps()).toEqual([a]);
    expect(batches).toEqual([batch(root(a)), batch(root(b, c))]);
    expect(await log.tail(4)).toEqual([a, b, c, d]);
    const flushed = writer.flushed();
    await release();
    await release();
    await flushed;
    expect(batches).toEqual([batch(root(a)), batch(root(b, c)), batch(root(d))]);
    expect(state.steps()).toEqual([a, b, c, d]);
  });

  it("a write that fails takes the steps queued behind it down with it: the store keeps a prefix of what was appended", async () => {
    const { state, proxy, batches, gate, control, release } = await counted();
    control.hold = true;
    const { writer, log } = logOver(proxy, 10);
    const [a, b, c, d, e] = thoughts(5) as [Step, Step, Step, Step, Step];
    control.refuse = (bt) => (bt.steps.some((s) => s.step === b) ? new Error("disk full") : null);
    await log.append(a); // in flight
    await log.append(b);
    await log.append(c);
    await release(); // a is stored; b and c are handed to the store
    await tick();
    expect(batches).toEqual([batch(root(a)), batch(root(b, c))]);
    await log.append(d); // queued behind the write that will fail
    await log.append(e);
    const flushed = writer.flushed();
    await release();
    await expect(flushed).rejects.toThrow("disk full");
    expect(gate).toHaveLength(0); // d and e were never handed to the store
    expect(batches).toEqual([batch(root(a)), batch(root(b, c))]);
    expect(state.steps()).toEqual([a]);
    await expect(log.append(mine("thought", { content: "refused" }))).rejects.toThrow("disk full");
    expect(() => writer.check()).toThrow("disk full");
    expect(batches).toHaveLength(2);
  });

  it("a write the store refuses fails flushed() and the next append; nothing after it is written", async () => {
    const { state, proxy, batches } = await counted(thoughts(1));
    const { writer, log } = logOver(proxy, 10);
    state.failWrites = new Error("disk full");
    await log.append(mine("thought", { content: "not stored" }));
    await expect(writer.flushed()).rejects.toThrow("disk full");
    state.failWrites = null;
    await expect(log.append(mine("thought", { content: "refused" }))).rejects.toThrow("disk full");
    expect(state.steps().map(content)).toEqual(["t0"]);
    expect(batches.map((b) => b.steps.map((s) => content(s.step)))).toEqual([["not stored"]]);
  });

  it("reads that go to the store wait for the writes before them", async () => {
    const initial = thoughts(1);
    const { state, proxy, reads, control, release } = await counted(initial);
    control.hold = true;
    const { log } = logOver(proxy, 1); // a window of one: a tail of two goes to the store
    const st = mine("thought", { content: "findable" });
    await log.append(st);
    let answered = 0;
    const found = log.find(st.step_id.slice(0, 8), 5).finally(() => answered++);
    const searched = log.search("findable", 5).finally(() => answered++);
    const tailed = log.tail(2).finally(() => answered++);
    await tick();
    expect(answered).toBe(0);
    expect(state.steps()).toEqual(initial);
    await release();
    expect(await found).toEqual([{ step: st, trajId: ROOT }]);
    expect(await searched).toEqual([st]);
    expect(await tailed).toEqual([...initial, st]);
    expect(reads.tail).toEqual([1, 2]);
    expect(state.steps()).toEqual([...initial, st]);
  });

  it("ingests what others appended, once each (a duplicate id is ignored)", async () => {
    const initial = thoughts(1);
    const { state, proxy, reads } = await counted(initial);
    const { writer, log } = logOver(proxy, 10);
    await log.tail(1);
    const own = mine("thought", { content: "mine" });
    const msg = theirs("message", { from: "ada", to: "Reverie", content: "hi" });
    await log.append(own);
    await writer.flushed();
    await state.append(batch(root(msg))); // the page writes to the store; the watch hands it over
    log.ingest(msg);
    log.ingest(msg);
    log.ingest(own); // the watch also saw the mind's own row
    expect(await log.tail(10)).toEqual([initial[0], own, msg]);
    expect(await log.count()).toBe(3);
    expect(reads.tail).toEqual([10]);
    expect(state.steps()).toEqual([initial[0], own, msg]);
  });

  it("steps ingested before the first read is done are taken in after it, without doubling what the read already saw", async () => {
    const initial = thoughts(1);
    const { state, proxy, control, readGate } = await counted(initial);
    const { log } = logOver(proxy, 10);
    const already = theirs("message", { from: "ada", to: "Reverie", content: "already in the store" });
    await state.append(batch(root(already)));
    // The store's read is slow: a step lands in the store and in the watch after the read began.
    control.holdReads = true;
    const loading = log.count();
    log.ingest(already);
    const late = theirs("message", { from: "ada", to: "Reverie", content: "after the read" });
    await state.append(batch(root(late)));
    log.ingest(late);
    log.ingest(late);
    expect(readGate).toHaveLength(2); // the tail and the count, both answered from before `late`
    for (const open of readGate.splice(0)) open();
    expect(await loading).toBe(3);
    expect(await log.tail(10)).toEqual([initial[0], already, late]);
  });

  it("steps ingested before anyone read at all are not lost", async () => {
    const { state, proxy, batches } = await counted();
    const { log } = logOver(proxy, 10);
    const m = theirs("message", { from: "ada", to: "Reverie", content: "early" });
    log.ingest(m); // not yet in the store's reply (the watch was faster than the read)
    expect(await log.tail(5)).toEqual([m]);
    expect(await log.count()).toBe(1);
    expect(state.steps()).toEqual([]); // ingest never writes
    expect(batches).toEqual([]);
  });

  it("a read beyond the window falls through to the store; within it, memory answers", async () => {
    const initial = thoughts(25);
    const { proxy, reads } = await counted(initial);
    const { log } = logOver(proxy, 10);
    expect(await log.tail(10)).toEqual(initial.slice(-10));
    expect(reads.tail).toEqual([10]);
    expect(await log.tail(11)).toEqual(initial.slice(-11));
    expect(await log.tail(100)).toEqual(initial);
    expect(reads.tail).toEqual([10, 11, 100]);
    expect(await log.count()).toBe(25);
    expect(reads.count).toBe(1);
  });

  it("the window grows to one and a half times its size, then is cut back; older reads go to the store", async () => {
    const { state, proxy, reads } = await counted();
    const { log } = logOver(proxy, 10);
    const added = thoughts(16);
    for (const s of added.slice(0, 15)) await log.append(s);
    // 15 held (1.5 × 10): all from memory.
    expect(await log.tail(15)).toEqual(added.slice(0, 15));
    expect(reads.tail).toEqual([10]);
    // The 16th append cuts the window to the newest 10.
    await log.append(added[15]!);
    expect(await log.tail(10)).toEqual(added.slice(-10));
    expect(reads.tail).toEqual([10]);
    expect(await log.tail(11)).toEqual(added.slice(-11));
    expect(reads.tail).toEqual([10, 11]);
    expect(await log.count()).toBe(16);
    expect(state.steps()).toEqual(added);
  });

  it("holds WINDOW steps by default: the context, the responder's look-back and `traj tail -n 500` never reach the store", async () => {
    const initial = thoughts(WINDOW + 5);
    const { proxy, reads } = await counted(initial);
    const { log } = logOver(proxy);
    expect(await log.tail(500)).toEqual(initial.slice(-500));
    expect(await log.tail(WINDOW)).toEqual(initial.slice(-WINDOW));
    expect(await log.tail(WINDOW + 1)).toEqual(initial.slice(-(WINDOW + 1)));
    expect(reads.tail).toEqual([WINDOW, WINDOW + 1]);
  });

  it("passes the rest through to the store", async () => {
    const initial = thoughts(2);
    const { state, proxy } = await counted(initial);
    const { log, writer } = logOver(proxy, 10);
    await log.putBlob("x.stdout", "big");
    expect(await state.blob(ROOT, "blobs/x.stdout")).toBe("big");
    expect(await log.blob("blobs/x.stdout")).toBe("big");
    expect(await log.blob("blobs/none")).toBeUndefined();
    expect(await log.find(initial[0]!.step_id.slice(0, 8), 5)).toEqual([{ step: initial[0], trajId: ROOT }]);
    expect(await log.search("t1", 5)).toEqual([initial[1]]);
    expect(log.trajId).toBe(ROOT);
    expect(log.writer).toBe(writer);
    expect(log.past).toBeUndefined();
  });

  it("shows the trajectory's sealed past once it is loaded; a forked child has none", async () => {
    const { proxy } = await counted();
    const past = new SealedPast({ fanout: 10 });
    const log = new TrajectoryLog(new MindWriter(proxy), ROOT, 10, past);
    expect(log.past?.()).toBeUndefined();
    past.loaded = true;
    expect(log.past?.()).toBe(past);
    const child = await log.fork({ trajId: CHILD, name: "child" });
    expect(child.past).toBeUndefined();
  });
});

describe("MindWriter: records, failures, trajectories and usage", () => {
  it("a call's record rides in the write of the step it was recorded for; one whose step's write began goes with the next write, with or without steps", async () => {
    const { state, proxy, batches, control, release } = await counted();
    control.hold = true;
    const { writer, log } = logOver(proxy, 10);
    const [a, b, c] = [mine("reasoning", { thought: "a", cmd: "echo a" }), mine("reasoning", { thought: "b", cmd: "echo b" }), mine("thought", { content: "c" })];
    await log.append(a); // its write begins at once
    await log.append(b);
    writer.record(seen(b)); // b is queued: the record rides with it
    writer.record(seen(a)); // a's write began: the next write takes it
    await log.append(c);
    await release();
    await release();
    await writer.flushed();
    expect(batches).toEqual([batch(root(a)), batch(root(b, c), [seen(a), seen(b)])]);
    expect(state.seen).toEqual([seen(a), seen(b)]);
    // A record of a step already stored: a write of its own.
    control.hold = false;
    writer.record(seen(c));
    await writer.flushed();
    expect(batches).toEqual([batch(root(a)), batch(root(b, c), [seen(a), seen(b)]), batch([], [seen(c)])]);
    expect(state.seen).toEqual([seen(a), seen(b), seen(c)]);
    expect(state.steps()).toEqual([a, b, c]);
  });

  it("a write that fails while carrying records is written once more without them; onRecordError hears why, and the steps are stored", async () => {
    const { state, proxy, batches, control, release } = await counted();
    control.hold = true;
    control.refuse = (bt) => (bt.seen.length > 0 ? new Error("record too big") : null);
    const errors: unknown[] = [];
    const { writer, log } = logOver(proxy, 10, { onRecordError: (e) => errors.push(e) });
    const [a, b] = [mine("reasoning", { thought: "a", cmd: "echo a" }), mine("reasoning", { thought: "b", cmd: "echo b" })];
    await log.append(a); // in flight
    await log.append(b);
    writer.record(seen(b)); // rides with b
    control.hold = false;
    await release();
    await writer.flushed();
    expect(batches).toEqual([batch(root(a)), batch(root(b), [seen(b)]), batch(root(b))]);
    expect(errors).toEqual([new Error("record too big")]);
    expect(state.steps()).toEqual([a, b]);
    expect(state.seen).toEqual([]);
    // The writer goes on: the next step is written.
    const c = mine("thought", { content: "c" });
    await log.append(c);
    await writer.flushed();
    expect(state.steps()).toEqual([a, b, c]);
  });

  it("a write that fails without records is not written again, and onRecordError hears nothing", async () => {
    const { state, proxy, batches, control } = await counted();
    control.refuse = () => new Error("disk full");
    const errors: unknown[] = [];
    const { writer, log } = logOver(proxy, 10, { onRecordError: (e) => errors.push(e) });
    const a = mine("thought", { content: "a" });
    await log.append(a);
    await expect(writer.flushed()).rejects.toThrow("disk full");
    expect(batches).toEqual([batch(root(a))]);
    expect(errors).toEqual([]);
    expect(state.steps()).toEqual([]);
  });

  it("a step the store refuses (InvalidStepError) stores the steps before it, with their records, and fails the next append; it is not written again", async () => {
    const { state, proxy, batches } = await counted();
    const errors: unknown[] = [];
    const { writer, log } = logOver(proxy, 10, { nextTurn: () => new Promise((r) => setTimeout(r, 0)), onRecordError: (e) => errors.push(e) });
    const a = mine("thought", { content: "a" });
    // A thought whose content is a number: the store's schema refuses it.
    const bad = { ...mine("thought", { content: "x" }), content: 42 } as unknown as Step;
    const c = mine("thought", { content: "c" });
    await log.append(a);
    writer.record(seen(a));
    await log.append(bad);
    writer.record(seen(bad));
    await log.append(c);
    const failure = await writer.flushed().then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(InvalidStepError);
    expect((failure as InvalidStepError).stored).toBe(1);
    expect(batches).toEqual([batch(root(a, bad, c), [seen(a), seen(bad)])]);
    expect(state.steps()).toEqual([a]);
    expect(state.seen).toEqual([seen(a)]); // the refused step's record went with it
    expect(errors).toEqual([]);
    await expect(log.append(mine("thought", { content: "refused" }))).rejects.toBe(failure);
    writer.record(seen(c)); // dropped: nothing is written after a failure
    await expect(writer.flushed()).rejects.toBe(failure);
    expect(batches).toHaveLength(1);
  });

  it("a forked child and the root write through the one queue, in append order; a child reads its own steps; find from the root reaches the child", async () => {
    const { state, proxy, reads, tailOf, batches } = await counted();
    const writer = new MindWriter(proxy, { nextTurn: () => new Promise((r) => setTimeout(r, 0)) });
    const log = new TrajectoryLog(writer, ROOT);
    const r1 = mine("thought", { content: "r1" });
    await log.append(r1);
    const child = await log.fork({ trajId: CHILD, name: "child" }); // waits for r1's write
    expect(state.steps()).toEqual([r1]);
    expect(state.children()).toEqual([CHILD]);
    expect(child.trajId).toBe(CHILD);
    const [r2, r3] = [mine("thought", { content: "r2" }), mine("thought", { content: "r3" })];
    const [c1, c2] = [mine("thought", { content: "c1" }), mine("thought", { content: "c2" })];
    await log.append(r2);
    await child.append(c1);
    await log.append(r3);
    await child.append(c2);
    await writer.flushed();
    expect(batches).toEqual([batch(root(r1)), batch([[ROOT, r2], [CHILD, c1], [ROOT, r3], [CHILD, c2]])]);
    expect(await child.tail(10)).toEqual([c1, c2]);
    expect(await child.count()).toBe(2);
    expect(await log.tail(10)).toEqual([r1, r2, r3]);
    expect(await log.count()).toBe(3);
    expect(state.steps(CHILD)).toEqual([c1, c2]);
    expect(state.steps(ROOT)).toEqual([r1, r2, r3]);
    expect(await child.search("c", 10)).toEqual([c2, c1]);
    expect(await log.find(c1.step_id.toUpperCase(), 5)).toEqual([{ step: c1, trajId: CHILD }]);
    // The child's window is the smaller one; each log read its own trajectory once.
    expect(reads.tail).toEqual([WINDOW, CHILD_WINDOW]);
    expect(tailOf).toEqual([ROOT, CHILD]);
    expect(reads.count).toBe(2);
    // Seqs follow the append order across both trajectories.
    const keys = [...(await state.tiers(ROOT).keysAfter(0)), ...(await state.tiers(CHILD).keysAfter(0))].sort((x, y) => x.seq - y.seq);
    expect(keys.map((k) => k.step_id)).toEqual([r1, r2, c1, r3, c2].map((s) => s.step_id));
    // A child's blob is its own.
    await child.putBlob("o.stdout", "child's");
    expect(await log.blob("blobs/o.stdout")).toBeUndefined();
    expect(await log.blob("blobs/o.stdout", CHILD)).toBe("child's");
    expect(await child.blob("blobs/o.stdout")).toBe("child's");
  });

  it("a fork waits for the writes before it, and a failed writer refuses to fork", async () => {
    const { state, proxy, control, release } = await counted();
    control.hold = true;
    const { writer, log } = logOver(proxy, 10);
    const a = mine("thought", { content: "a" });
    await log.append(a);
    let forked = false;
    const forking = log.fork({ trajId: CHILD, name: "child" }).then((c) => ((forked = true), c));
    await tick();
    expect(forked).toBe(false);
    expect(state.children()).toEqual([]);
    await release();
    await forking;
    expect(state.children()).toEqual([CHILD]);
    control.hold = false;
    control.refuse = () => new Error("disk full");
    await log.append(mine("thought", { content: "lost" }));
    await expect(writer.flushed()).rejects.toThrow("disk full");
    await expect(log.fork({ trajId: id(77), name: "other" })).rejects.toThrow("disk full");
    expect(state.children()).toEqual([CHILD]);
  });

  it("a step's usage counts in spendSince as soon as the write holding it is stored", async () => {
    const { state, proxy, control, release } = await counted();
    control.hold = true;
    const { writer, log } = logOver(proxy, 10);
    const a = mine("reasoning", { thought: "a", cmd: "echo a", usage: { input_tokens: 100, output_tokens: 20, usd: 0.5 } });
    const b = mine("reasoning", { thought: "b", cmd: "echo b", usage: { input_tokens: 50, output_tokens: 10, usd: 0.25 } });
    await log.append(a); // in flight
    await log.append(b); // queued
    expect(await state.spendSince(0)).toEqual([]);
    await release(); // a's write is stored; b's is held
    await tick();
    expect(await state.spendSince(0)).toEqual([{ ts: Date.parse(a.ts), usd: 0.5 }]);
    await release();
    await writer.flushed();
    expect(await state.spendSince(0)).toEqual([
      { ts: Date.parse(a.ts), usd: 0.5 },
      { ts: Date.parse(b.ts), usd: 0.25 },
    ]);
    expect(await state.spendSince(Date.parse(b.ts))).toEqual([{ ts: Date.parse(b.ts), usd: 0.25 }]);
  });
});
