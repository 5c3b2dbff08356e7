// lib/mind/cached-log.ts: the mind's trajectory kept in memory over the store
// log (here MemoryStepLog, wrapped to count its reads). After the first read,
// tail and count come from memory; the mind's own appends are kept as written
// and written behind, in order, batched while a write is in flight;
// steps others wrote come in through `ingest`; reads past the window go to the
// store.
import { describe, expect, it, vi } from "vitest";
import { CachedLog, GATHER_MS, WINDOW } from "../../lib/mind/cached-log";
import type { StepLog } from "../../lib/mind/ports";
import type { BatchingLog } from "../../lib/mind/step-log";
import type { Step } from "../../lib/trajectory/schema";
import { MemoryStepLog } from "./helpers/memory-log";
import { stepMaker } from "./helpers/steps";

const mine = stepMaker({ tail: "000000000000" });
const theirs = stepMaker({ tail: "cccccccccccc" });

/** The store log, with every read counted. */
function countedStore(initial: Step[] = []) {
  const store = new MemoryStepLog(initial);
  const reads = { tail: [] as number[], count: 0, appends: 0 };
  const inner: StepLog = {
    trajId: store.trajId,
    append: (s) => {
      reads.appends++;
      return store.append(s);
    },
    tail: (n) => {
      reads.tail.push(n);
      return store.tail(n);
    },
    count: () => {
      reads.count++;
      return store.count();
    },
    putBlob: (name, text) => store.putBlob(name, text),
    blob: (ref, trajId) => store.blob(ref, trajId),
    find: (idOrPrefix, limit) => store.find(idOrPrefix, limit),
    search: (text, limit) => store.search(text, limit),
    fork: (child) => store.fork(child),
  };
  return { store, inner, reads };
}

const thoughts = (n: number, make = mine) => Array.from({ length: n }, (_, i) => make("thought", { content: `t${i}` }));

