// lib/mind/step-log.ts: a decorator forwards the batch writer only when it
// does not replace `append` (else a batch would bypass what its `append`
// adds), and CachedLog then writes through that `append`, step by step.
import { describe, expect, it } from "vitest";
import { CachedLog } from "../../lib/mind/cached-log";
import { decorateLog, type BatchingLog } from "../../lib/mind/step-log";
import type { Step } from "../../lib/trajectory/schema";
import { MemoryStepLog } from "./helpers/memory-log";
import { stepMaker } from "./helpers/steps";

const step = stepMaker();

/** A memory log that also writes batches (each a macrotask later, as a store's round trip is), recording each batch's size. */
function batchingStore() {
  const store = new MemoryStepLog();
  const batches: number[] = [];
  const log: BatchingLog = {
    trajId: store.trajId,
    append: (s) => store.append(s),
    appendAll: async (steps) => {
      await new Promise((r) => setTimeout(r, 0));
      batches.push(steps.length);
      for (const s of steps) await store.append(s);
    },
    putBlob: (n, t) => store.putBlob(n, t),
    blob: (r, t) => store.blob(r, t),
    tail: (n) => store.tail(n),
    count: () => store.count(),
    find: (q, l) => store.find(q, l),
    search: (q, l) => store.search(q, l),
    fork: (c) => store.fork(c),
  };
  return { store, log, batches };
}

async function appendThree(log: BatchingLog): Promise<Step[]> {
  const cached = new CachedLog(log, 10);
  const steps = [step("thought", { content: "a" }), step("thought", { content: "b" }), step("thought", { content: "c" })];
  for (const s of steps) await cached.append(s);
  await cached.flushed();
  return steps;
}

describe("decorateLog and the batch writer", () => {
  it("forwards appendAll when the decorator leaves append alone", async () => {
    const { store, log, batches } = batchingStore();
    const decorated = decorateLog(log, { count: async () => 42 });
    expect(decorated.appendAll).toBeTypeOf("function");
    const steps = await appendThree(decorated);
    expect(store.steps).toEqual(steps);
    expect(batches).toEqual([1, 2]); // the first write alone, the two appended while it was in flight together
  });

  it("drops appendAll when the decorator replaces append: every step goes through the replacement", async () => {
    const { store, log, batches } = batchingStore();
    const seen: string[] = [];
    const decorated = decorateLog(log, {
      append: async (s) => {
        seen.push((s as { content: string }).content);
        await log.append(s);
      },
    });
    expect(decorated.appendAll).toBeUndefined();
    const steps = await appendThree(decorated);
    expect(store.steps).toEqual(steps);
    expect(seen).toEqual(["a", "b", "c"]);
    expect(batches).toEqual([]);
  });
});
