// Steps: append and read, never update or delete. Everything read back is
// parsed with the schema: a row that is not a step at all is skipped and
// counted; one that is not a valid step (written before its kind's schema
// grew stricter, or synced from elsewhere) is an InvalidLine, counted and
// kept for the viewer, never handed out as a step. Rows a pull set aside
// (./aside.ts) are passed over by every read here.
import Dexie, { liveQuery } from "dexie";
import type { FoundStep } from "../../mind/ports";
import { keptLine, readLine, trajDirName, type InvalidLine, type StepLine } from "../../trajectory/headlong";
import { parseStep, type Step } from "../../trajectory/schema";
import { stepText } from "../../trajectory/summary";
import type { AsideRow, ReverieDb, StepRow } from "../db/db";
import { writeRows } from "../db/raw-write";
import { isSetAside, passingOver, setAside, withoutSetAside } from "./aside";
import { InvalidStepError } from "../../mind/state/state";

export { InvalidStepError };

export interface ParsedRows {
  /** The valid steps, in row order. */
  steps: Step[];
  /** Seq of each step, parallel to `steps`. */
  seqs: number[];
  /** Rows kept in the log that are not valid steps, with their seqs: counted here, never among `steps`. */
  invalid: { seq: number; line: InvalidLine }[];
  /** Rows that are not steps at all (not a JSON object, no type or step_id). */
  skipped: number;
}

/** Parse stored rows into valid steps, invalid lines and a count of the rest. */
export function parseRows(rows: StepRow[]): ParsedRows {
  const out: ParsedRows = { steps: [], seqs: [], invalid: [], skipped: 0 };
  for (const row of rows) {
    const r = readLine(row.json);
    if (!r.ok) out.skipped++;
    else if (!r.valid) out.invalid.push({ seq: row.seq ?? 0, line: r.invalid });
    else {
      out.steps.push(r.step);
      out.seqs.push(row.seq ?? 0);
    }
  }
  return out;
}

/** Stored rows as a viewer shows them: every kept line (valid step or invalid line) with its seq, in row order. */
export function rowLines(rows: StepRow[]): { seq: number; line: StepLine }[] {
  return rows.flatMap((row) => {
    const line = keptLine(readLine(row.json));
    return line ? [{ seq: row.seq ?? 0, line }] : [];
  });
}

export function stepRow(mindId: string, step: Step, trajId: string): StepRow | InvalidStepError {
  const parsed = parseStep(step);
  if (!parsed.ok) return new InvalidStepError(`Refusing to append an invalid step: ${parsed.error}`);
  return { step_id: step.step_id, mind_id: mindId, traj_id: trajId, type: step.type, json: JSON.stringify(step) };
}

export async function appendStep(db: ReverieDb, mindId: string, step: Step, trajId = mindId): Promise<number> {
  const row = stepRow(mindId, step, trajId);
  if (row instanceof InvalidStepError) throw row;
  const seq = await db.steps.add(row);
  return seq ?? 0;
}

/**
 * What a pull brings, inside its transaction (which holds the steps and the
 * asides tables): the server's rows, added in its order, then the copies of
 * this browser's rows it sets aside, in their own trajectory (so they read,
 * and upload, after the server's), and the records that set those rows
 * aside (./aside.ts). Nothing is deleted or changed: the set-aside rows stay
 * where they are, and every read passes over them. The server's rows' seqs,
 * in order.
 */
export async function placePulled(db: ReverieDb, rows: readonly StepRow[], aside: { copies: readonly StepRow[]; records: readonly AsideRow[] } | null): Promise<(number | undefined)[]> {
  const keys = rows.length ? await db.steps.bulkAdd([...rows], { allKeys: true }) : [];
  if (aside) {
    await db.steps.bulkAdd([...aside.copies]);
    await db.asides.bulkAdd([...aside.records]);
  }
  return keys;
}

/**
 * Append steps of one trajectory in order, in one transaction. An invalid
 * step is refused with the steps after it; the ones before it are stored (the
 * error says how many). A running mind writes through its MindState
 * (lib/store/mind-state.ts), which adds the rows derived from its steps.
 */
export async function appendSteps(db: ReverieDb, mindId: string, steps: readonly Step[], trajId = mindId): Promise<void> {
  const rows: StepRow[] = [];
  let refused: InvalidStepError | null = null;
  for (const step of steps) {
    const row = stepRow(mindId, step, trajId);
    if (row instanceof InvalidStepError) {
      refused = new InvalidStepError(row.message, rows.length);
      break;
    }
    rows.push(row);
  }
  await writeRows(db, [{ table: "steps", op: "add", rows }]);
  if (refused) throw refused;
}

