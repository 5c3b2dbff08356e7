// The usage table: one row per model call, keyed by the step that carries its
// usage. Derived data beside the log (rebuildable from the steps); it answers
// what a mind spent this hour and today, for its caps and its page.
import { decorateLog, type BatchingLog } from "../mind/step-log";
import Dexie from "dexie";
import { periods } from "../mind/budget";
import { InvalidStepError } from "./steps";
import type { Step, StepUsage } from "../trajectory/schema";
import type { ReverieDb, UsageRow } from "./db";

const usageOf = (step: Step): StepUsage | undefined => {
  const u = (step as { usage?: unknown }).usage;
  return u && typeof u === "object" && typeof (u as StepUsage).input_tokens === "number" ? (u as StepUsage) : undefined;
};

/** The usage row for a step that records a model call, or null for any other step. */
export function usageRow(mindId: string, step: Step, trajId: string): UsageRow | null {
  const u = usageOf(step);
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

/**
 * A mind's log (and every child forked from it) that also records each model
 * call's usage as its step is appended, so the next call's budget check sees it.
 */
export function recordingUsage(db: ReverieDb, mindId: string, log: BatchingLog): BatchingLog {
  return decorateLog(log, {
    async append(step) {
      const row = usageRow(mindId, step, log.trajId);
      if (!row) return log.append(step);
      // The step and its usage row in one transaction: each is a round trip to the store, and an iteration has several.
      await db.transaction("rw", db.steps, db.usage, async () => {
        await log.append(step);
        await db.usage.put(row);
      });
    },
    // Steps and their usage rows, all in one transaction; an invalid step is refused with those after it, as its log does.
    async appendAll(steps) {
      const usageOf = (upTo: number) => steps.slice(0, upTo).flatMap((s) => usageRow(mindId, s, log.trajId) ?? []);
      if (usageOf(steps.length).length === 0) return writeAll(log, steps);
      let refused: InvalidStepError | null = null;
      await db.transaction("rw", db.steps, db.usage, async () => {
        let stored = steps.length;
        try {
          await writeAll(log, steps);
        } catch (e) {
          if (!(e instanceof InvalidStepError)) throw e;
          refused = e;
          stored = e.stored;
        }
        const rows = usageOf(stored);
        if (rows.length) await db.usage.bulkPut(rows);
      });
      if (refused) throw refused;
    },
    fork: async (child) => recordingUsage(db, mindId, await log.fork(child)),
  });
}

/** Every step through the log's batch writer, or one by one (an error then says how many were stored before it). */
async function writeAll(log: BatchingLog, steps: readonly Step[]): Promise<void> {
  if (log.appendAll) return log.appendAll(steps);
  for (let i = 0; i < steps.length; i++) {
    try {
      await log.append(steps[i] as Step);
    } catch (e) {
      throw e instanceof InvalidStepError ? new InvalidStepError(e.message, i) : e;
    }
  }
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
