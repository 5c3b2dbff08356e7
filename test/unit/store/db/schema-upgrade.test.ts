// Version 5 of the browser database (lib/store/db/db.ts) drops the steps'
// [mind_id+traj_id+seq] index: a trajectory's steps in order are read
// through Dexie's virtual index of [mind_id+traj_id+seq+type+step_id]. A
// database written under version 4 opens as version 5 with its steps, and
// every read that named the old index reads the same rows in the same order.
import Dexie from "dexie";
import { afterEach, describe, expect, it } from "vitest";
import { ReverieDb, type StepRow } from "@/lib/store/db/db";
import { countSteps, searchSteps, tailSteps } from "@/lib/store/steps/steps";

const name = `schema-upgrade-${process.pid}`;
afterEach(async () => {
  await Dexie.delete(name);
});

const stepOf = (mind: string, traj: string, i: number): StepRow => {
  const id = `${{ m1: "aa", c1: "cc", m2: "bb" }[traj] ?? "dd"}${String(i).padStart(6, "0")}-0000-4000-8000-000000000000`;
  const type = i % 3 === 0 ? "reasoning" : "thought";
  const step = type === "reasoning" ? { type, step_id: id, ts: "2026-12-07T00:00:00.000Z", thought: `t${i}`, cmd: `: ${i}` } : { type, step_id: id, ts: "2026-12-07T00:00:00.000Z", content: `words ${i}`, source: "monolith" };
  return { step_id: id, mind_id: mind, traj_id: traj, type, json: JSON.stringify(step) };
};

describe("the steps' indexes from version 4 to 5", () => {
  it("a trajectory's steps read by [mind_id+traj_id+seq] are the same, in order, before and after the upgrade", async () => {
    // Version 4's steps table, as it was.
    const old = new Dexie(name);
    old.version(4).stores({ steps: "++seq, &[mind_id+step_id], [mind_id+seq], [mind_id+traj_id+seq], [mind_id+traj_id+seq+type+step_id], [mind_id+traj_id+type+seq]" });
    const rows = [...Array(30).keys()].flatMap((i) => [stepOf("m1", "m1", i), stepOf("m1", "c1", i), stepOf("m2", "m2", i)]);
    await old.table("steps").bulkAdd(rows);
    const read = async (db: Dexie, lo: number, hi: number) =>
      (await db.table("steps").where("[mind_id+traj_id+seq]").between(["m1", "m1", lo], ["m1", "m1", hi], true, true).toArray()).map((r: StepRow) => r.step_id);
    const wholeBefore = await read(old, -Infinity, Infinity);
    const someBefore = await read(old, 10, 40);
    old.close();

    const db = new ReverieDb(name);
    await db.open();
    try {
      // Opened at the newest version (6 adds the pull's set-aside records and changes nothing of the steps).
      expect(db.verno).toBe(6);
      expect(db.steps.schema.indexes.map((ix) => ix.name)).not.toContain("[mind_id+traj_id+seq]");
      expect(await read(db, -Infinity, Infinity)).toEqual(wholeBefore);
      expect(wholeBefore).toEqual(rows.filter((r) => r.mind_id === "m1" && r.traj_id === "m1").map((r) => r.step_id));
      expect(await read(db, 10, 40)).toEqual(someBefore);
      // Bounds are inclusive and exclusive as asked.
      // (The root's steps are seqs 1, 4, 7, …: each third row.)
      expect(await db.steps.where("[mind_id+traj_id+seq]").between(["m1", "m1", 1], ["m1", "m1", 7], false, false).count()).toBe(1);
      expect(await db.steps.where("[mind_id+traj_id+seq]").between(["m1", "m1", 1], ["m1", "m1", 7], true, true).count()).toBe(3);
      expect(await countSteps(db, "m1", "c1")).toBe(30);
      expect((await tailSteps(db, "m1", 4, "c1")).map((s) => s.step_id)).toEqual(rows.filter((r) => r.traj_id === "c1").slice(-4).map((r) => r.step_id));
      expect((await searchSteps(db, "m1", "m1", "words 2", 3)).map((s) => s.step_id)).toEqual(["aa000029-0000-4000-8000-000000000000", "aa000028-0000-4000-8000-000000000000", "aa000026-0000-4000-8000-000000000000"]);
    } finally {
      db.close();
    }
  });
});