const mindRange = (db: ReverieDb, mindId: string) =>
  db.steps.where("[mind_id+seq]").between([mindId, Dexie.minKey], [mindId, Dexie.maxKey]);

const trajRange = (db: ReverieDb, mindId: string, trajId: string) =>
  db.steps.where("[mind_id+traj_id+seq]").between([mindId, trajId, Dexie.minKey], [mindId, trajId, Dexie.maxKey]);

/** The newest `n` rows of a mind (all its trajectories), oldest first. */
export async function tailRows(db: ReverieDb, mindId: string, n: number): Promise<StepRow[]> {
  const rows = await passingOver(mindRange(db, mindId), await setAside(db, mindId))
    .reverse()
    .limit(n)
    .toArray();
  return rows.reverse();
}

/** The newest `n` steps of one trajectory (the mind's root by default), oldest first. */
export async function tailSteps(db: ReverieDb, mindId: string, n: number, trajId = mindId): Promise<Step[]> {
  const rows = await passingOver(trajRange(db, mindId, trajId), await setAside(db, mindId))
    .reverse()
    .limit(n)
    .toArray();
  return parseRows(rows.reverse()).steps;
}

/** Rows appended after `seq`, oldest first. */
export async function rowsAfter(db: ReverieDb, mindId: string, seq: number): Promise<StepRow[]> {
  const rows = await db.steps.where("[mind_id+seq]").between([mindId, seq + 1], [mindId, Dexie.maxKey]).toArray();
  return withoutSetAside(rows, await setAside(db, mindId));
}

/** The seq of the mind's newest row, read or set aside (where a watch of what comes next starts). */
export async function lastSeq(db: ReverieDb, mindId: string): Promise<number> {
  const last = await mindRange(db, mindId).last();
  return last?.seq ?? 0;
}

export async function countSteps(db: ReverieDb, mindId: string, trajId = mindId): Promise<number> {
  const [all, aside] = await Promise.all([trajRange(db, mindId, trajId).count(), setAside(db, mindId)]);
  return all - (aside?.inTraj(trajId) ?? 0);
}

export async function findSteps(db: ReverieDb, mindId: string, idOrPrefix: string, limit: number): Promise<FoundStep[]> {
  const prefix = idOrPrefix.toLowerCase();
  const rows = await passingOver(db.steps.where("[mind_id+step_id]").between([mindId, prefix], [mindId, `${prefix}\uffff`]), await setAside(db, mindId))
    .limit(limit)
    .toArray();
  return rows.flatMap((row) => {
    const r = readLine(row.json);
    // The mind finds steps: an invalid line is not one.
    return r.ok && r.valid ? [{ step: r.step, trajId: row.traj_id }] : [];
  });
}

/**
 * Steps of one trajectory whose type is one of `kinds`, after seq `afterSeq`,
 * oldest first, at most `limit`, each with its seq: read by the
 * [mind_id+traj_id+type+seq] index, so a kind written 100,000 steps ago costs
 * no scan. An invalid row is passed over, never counted against the limit.
 */
export async function stepsOfKind(db: ReverieDb, mindId: string, trajId: string, kinds: readonly string[], limit: number, afterSeq = 0): Promise<{ seq: number; step: Step }[]> {
  if (limit <= 0) return [];
  const aside = await setAside(db, mindId);
  const found: { seq: number; step: Step }[] = [];
  for (const kind of new Set(kinds)) {
    let taken = 0;
    await db.steps
      .where("[mind_id+traj_id+type+seq]")
      .between([mindId, trajId, kind, afterSeq], [mindId, trajId, kind, Dexie.maxKey], false, true)
      .until(() => taken >= limit)
      .each((row) => {
        if (isSetAside(aside, row.seq)) return;
        const r = readLine(row.json);
        if (!r.ok || !r.valid) return;
        taken++;
        found.push({ seq: row.seq ?? 0, step: r.step });
      });
  }
  return found.sort((a, b) => a.seq - b.seq).slice(0, limit);
}

