// lib/trajectory/replay-source.ts over a real local source (a mind's rows in
// fake-indexeddb): the replay shows the trajectory up to its cursor, its watch
// hands over each step as the cursor passes it, and moving back makes a new
// source. lib/trajectory/replay-cursor.ts: waits at each speed, long silences cut.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ReverieDb } from "@/lib/store/db/db";
import { loadReplay, loadTimelineSteps, ReplayCursor } from "@/lib/trajectory/replay-source";
import { appendSteps } from "@/lib/store/steps/steps";
import { rowSource } from "@/lib/store/view/view";
import { MAX_WAIT_MS, nextSpeed, positionText, shownThrough, STEP_BEAT_MS, waitBefore } from "@/lib/trajectory/replay-cursor";
import type { IndexEntry } from "@/lib/trajectory/rows";
import { formatTs, type Step } from "@/lib/trajectory/schema";
import { openTestDb } from "../helpers/db";

const MIND = "00000000-0000-4000-8000-00000000cccc";
const T0 = Date.parse("2026-03-02T10:00:00.000Z");
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
// Ten steps: a wake then a thought, five times, 10 s apart, with an hour's silence before the last pair.
const at = (i: number) => T0 + i * 10_000 + (i >= 8 ? 3_600_000 : 0);
const STEPS: Step[] = Array.from({ length: 10 }, (_, i): Step =>
  i % 2 === 0
    ? { type: "wake", step_id: id(i), ts: formatTs(at(i)), reason: "scheduled", level: 0, delay_s: 0, source: "monolith" }
    : { type: "thought", step_id: id(i), ts: formatTs(at(i)), content: `thought ${i}`, source: "monolith" },
);

const nextTick = () => new Promise((r) => setTimeout(r, 0));

describe("a replay over a mind's rows", () => {
  let db: ReverieDb;
  beforeEach(async () => {
    db = await openTestDb("replay-source");
    await db.trajectories.add({ mind_id: MIND, traj_id: MIND, name: "Rae", dir: "" });
    await appendSteps(db, MIND, STEPS);
  });
  afterEach(async () => {
    await db.delete();
  });

  it("shows the steps up to the cursor, and its watch hands over each step as the cursor passes it", async () => {
    const inner = rowSource(db, MIND);
    const load = await loadReplay(inner);
    expect(load.traj).toBe(MIND);
    expect(load.entries.map((e) => e.id)).toEqual(STEPS.map((s) => s.step_id));
    const cursor = new ReplayCursor(inner, load, 3);
    const source = cursor.source;
    expect((await source.newest(MIND, 150)).map((e) => e.id)).toEqual([id(0), id(1), id(2)]);
    expect((await source.newest(MIND, 2)).map((e) => e.id)).toEqual([id(1), id(2)]);
    const older: IndexEntry[] = [];
    await source.older(MIND, (await source.newest(MIND, 1))[0]?.seq ?? 0, (p) => older.push(...p));
    expect(older.map((e) => e.id)).toEqual([id(0), id(1)]);

    const seen: string[][] = [];
    const stop = source.watch?.(MIND, load.entries[2]?.seq ?? 0, (fresh) => seen.push(fresh.map((e) => e.id)));
    expect(cursor.moveTo(4)).toBe(false);
    await nextTick();
    expect(cursor.moveTo(5)).toBe(false);
    await nextTick();
    expect(seen).toEqual([[id(3)], [id(4)]]);
    // Search finds only what the cursor has passed.
    expect((await source.search("thought")).hits.map((h) => h.id)).toEqual([id(1), id(3)]);
    stop?.();
    cursor.moveTo(6);
    await nextTick();
    expect(seen).toHaveLength(2);
  });

  it("a watch opened after the cursor moved on gets what it missed at once", async () => {
    const inner = rowSource(db, MIND);
    const load = await loadReplay(inner);
    const cursor = new ReplayCursor(inner, load, 2);
    const first = await cursor.source.newest(MIND, 150);
    cursor.moveTo(4);
    const seen: string[] = [];
    cursor.source.watch?.(MIND, first[first.length - 1]?.seq ?? 0, (fresh) => seen.push(...fresh.map((e) => e.id)));
    await nextTick();
    expect(seen).toEqual([id(2), id(3)]);
  });

  it("moving back makes a new source that shows the earlier cut; the old one's watch hears nothing more", async () => {
    const inner = rowSource(db, MIND);
    const load = await loadReplay(inner);
    const cursor = new ReplayCursor(inner, load, 6);
    const before = cursor.source;
    const seen: string[] = [];
    before.watch?.(MIND, load.entries[5]?.seq ?? 0, (fresh) => seen.push(...fresh.map((e) => e.id)));
    expect(cursor.moveTo(2)).toBe(true);
    expect(cursor.source).not.toBe(before);
    expect((await cursor.source.newest(MIND, 150)).map((e) => e.id)).toEqual([id(0), id(1)]);
    cursor.moveTo(8);
    await nextTick();
    expect(seen).toEqual([]);
    // The cursor stays within the trajectory.
    cursor.moveTo(99);
    expect(cursor.shown).toBe(10);
    cursor.moveTo(-4);
    expect(cursor.shown).toBe(0);
    expect(await cursor.source.newest(MIND, 150)).toEqual([]);
  });

  it("reads the full steps of the kinds the timeline draws", async () => {
    const inner = rowSource(db, MIND);
    const load = await loadReplay(inner);
    const steps = await loadTimelineSteps(inner, load.entries);
    expect(steps.map((s) => s.step.step_id)).toEqual(STEPS.map((s) => s.step_id));
    expect(steps[0]?.step).toMatchObject({ type: "wake", reason: "scheduled" });
  });
});

describe("replay waits", () => {
  const entries: IndexEntry[] = STEPS.map((s, i) => ({ seq: i + 1, id: s.step_id, type: s.type, ts: s.ts, preview: "" }));

  it("waits the real gap divided by the speed, and cuts an hour's silence to MAX_WAIT_MS", () => {
    expect(waitBefore(entries, 1, "1")).toEqual({ ms: MAX_WAIT_MS, gapMs: 10_000, compressed: true });
    expect(waitBefore(entries, 1, "10")).toEqual({ ms: 1000, gapMs: 10_000, compressed: false });
    expect(waitBefore(entries, 1, "1000")).toEqual({ ms: 10, gapMs: 10_000, compressed: false });
    // Before step 9: an hour and 10 s of silence. At 1000× that is 3.61 s, still cut.
    expect(waitBefore(entries, 8, "1000")).toEqual({ ms: MAX_WAIT_MS, gapMs: 3_610_000, compressed: true });
    expect(waitBefore(entries, 8, "step")).toEqual({ ms: STEP_BEAT_MS, gapMs: 3_610_000, compressed: false });
    expect(waitBefore(entries, 0, "1").ms).toBe(0);
  });

  it("says where the cursor is, and steps through the speeds", () => {
    expect(positionText(entries, 3)).toBe("step 3 of 10 · 2026-03-02 10:00:20 UTC");
    expect(positionText(entries, 0)).toBe("step 0 of 10 · before the first step");
    expect(shownThrough(entries, id(4))).toBe(5);
    expect(shownThrough(entries, "nope")).toBe(0);
    expect([nextSpeed("1", 1), nextSpeed("1000", 1), nextSpeed("1", -1), nextSpeed("step", -1)]).toEqual(["10", "1000", "step", "step"]);
  });
});
