// The usage table: one row per model call, keyed by the step that carries its
// usage. Derived data beside the log (rebuildable from the steps); it answers
// what a mind spent this hour and today, for its caps and its page.
import Dexie from "dexie";
import { periods } from "../../mind/budget/budget";
import { stepUsage, type Step } from "../../trajectory/schema";
import type { ReverieDb, UsageRow } from "../db/db";

/** The usage row for a step that records a model call, or null for any other step. */
export function usageRow(mindId: string, step: Step, trajId: string): UsageRow | null {
  const u = stepUsage(step);
  if (!u) return null;
  const row: UsageRow = {
    mind_id: mindId,
    step_id: step.step_id,
    traj_id: trajId,
    ts: Date.parse(step.ts),
    usd: u.usd ?? 0,
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
  };
  if (u.cached_input_tokens !== undefined) row.cached_input_tokens = u.cached_input_tokens;
  if (u.reasoning_tokens !== undefined) row.reasoning_tokens = u.reasoning_tokens;
  if (u.model !== undefined) row.model = u.model;
  return row;
}

/** A mind's calls from `sinceMs` on: when, and what each cost. */
export async function usageSince(db: ReverieDb, mindId: string, sinceMs: number): Promise<{ ts: number; usd: number }[]> {
  const rows = await db.usage.where("[mind_id+ts]").between([mindId, sinceMs], [mindId, Dexie.maxKey]).toArray();
  return rows.map((r) => ({ ts: r.ts, usd: r.usd }));
}

export interface SpendSummary {
  /** This UTC hour. */
  hourUsd: number;
  /** This UTC day. */
  dayUsd: number;
  /** USD per hour: what the last 60 minutes cost. */
  burnUsdPerHour: number;
}

const HOUR_MS = 3_600_000;

export async function spendSummary(db: ReverieDb, mindId: string, now: number): Promise<SpendSummary> {
  const p = periods(now);
  const burnStart = now - HOUR_MS;
  // One read of the rows since the earliest of the three starts (getAll, not a cursor), three sums.
  const rows = await usageSince(db, mindId, Math.min(p.dayStart, burnStart));
  const out = { hourUsd: 0, dayUsd: 0, burnUsdPerHour: 0 };
  for (const r of rows) {
    if (r.ts >= p.hourStart) out.hourUsd += r.usd;
    if (r.ts >= p.dayStart) out.dayUsd += r.usd;
    if (r.ts >= burnStart) out.burnUsdPerHour += r.usd;
  }
  return out;
}
