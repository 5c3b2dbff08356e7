// lib/store/steps/watch-others.ts: the mind's worker hears what others append (a
// person's message, written through Dexie as the page writes it), each row
// once and in order; its own batch writes (lib/store/db/raw-write) make it read
// nothing, and still it keeps its place past them, so a later read brings
// only what came after.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ReverieDb, StepRow } from "@/lib/store/db/db";
import * as steps from "@/lib/store/steps/steps";
import { appendStep, appendSteps, lastSeq } from "@/lib/store/steps/steps";
import { watchOthers } from "@/lib/store/steps/watch-others";
import { openTestDb } from "../../helpers/db";
import { stepMaker } from "../../helpers/steps";

const MIND = "00000000-0000-4000-8000-000000000001";
const OTHER = "00000000-0000-4000-8000-000000000002";
const settle = () => new Promise((r) => setTimeout(r, 100));

describe("watchOthers", () => {
  let db: ReverieDb;
  const mk = stepMaker();
  const theirs = (mind = MIND) => appendStep(db, mind, mk("message", { from: "you", to: "Ada", content: "hi" }));
  const mine = (n: number) => appendSteps(db, MIND, Array.from({ length: n }, () => mk("thought", { content: "t" })));

  beforeEach(async () => {
    db = await openTestDb("watch-others");
    await mine(1);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    db.close();
  });

  it("hands over others' rows once, in order; the mind's own batches cause no read, and a read after them brings only what came after", async () => {
    const reads = vi.spyOn(steps, "rowsAfter");
    const got: StepRow[][] = [];
    const stop = watchOthers(db, MIND, await lastSeq(db, MIND), (rows) => got.push(rows));
    await settle();
    reads.mockClear();
    for (let i = 0; i < 5; i++) await mine(2);
    await settle();
    expect(reads).not.toHaveBeenCalled();
    expect(got).toEqual([]);

    const first = await theirs();
    await vi.waitFor(() => expect(got.length).toBe(1));
    expect(got[0]?.map((r) => r.seq)).toEqual([first]);
    // The spy does see the watch's reads: the silence above was real.
    expect(reads).toHaveBeenCalled();
    // Own rows after theirs: still no read; then theirs again, and only it comes.
    await mine(3);
    const second = await theirs();
    await vi.waitFor(() => expect(got.length).toBe(2));
    expect(got[1]?.map((r) => r.seq)).toEqual([second]);
    stop();
  });

  it("when others' rows lie between the place and a batch of its own, it reads, and misses none", async () => {
    const got: StepRow[][] = [];
    const stop = watchOthers(db, MIND, await lastSeq(db, MIND), (rows) => got.push(rows), { everyMs: 200 });
    // Another mind's rows take seqs (they are not this mind's to hand over); a message to this mind lands too.
    await theirs(OTHER);
    const message = await theirs();
    await mine(2);
    await vi.waitFor(() => expect(got.flat().map((r) => r.seq)).toContain(message));
    await mine(2);
    const later = await theirs();
    await vi.waitFor(() => expect(got.flat().map((r) => r.seq)).toContain(later));
    const seqs = got.flat().map((r) => r.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    stop();
  });

  it("reads at most every everyMs, and the rows of the pause come together after it", async () => {
    const got: StepRow[][] = [];
    const stop = watchOthers(db, MIND, await lastSeq(db, MIND), (rows) => got.push(rows), { everyMs: 1500 });
    // Its first read (at the start) counts: the next comes a pause after it.
    await settle();
    const first = await theirs();
    await vi.waitFor(() => expect(got.length).toBe(1), { timeout: 5000 });
    const more: number[] = [];
    for (let i = 0; i < 3; i++) more.push(await theirs());
    await settle();
    expect(got.length).toBe(1);
    await vi.waitFor(() => expect(got.length).toBe(2), { timeout: 5000 });
    expect(got.map((b) => b.map((r) => r.seq))).toEqual([[first], more]);
    stop();
  });
});
