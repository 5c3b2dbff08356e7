// lib/store/db/raw-write.ts: the mind's batch writes go straight to IndexedDB,
// past Dexie. What they announce must be what Dexie itself announces for the
// same rows (or the live queries of every tab would miss them: a Dexie
// upgrade that changes its format fails here first), a live query must hear
// them, and a batch is all or nothing.
import Dexie, { liveQuery, type ObservabilitySet } from "dexie";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ReverieDb, type ContextRow, type StepRow } from "@/lib/store/db/db";
import { writeRows, type TableWrite } from "@/lib/store/db/raw-write";
import { openTestDb } from "../../helpers/db";

let db: ReverieDb;
beforeEach(async () => {
  db = await openTestDb("raw-write-test");
});
afterEach(async () => {
  await db.delete();
});

const step = (id: string, type = "thought", mind = "m1"): StepRow => ({ step_id: id, mind_id: mind, traj_id: mind, type, json: `{"step_id":"${id}"}` });
const usage = (id: string, ts: number) => ({ mind_id: "m1", step_id: id, traj_id: "m1", ts, usd: 0.5, input_tokens: 10, output_tokens: 2 });
const context = (id: string): ContextRow => ({ mind_id: "m1", step_id: id, run_id: "r1", traj_id: "m1", iteration: 1, budget: 100, tokens: 0, before: 0, self_name: "m", parts: [] });

/** The parts announced while `write` runs, merged; as plain trees (how they cross to another tab). */
async function announced(write: () => Promise<unknown>): Promise<Record<string, unknown>> {
  const heard: ObservabilitySet[] = [];
  const listen = (parts: ObservabilitySet) => void heard.push(parts);
  Dexie.on.storagemutated.subscribe(listen);
  try {
    await write();
  } finally {
    Dexie.on.storagemutated.unsubscribe(listen);
  }
  const merged: ObservabilitySet = {};
  for (const parts of heard) Dexie.extendObservabilitySet(merged, parts);
  return JSON.parse(JSON.stringify(merged));
}

describe("writeRows", () => {
  it("announces the same parts as Dexie's own writes of the same rows", async () => {
    const rows = [step("a", "reasoning"), step("b", "shell-output")];
    const ours = await announced(() =>
      writeRows(db, [
        { table: "steps", op: "add", rows },
        { table: "usage", op: "put", rows: [usage("a", 1000)] },
        { table: "contexts", op: "put", rows: [context("a")] },
      ]),
    );
    // The same rows again, through Dexie, in a fresh database: their seqs come out the same (1 and 2).
    const other = await openTestDb("raw-write-dexie");
    try {
      const theirs = await announced(() =>
        other.transaction("rw", [other.steps, other.usage, other.contexts], async () => {
          await other.steps.bulkAdd(rows.map((r) => ({ ...r })));
          await other.usage.bulkPut([usage("a", 1000)]);
          await other.contexts.bulkPut([context("a")]);
        }),
      );
      const renamed = JSON.parse(JSON.stringify(theirs).replaceAll(`idb://${other.name}/`, `idb://${db.name}/`));
      expect(Object.keys(ours).sort()).toEqual(Object.keys(renamed).sort());
      expect(ours).toEqual(renamed);
      expect(Object.keys(ours)).toContain(`idb://${db.name}/steps/[mind_id+traj_id+seq+type+step_id]`);
      // [mind_id+traj_id+seq] is a virtual index of it since version 5: a query on it is recorded as on the real one.
      expect(Object.keys(ours)).not.toContain(`idb://${db.name}/steps/[mind_id+traj_id+seq]`);
    } finally {
      await other.delete();
    }
  });

  // As in the mind's worker, which writes this way: with Dexie's cache on, a live query in the writing context is woken only by Dexie's own writes (other tabs' are signalled apart).
  it("wakes a live query over the rows written (Dexie's cache off, as in the worker), and returns each write's keys", async () => {
    const live = new ReverieDb(`raw-write-live-${Math.random()}`, { cache: "disabled" });
    await live.open();
    const seen: number[][] = [];
    const sub = liveQuery(() =>
      live.steps
        .where("[mind_id+traj_id+seq]")
        .between(["m1", "m1", Dexie.minKey], ["m1", "m1", Dexie.maxKey])
        .toArray(),
    ).subscribe({ next: (r) => void seen.push(r.map((x) => x.seq as number)) });
    try {
      await expect.poll(() => seen.length).toBe(1);
      const keys = await writeRows(live, [
        { table: "steps", op: "add", rows: [step("a"), step("b")] },
        { table: "usage", op: "put", rows: [] },
      ]);
      expect(keys).toEqual([[1, 2], []]);
      await expect.poll(() => seen.at(-1)).toEqual([1, 2]);
      // Another mind's rows are outside the query's range: it does not run again for them.
      const runs = seen.length;
      await writeRows(live, [{ table: "steps", op: "add", rows: [step("c", "thought", "m2")] }]);
      await new Promise((r) => setTimeout(r, 50));
      expect(seen.length).toBe(runs);
      // And a row of this mind again does.
      await writeRows(live, [{ table: "steps", op: "add", rows: [step("d")] }]);
      await expect.poll(() => seen.at(-1)).toEqual([1, 2, 4]);
    } finally {
      sub.unsubscribe();
      await live.delete();
    }
  });

  it("is all or nothing: a refused row (a step id taken) or a row that cannot be stored leaves no row of the batch", async () => {
    await writeRows(db, [{ table: "steps", op: "add", rows: [step("a")] }]);
    const taken: TableWrite[] = [
      { table: "steps", op: "add", rows: [step("b"), step("a")] },
      { table: "usage", op: "put", rows: [usage("b", 1)] },
    ];
    await expect(writeRows(db, taken)).rejects.toMatchObject({ name: "ConstraintError" });
    const unclonable: TableWrite[] = [
      { table: "steps", op: "add", rows: [step("c")] },
      { table: "contexts", op: "put", rows: [{ ...context("c"), parts: [() => 1] }] },
    ];
    await expect(writeRows(db, unclonable)).rejects.toMatchObject({ name: "DataCloneError" });
    expect((await db.steps.toArray()).map((r) => r.step_id)).toEqual(["a"]);
    expect(await db.usage.count()).toBe(0);
    expect(await db.contexts.count()).toBe(0);
  });
});