// JSON.stringify escapes only quotes, backslashes and control characters, so
// for a query without them the raw row containing it is a necessary condition:
// a cheap filter before parsing.
const jsonEscapes = (q: string) => /["\\]/.test(q) || [...q].some((c) => c.charCodeAt(0) < 0x20);

/** Steps of one trajectory whose text (as `stepText` renders it) contains `text`, newest first. */
export async function searchSteps(db: ReverieDb, mindId: string, trajId: string, text: string, limit: number): Promise<Step[]> {
  const q = text.toLowerCase();
  if (!q) return [];
  const raw = !jsonEscapes(q);
  const out: Step[] = [];
  await passingOver(trajRange(db, mindId, trajId), await setAside(db, mindId))
    .reverse()
    .until(() => out.length >= limit)
    .each((row) => {
      if (raw && !row.json.toLowerCase().includes(q)) return;
      const r = readLine(row.json);
      if (r.ok && r.valid && stepText(r.step).toLowerCase().includes(q)) out.push(r.step);
    });
  return out;
}

/** `name` is the blob's path within its owner: `[<dir>/]blobs/<file>`. */
export async function putBlob(db: ReverieDb, mindId: string, name: string, text: string): Promise<void> {
  // Blobs are named after their step, so a second write of one name is a bug.
  await db.blobs.add({ mind_id: mindId, name, text });
}

export async function getBlob(db: ReverieDb, mindId: string, name: string): Promise<string | undefined> {
  return (await db.blobs.get([mindId, name]))?.text;
}

/** Where a trajectory's blobs live: `blobs/` for a live mind's root, `<dir>/blobs/` for the rest. */
export async function blobPrefix(db: ReverieDb, mindId: string, trajId: string): Promise<string> {
  const row = await db.trajectories.get([mindId, trajId]);
  return row?.dir ? `${row.dir}/blobs/` : "blobs/";
}

/** Register a child trajectory of a mind: it lives in its own folder nested in its parent's (Headlong's layout), which is where export puts it. A parent the mind does not have is refused (its root always counts as one). */
export async function forkTrajectory(db: ReverieDb, mindId: string, parentTrajId: string, child: { trajId: string; name: string }): Promise<void> {
  const parent = await db.trajectories.get([mindId, parentTrajId]);
  if (!parent && parentTrajId !== mindId) throw new Error(`There is no trajectory ${parentTrajId} in mind ${mindId}.`);
  const parentDir = parent?.dir || trajDirName(parentTrajId, parent?.name ?? "trajectory");
  await db.trajectories.add({
    mind_id: mindId,
    traj_id: child.trajId,
    name: child.name,
    dir: `${parentDir}/${trajDirName(child.trajId, child.name)}`,
    parent_traj: parentTrajId,
  });
}

/**
 * Call `onRows` with the rows appended after `afterSeq`, by this context or
 * any other tab or worker (Dexie broadcasts changes between them). `after`
 * reads the rows past a seq. With `everyMs`, rows are read and handed over at
 * most that often: a mind on a fast model appends a batch of steps every few
 * milliseconds, and each one re-ran the read in every watching page, on the
 * cores the mind thinks on. Nothing is missed in the pause: the next read
 * takes every row past the last one seen. Returns the unsubscribe function.
 */
export function watchRows(afterSeq: number, after: (seq: number) => Promise<StepRow[]>, onRows: (rows: StepRow[]) => void, options: { everyMs?: number } = {}): () => void {
  const everyMs = options.everyMs ?? 0;
  let seen = afterSeq;
  let stopped = false;
  let pause: ReturnType<typeof setTimeout> | null = null;
  let subscription: { unsubscribe(): void } | null = null;
  const subscribe = () => {
    pause = null;
    if (stopped) return;
    subscription = liveQuery(() => after(seen)).subscribe({
      next: (rows) => {
        if (rows.length === 0) return;
        seen = Math.max(seen, ...rows.map((r) => r.seq ?? 0));
        if (everyMs > 0) {
          subscription?.unsubscribe();
          subscription = null;
          pause = setTimeout(subscribe, everyMs);
        }
        onRows(rows);
      },
      // A failed query is retried by the next change; callers keep their own schedule meanwhile.
      error: () => undefined,
    });
  };
  subscribe();
  return () => {
    stopped = true;
    if (pause) clearTimeout(pause);
    subscription?.unsubscribe();
  };
}

/** The step `id` of the mind once it is written (by its worker, which made a change a page asked for), or null when `signal` ends the wait first. */
export function stepWritten(db: ReverieDb, mindId: string, id: string, signal: AbortSignal): Promise<Step | null> {
  return new Promise((resolve) => {
    const sub = liveQuery(() => db.steps.get({ mind_id: mindId, step_id: id.toLowerCase() })).subscribe({
      next: (row) => {
        if (!row) return;
        end();
        resolve(JSON.parse(row.json) as Step);
      },
      error: () => undefined,
    });
    const end = () => {
      sub.unsubscribe();
      signal.removeEventListener("abort", stop);
    };
    const stop = () => {
      end();
      resolve(null);
    };
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
}
