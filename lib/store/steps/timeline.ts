// Reads for a mind's dashboard: the steps its timeline draws, newest first
// back to the window's start (by the [mind_id+seq] index, so a long life is
// not read whole for its last hour), and its usage rows since a time.
import type { ReverieDb, StepRow, UsageRow } from "../db/db";
import { parseRows } from "./steps";
import { setAside, withoutSetAside } from "./aside";
import { TIMELINE_KINDS } from "../../trajectory/timeline";
import type { Step } from "../../trajectory/schema";

const PAGE = 2000;

export interface TimelineRead {
  /** Steps of the timeline's kinds, oldest first. */
  steps: Step[];
  /** The newest seq looked at (new steps come after it). */
  lastSeq: number;
}

/** Only the kinds the timeline draws are parsed; the rest are skipped by their row's type. */
export function timelineStepsOf(rows: readonly StepRow[]): Step[] {
  return parseRows(rows.filter((r) => TIMELINE_KINDS.has(r.type))).steps;
}

/**
 * The mind's timeline steps from `sinceMs` on (null: its whole life), read
 * backwards a page at a time until a step is older than the window.
 */
export async function readTimeline(db: ReverieDb, mindId: string, sinceMs: number | null): Promise<TimelineRead> {
  const pages: Step[][] = [];
  let before = Number.MAX_SAFE_INTEGER;
  let lastSeq = 0;
  const aside = await setAside(db, mindId);
  for (;;) {
    const rows = await db.steps.where("[mind_id+seq]").between([mindId, 0], [mindId, before], true, false).reverse().limit(PAGE).toArray();
    if (rows.length === 0) break;
    lastSeq ||= rows[0]?.seq ?? 0;
    const oldestFirst = rows.reverse();
    const steps = timelineStepsOf(withoutSetAside(oldestFirst, aside));
    const older = sinceMs === null ? -1 : steps.findIndex((s) => Date.parse(s.ts) < sinceMs);
    // Rows are in append order, so once one is older than the window every earlier one is too.
    pages.unshift(older < 0 ? steps : steps.slice(lastOlder(steps, sinceMs ?? 0) + 1));
    if (older >= 0 || rows.length < PAGE) break;
    before = oldestFirst[0]?.seq ?? 0;
  }
  return { steps: pages.flat(), lastSeq };
}

function lastOlder(steps: readonly Step[], sinceMs: number): number {
  for (let i = steps.length - 1; i >= 0; i--) if (Date.parse((steps[i] as Step).ts) < sinceMs) return i;
  return -1;
}

/** A mind's usage rows from `sinceMs` on (and before `beforeMs`), in the table's [mind_id+ts] order (the order spendSummary sums them in). */
export function usageRowsSince(db: ReverieDb, mindId: string, sinceMs: number, beforeMs = Number.MAX_SAFE_INTEGER): Promise<UsageRow[]> {
  return db.usage.where("[mind_id+ts]").between([mindId, sinceMs], [mindId, beforeMs], true, false).toArray();
}