describe("CachedLog", () => {
  it("reads the store once (tail of the window and count); later tails and counts are served from memory", async () => {
    const initial = thoughts(5);
    const { inner, reads } = countedStore(initial);
    const log = new CachedLog(inner, 10);
    expect(await log.tail(3)).toEqual(initial.slice(-3));
    expect(await log.count()).toBe(5);
    expect(await log.tail(5)).toEqual(initial);
    expect(await log.tail(50)).toEqual(initial); // the window holds the whole trajectory
    expect(await log.tail(0)).toEqual([]);
    expect(await log.count()).toBe(5);
    expect(reads).toEqual({ tail: [10], count: 1, appends: 0 });
  });

  it("concurrent first reads share one load", async () => {
    const { inner, reads } = countedStore(thoughts(2));
    const log = new CachedLog(inner, 10);
    const [a, b, c] = await Promise.all([log.tail(1), log.count(), log.tail(2)]);
    expect([a.length, b, c.length]).toEqual([1, 2, 2]);
    expect(reads).toEqual({ tail: [10], count: 1, appends: 0 });
  });

  it("keeps its own appends without reading them back; what is appended while a write is in flight goes in the next write, all at once", async () => {
    const initial = thoughts(2);
    const { store, inner, reads } = countedStore(initial);
    // A store whose writes take a while, released by hand; it writes batches too.
    const gate: (() => void)[] = [];
    const held = () => new Promise<void>((r) => gate.push(r));
    const batches: string[][] = [];
    const slow: BatchingLog = {
      ...inner,
      append: (st) => held().then(() => inner.append(st)),
      appendAll: async (steps) => {
        await held();
        batches.push(steps.map((st) => (st as { content: string }).content));
        for (const st of steps) await inner.append(st);
      },
    };
    const log = new CachedLog(slow, 10);
    const [a, b, c] = [mine("thought", { content: "a" }), mine("thought", { content: "b" }), mine("thought", { content: "c" })];
    await log.append(a); // resolves before its write is done
    await log.append(b); // so does this one: it waits in the queue, not in the run
    await log.append(c);
    expect(await log.tail(10)).toEqual([...initial, a, b, c]);
    expect(await log.count()).toBe(5);
    expect(store.steps).toEqual(initial);
    const flushed = log.flushed();
    gate.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    expect(store.steps).toEqual([...initial, a]);
    gate.shift()!();
    await flushed;
    expect(batches).toEqual([["a"], ["b", "c"]]);
    expect(store.steps).toEqual([...initial, a, b, c]);
    expect(reads).toEqual({ tail: [10], count: 1, appends: 3 });
  });

  it("with a later start (the worker's next task), the steps one turn appends go in one write", async () => {
    const { store, inner } = countedStore();
    const batches: number[] = [];
    const batching: BatchingLog = {
      ...inner,
      appendAll: async (steps) => {
        batches.push(steps.length);
        for (const st of steps) await inner.append(st);
      },
    };
    const log = new CachedLog(batching, 10, { nextTurn: () => new Promise((r) => setTimeout(r, 0)) });
    const [a, b, c] = thoughts(3);
    await log.append(a!);
    await log.append(b!); // the same turn: nothing is written yet
    expect(store.steps).toEqual([]);
    await log.flushed();
    await log.append(c!);
    await log.flushed();
    expect(batches).toEqual([2, 1]);
    expect(store.steps).toEqual([a, b, c]);
  });

  it("started GATHER_MS later (as the worker starts them): the steps of that time go in one write, however many tasks append them", async () => {
    vi.useFakeTimers();
    try {
      const { store, inner } = countedStore();
      const batches: Step[][] = [];
      const batching: BatchingLog = {
        ...inner,
        appendAll: async (steps) => {
          batches.push([...steps]);
          for (const st of steps) await inner.append(st);
        },
      };
      const log = new CachedLog(batching, 10, { nextTurn: () => new Promise((r) => setTimeout(r, GATHER_MS)) });
      const [a, b, c, d] = thoughts(4);
      await log.append(a!);
      await vi.advanceTimersByTimeAsync(GATHER_MS / 2);
      await log.append(b!); // a task later: still gathering
      await vi.advanceTimersByTimeAsync(GATHER_MS / 2 - 1);
      await log.append(c!);
      expect(store.steps).toEqual([]);
      // Kept at once all the same: the mind reads what it has not stored yet.
      expect(await log.tail(3)).toEqual([a, b, c]);
      await vi.advanceTimersByTimeAsync(1);
      expect(batches).toEqual([[a, b, c]]);
      expect(store.steps).toEqual([a, b, c]);
      // A step after the write waits its own GATHER_MS; flushed() waits with it.
      await log.append(d!);
      const flushed = log.flushed();
      await vi.advanceTimersByTimeAsync(GATHER_MS);
      await flushed;
      expect(batches).toEqual([[a, b, c], [d]]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("the queue behind a write is bounded: an append past it waits for the write in flight", async () => {
    const { store, inner } = countedStore();
    const gate: (() => void)[] = [];
    const slow: StepLog = { ...inner, append: (st) => new Promise<void>((r) => gate.push(r)).then(() => inner.append(st)) };
    const log = new CachedLog(slow, 10, { batch: 2 });
    const [a, b, c, d] = thoughts(4);
    await log.append(a!); // in flight
    await log.append(b!); // queued
    await log.append(c!); // queued: the queue is full
    let fourth = false;
    const appending = log.append(d!).then(() => (fourth = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(fourth).toBe(false);
    gate.shift()!(); // a is stored; b and c go together (one by one: this store writes no batches)
    await appending;
    expect(store.steps).toEqual([a]);
    const flushed = log.flushed();
    while (store.steps.length < 4) {
      gate.shift()?.();
      await new Promise((r) => setTimeout(r, 0));
    }
    await flushed;
    expect(store.steps).toEqual([a, b, c, d]);
  });

  it("a write that fails takes the steps queued behind it down with it: the store keeps a prefix of what was appended", async () => {
    const { store, inner } = countedStore();
    const gate: (() => void)[] = [];
    const failing: StepLog = {
      ...inner,
      append: (st) =>
        new Promise<void>((r) => gate.push(r)).then(() => {
          if ((st as { content: string }).content === "t1") throw new Error("disk full");
          return inner.append(st);
        }),
    };
    const log = new CachedLog(failing, 10);
    const [a, b, c] = thoughts(3);
    await log.append(a!);
    await log.append(b!);
    await log.append(c!);
    const flushed = log.flushed();
    gate.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    gate.shift()!();
    await expect(flushed).rejects.toThrow("disk full");
    expect(gate).toHaveLength(0); // c was never handed to the store
    expect(store.steps).toEqual([a]);
    await expect(log.append(mine("thought", { content: "refused" }))).rejects.toThrow("disk full");
  });

  it("a write the store refuses fails flushed() and the next append; nothing after it is written", async () => {
    const { store, inner } = countedStore(thoughts(1));
    const log = new CachedLog(inner, 10);
    store.failAppends = new Error("disk full");
    await log.append(mine("thought", { content: "not stored" }));
    await expect(log.flushed()).rejects.toThrow("disk full");
    store.failAppends = null;
    await expect(log.append(mine("thought", { content: "refused" }))).rejects.toThrow("disk full");
    expect(store.steps.map((st) => (st as { content?: string }).content)).toEqual(["t0"]);
  });

  it("reads that go to the store wait for the writes before them", async () => {
    const { store, inner } = countedStore(thoughts(1));
    const log = new CachedLog(inner, 10);
    const st = mine("thought", { content: "findable" });
    await log.append(st);
    expect((await log.find(st.step_id.slice(0, 8), 5)).map((f) => f.step.step_id)).toEqual([st.step_id]);
    expect(store.steps).toHaveLength(2);
  });

  it("ingests what others appended, once each (a duplicate id is ignored)", async () => {
    const { store, inner, reads } = countedStore(thoughts(1));
    const log = new CachedLog(inner, 10);
    await log.tail(1);
    const own = mine("thought", { content: "mine" });
    const msg = theirs("message", { from: "ada", to: "Reverie", content: "hi" });
    await log.append(own);
    await store.append(msg); // the page writes to the store; the watch hands it over
    log.ingest(msg);
    log.ingest(msg);
    log.ingest(own); // the watch also saw the mind's own row
    expect((await log.tail(10)).map((s) => s.step_id)).toEqual([store.steps[0]!.step_id, own.step_id, msg.step_id]);
    expect(await log.count()).toBe(3);
    expect(reads.tail).toEqual([10]);
  });

  it("steps ingested before the first read is done are taken in after it, without doubling what the read already saw", async () => {
    const { store, inner } = countedStore(thoughts(1));
    const log = new CachedLog(inner, 10);
    const seen = theirs("message", { from: "ada", to: "Reverie", content: "already in the store" });
    await store.append(seen);
    // The store's read is slow: a step lands in the store and in the watch after the read began.
    const loading = log.count();
    log.ingest(seen);
    const late = theirs("message", { from: "ada", to: "Reverie", content: "after the read" });
    await store.append(late);
    log.ingest(late);
    log.ingest(late);
    expect(await loading).toBe(3);
    expect((await log.tail(10)).map((s) => (s as { content?: string }).content)).toEqual(["t0", "already in the store", "after the read"]);
  });

  it("steps ingested before anyone read at all are not lost", async () => {
    const { store, inner } = countedStore();
    const log = new CachedLog(inner, 10);
    const m = theirs("message", { from: "ada", to: "Reverie", content: "early" });
    log.ingest(m); // not yet in the store's reply (the watch was faster than the read)
    expect(await log.tail(5)).toEqual([m]);
    expect(await log.count()).toBe(1);
    expect(store.steps).toEqual([]); // ingest never writes
  });

  it("a read beyond the window falls through to the store; within it, memory answers", async () => {
    const initial = thoughts(25);
    const { inner, reads } = countedStore(initial);
    const log = new CachedLog(inner, 10);
    expect(await log.tail(10)).toEqual(initial.slice(-10));
    expect(reads.tail).toEqual([10]);
    expect(await log.tail(11)).toEqual(initial.slice(-11));
    expect(await log.tail(100)).toEqual(initial);
    expect(reads.tail).toEqual([10, 11, 100]);
    expect(await log.count()).toBe(25);
    expect(reads.count).toBe(1);
  });

  it("the window grows to one and a half times its size, then is cut back; older reads go to the store", async () => {
    const { store, inner, reads } = countedStore();
    const log = new CachedLog(inner, 10);
    const added = thoughts(16);
    for (const s of added) await log.append(s);
    // 15 held (1.5 × 10): the 16th append cuts the window to the newest 10.
    expect(await log.tail(10)).toEqual(added.slice(-10));
    expect(reads.tail).toEqual([10]);
    expect(await log.tail(11)).toEqual(added.slice(-11));
    expect(reads.tail).toEqual([10, 11]);
    expect(await log.count()).toBe(16);
    expect(store.steps).toEqual(added);
  });

  it("holds WINDOW steps by default: the context, the responder's look-back and `traj tail -n 500` never reach the store", async () => {
    const initial = thoughts(WINDOW + 5);
    const { inner, reads } = countedStore(initial);
    const log = new CachedLog(inner);
    expect(await log.tail(500)).toEqual(initial.slice(-500));
    expect(await log.tail(WINDOW)).toEqual(initial.slice(-WINDOW));
    expect(await log.tail(WINDOW + 1)).toEqual(initial.slice(-(WINDOW + 1)));
    expect(reads.tail).toEqual([WINDOW, WINDOW + 1]);
  });

  it("passes the rest through to the store", async () => {
    const { store, inner } = countedStore(thoughts(2));
    const log = new CachedLog(inner, 10);
    await log.putBlob("x.stdout", "big");
    expect(await log.blob("blobs/x.stdout")).toBe("big");
    expect(await log.find(store.steps[0]!.step_id.slice(0, 8), 5)).toEqual([{ step: store.steps[0], trajId: store.trajId }]);
    expect(await log.search("t1", 5)).toEqual([store.steps[1]]);
    expect(log.trajId).toBe(store.trajId);
  });
});
