// lib/store/steps/timeline.ts: the timeline's steps for a window, read newest first
// by the [mind_id+seq] index back to the window's start, only the kinds it draws.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ReverieDb } from "@/lib/store/db/db";
import { readTimeline } from "@/lib/store/steps/timeline";
import { formatTs, type Step } from "@/lib/trajectory/schema";
import { openTestDb } from "../../helpers/db";

const MIND = "00000000-0000-4000-8000-00000000bbbb";
const T0 = Date.parse("2026-03-02T10:00:00.000Z");

describe("readTimeline", () => {
  let db: ReverieDb;
  beforeEach(async () => {
    db = await openTestDb("timeline-store");
  });
  afterEach(async () => {
    await db.delete();
  });

  it("reads the window's steps back to its start (across pages), skips kinds it does not draw, and says the last seq it looked at", async () => {
    await db.trajectories.add({ mind_id: MIND, traj_id: MIND, name: "Mo", dir: "" });
    // 5000 wakes, one a second: more than two pages.
    const steps: Step[] = Array.from({ length: 5000 }, (_, i): Step => ({ type: "wake", step_id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, ts: formatTs(T0 + i * 1000), reason: "scheduled", level: 0, delay_s: 1, source: "monolith" }));
    // Steps the timeline does not draw are skipped by their row's type.
    steps.splice(2500, 0, { type: "shell-output", step_id: "00000000-0000-4000-8000-0000000fffff", ts: formatTs(T0 + 2500 * 1000), stdout: "", stderr: "", exit: 0, exec_s: 0, timed_out: false });
    // Rows as the step log stores them, in one request (5000 appends one by one would be the slow part of this test).
    await db.steps.bulkAdd(steps.map((s) => ({ step_id: s.step_id, mind_id: MIND, traj_id: MIND, type: s.type, json: JSON.stringify(s) })));
    const last = await readTimeline(db, MIND, T0 + 4990 * 1000);
    expect(last.steps.map((s) => s.ts)).toEqual(Array.from({ length: 10 }, (_, i) => formatTs(T0 + (4990 + i) * 1000)));
    expect(last.lastSeq).toBe((await db.steps.orderBy("seq").last())?.seq);
    const all = await readTimeline(db, MIND, null);
    expect(all.steps).toHaveLength(5000);
    expect(all.steps.every((s) => s.type === "wake")).toBe(true);
    const mid = await readTimeline(db, MIND, T0 + 1000 * 1000);
    expect(mid.steps[0]?.ts).toBe(formatTs(T0 + 1000 * 1000));
    expect(mid.steps).toHaveLength(4000);
  });
});
