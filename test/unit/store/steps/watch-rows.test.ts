// lib/store/steps/steps.ts's watchRows: every row appended after the start is
// handed over once, in order; with `everyMs`, read at most that often (the
// rows appended in the pause come together after it, none missed).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ReverieDb, StepRow } from "@/lib/store/db/db";
import { appendStep, lastSeq, rowsAfter, watchRows } from "@/lib/store/steps/steps";
import { openTestDb } from "../../helpers/db";
import { stepMaker } from "../../helpers/steps";

const MIND = "00000000-0000-4000-8000-000000000001";
/** A little while for IndexedDB (fake-indexeddb runs on setImmediate) and Dexie's change propagation. */
const settle = () => new Promise((r) => setTimeout(r, 100));

describe("watchRows", () => {
  let db: ReverieDb;
  const mk = stepMaker();
  const add = () => appendStep(db, MIND, mk("thought", { content: "t" }));

  beforeEach(async () => {
    db = await openTestDb("watch-rows");
    await add();
  });
  afterEach(() => {
    db.close();
  });

  it("hands over each row appended after the start, once, in order", async () => {
    const got: StepRow[][] = [];
    const stop = watchRows(await lastSeq(db, MIND), (seq) => rowsAfter(db, MIND, seq), (rows) => got.push(rows));
    const seqs: number[] = [];
    for (let i = 0; i < 4; i++) {
      seqs.push(await add());
      await vi.waitFor(() => expect(got.length).toBe(i + 1));
    }
    stop();
    expect(got.flat().map((r) => r.seq)).toEqual(seqs);
  });

  it("with everyMs: reads again only after the pause, and then takes every row appended in it", async () => {
    const got: StepRow[][] = [];
    const stop = watchRows(await lastSeq(db, MIND), (seq) => rowsAfter(db, MIND, seq), (rows) => got.push(rows), { everyMs: 1500 });
    const first = await add();
    await vi.waitFor(() => expect(got.length).toBe(1));
    const more: number[] = [];
    for (let i = 0; i < 5; i++) more.push(await add());
    await settle();
    // Within the pause: not read yet.
    expect(got.length).toBe(1);
    await vi.waitFor(() => expect(got.length).toBe(2), { timeout: 5000 });
    expect(got.map((b) => b.map((r) => r.seq))).toEqual([[first], more]);
    // Stopped (in the next pause): nothing more.
    stop();
    await add();
    await new Promise((r) => setTimeout(r, 2000));
    expect(got.length).toBe(2);
  });
});
