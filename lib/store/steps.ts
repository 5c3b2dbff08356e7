// Steps: append and read, never update or delete. Everything read back is
// parsed with the schema; a row that does not parse is skipped and counted.
import Dexie, { liveQuery } from "dexie";
import type { StepLog } from "../mind/ports";
import { readLine } from "../trajectory/headlong";
import { parseStep, type Step } from "../trajectory/schema";
import type { ReverieDb, StepRow } from "./db";

export class InvalidStepError extends Error {}

export interface ParsedRows {
  steps: Step[];
  /** Seq of each step, parallel to `steps`. */
  seqs: number[];
  skipped: number;
}

/** Parse stored rows. Imported steps that do not match their kind's schema are kept as-is (see readLine). */
export function parseRows(rows: StepRow[]): ParsedRows {
  const out: ParsedRows = { steps: [], seqs: [], skipped: 0 };
  for (const row of rows) {
    const r = readLine(row.json);
    if (!r.ok) {
      out.skipped++;
      continue;
    }
    out.steps.push(r.step);
    out.seqs.push(row.seq ?? 0);
  }
  return out;
}

export async function appendStep(db: ReverieDb, mindId: string, step: Step, trajId = mindId): Promise<number> {
  const parsed = parseStep(step);
  if (!parsed.ok) throw new InvalidStepError(`Refusing to append an invalid step: ${parsed.error}`);
  const seq = await db.steps.add({ step_id: step.step_id, mind_id: mindId, traj_id: trajId, type: step.type, json: JSON.stringify(step) });
  return seq ?? 0;
}

const mindRange = (db: ReverieDb, mindId: string) =>
  db.steps.where("[mind_id+seq]").between([mindId, Dexie.minKey], [mindId, Dexie.maxKey]);

/** The newest `n` rows of a mind, oldest first. */
export async function tailRows(db: ReverieDb, mindId: string, n: number): Promise<StepRow[]> {
  const rows = await mindRange(db, mindId).reverse().limit(n).toArray();
  return rows.reverse();
}

export async function tailSteps(db: ReverieDb, mindId: string, n: number): Promise<Step[]> {
  return parseRows(await tailRows(db, mindId, n)).steps;
}

/** Rows appended after `seq`, oldest first. */
export function rowsAfter(db: ReverieDb, mindId: string, seq: number): Promise<StepRow[]> {
  return db.steps.where("[mind_id+seq]").between([mindId, seq + 1], [mindId, Dexie.maxKey]).toArray();
}

export async function lastSeq(db: ReverieDb, mindId: string): Promise<number> {
  const last = await mindRange(db, mindId).last();
  return last?.seq ?? 0;
}

export function countSteps(db: ReverieDb, mindId: string): Promise<number> {
  return mindRange(db, mindId).count();
}

export async function findSteps(db: ReverieDb, mindId: string, idOrPrefix: string, limit: number): Promise<Step[]> {
  const prefix = idOrPrefix.toLowerCase();
  const rows = await db.steps
    .where("[mind_id+step_id]")
    .between([mindId, prefix], [mindId, `${prefix}\uffff`])
    .limit(limit)
    .toArray();
  return parseRows(rows).steps;
}

/** `name` is the blob's path within its owner: `[<dir>/]blobs/<file>`. */
export async function putBlob(db: ReverieDb, mindId: string, name: string, text: string): Promise<void> {
  // Blobs are named after their step, so a second write of one name is a bug.
  await db.blobs.add({ mind_id: mindId, name, text });
}

export async function getBlob(db: ReverieDb, mindId: string, name: string): Promise<string | undefined> {
  return (await db.blobs.get([mindId, name]))?.text;
}

/** A mind's trajectory as the mind loop sees it. */
export function mindLog(db: ReverieDb, mindId: string): StepLog {
  return {
    append: async (step) => {
      await appendStep(db, mindId, step);
    },
    // The mind's own trajectory is the root (dir ""), so its blobs are `blobs/<file>`.
    putBlob: (name, text) => putBlob(db, mindId, `blobs/${name}`, text),
    tail: (n) => tailSteps(db, mindId, n),
    count: () => countSteps(db, mindId),
    find: (idOrPrefix, limit) => findSteps(db, mindId, idOrPrefix, limit),
  };
}

/**
 * Call `onRows` with the rows appended after `afterSeq`, by this context or
 * any other tab or worker (Dexie broadcasts changes between them). `after`
 * reads the rows past a seq. Returns the unsubscribe function.
 */
export function watchRows(afterSeq: number, after: (seq: number) => Promise<StepRow[]>, onRows: (rows: StepRow[]) => void): () => void {
  let seen = afterSeq;
  const subscription = liveQuery(() => after(seen)).subscribe({
    next: (rows) => {
      if (rows.length === 0) return;
      seen = Math.max(seen, ...rows.map((r) => r.seq ?? 0));
      onRows(rows);
    },
    // A failed query is retried by the next change; callers keep their own schedule meanwhile.
    error: () => undefined,
  });
  return () => subscription.unsubscribe();
}

/** Every step appended to a mind (any of its trajectories) after `afterSeq`. */
export function watchSteps(db: ReverieDb, mindId: string, afterSeq: number, onSteps: (steps: Step[]) => void): () => void {
  return watchRows(afterSeq, (seq) => rowsAfter(db, mindId, seq), (rows) => onSteps(parseRows(rows).steps));
}
