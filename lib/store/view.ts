// Reads for the trajectory viewer: a light index of every step (in pages, so
// the newest show first), step bodies on demand, blobs on demand, search.
import Dexie from "dexie";
import { entryOf, type IndexEntry } from "../trajectory/rows";
import type { Step } from "../trajectory/schema";
import type { ReverieDb, StepRow, TrajectoryRow } from "./db";
import { parseRows } from "./steps";

const range = (db: ReverieDb, owner: string, traj: string, from: unknown, to: unknown) =>
  db.steps.where("[mind_id+traj_id+seq]").between([owner, traj, from], [owner, traj, to], true, true);

function toEntries(rows: StepRow[]): IndexEntry[] {
  const parsed = parseRows(rows);
  return parsed.steps.map((s, i) => entryOf(parsed.seqs[i] ?? 0, s));
}

/** The newest `n` entries of a trajectory, oldest first. */
export async function newestEntries(db: ReverieDb, owner: string, traj: string, n: number): Promise<IndexEntry[]> {
  const rows = await range(db, owner, traj, Dexie.minKey, Dexie.maxKey).reverse().limit(n).toArray();
  return toEntries(rows.reverse());
}

/** Entries with seq in [from, to), at most `limit`, oldest first. */
export async function entriesBetween(db: ReverieDb, owner: string, traj: string, from: number, to: number, limit: number): Promise<IndexEntry[]> {
  const rows = await db.steps
    .where("[mind_id+traj_id+seq]")
    .between([owner, traj, from], [owner, traj, to], true, false)
    .limit(limit)
    .toArray();
  return toEntries(rows);
}

/** Entries appended after `seq` (for a live mind). */
export async function entriesAfter(db: ReverieDb, owner: string, traj: string, seq: number): Promise<IndexEntry[]> {
  return toEntries(await range(db, owner, traj, seq + 1, Dexie.maxKey).toArray());
}

export async function stepBodies(db: ReverieDb, seqs: number[]): Promise<Map<number, Step>> {
  const rows = (await db.steps.bulkGet(seqs)).filter((r) => r !== undefined);
  const parsed = parseRows(rows);
  return new Map(parsed.steps.map((s, i) => [parsed.seqs[i] ?? 0, s]));
}

export function trajectoriesOf(db: ReverieDb, owner: string): Promise<TrajectoryRow[]> {
  return db.trajectories.where("mind_id").equals(owner).toArray();
}

/** Where a step lives (for deep links): its trajectory and seq. */
export async function locateStep(db: ReverieDb, owner: string, stepId: string): Promise<{ seq: number; traj: string } | null> {
  const row = await db.steps.get({ mind_id: owner, step_id: stepId.toLowerCase() });
  return row?.seq ? { seq: row.seq, traj: row.traj_id } : null;
}

/** The blob a step field points to (`blobs/<file>`), relative to its trajectory's folder. */
export async function blobText(db: ReverieDb, owner: string, traj: TrajectoryRow | undefined, ref: string): Promise<string | undefined> {
  const key = traj?.dir ? `${traj.dir}/${ref}` : ref;
  return (await db.blobs.get([owner, key]))?.text;
}

export interface SearchHit {
  seq: number;
  id: string;
  traj: string;
}

/**
 * Steps whose JSON (or whose blob) contains `query`, case-insensitively, in
 * order. Scans in pages so a large trajectory stays responsive and can be cancelled.
 */
export async function searchSteps(
  db: ReverieDb,
  owner: string,
  query: string,
  opts: { signal?: AbortSignal; limit?: number } = {},
): Promise<{ hits: SearchHit[]; truncated: boolean }> {
  const q = query.toLowerCase();
  const limit = opts.limit ?? 5000;
  const hits: SearchHit[] = [];
  // Blobs first: which blob files match, so steps pointing at them count as hits.
  const blobHits = new Set<string>();
  await db.blobs
    .where("[mind_id+name]")
    .between([owner, Dexie.minKey], [owner, Dexie.maxKey])
    .each((b) => {
      if (b.text.toLowerCase().includes(q)) blobHits.add(b.name.split("/").pop() ?? b.name);
    });
  const refs = [...blobHits].map((f) => `blobs/${f}`);
  let from = 0;
  const PAGE = 5000;
  for (;;) {
    opts.signal?.throwIfAborted();
    const rows = await db.steps
      .where("[mind_id+seq]")
      .between([owner, from], [owner, Dexie.maxKey], false, true)
      .limit(PAGE)
      .toArray();
    if (rows.length === 0) break;
    for (const r of rows) {
      const json = r.json.toLowerCase();
      if (json.includes(q) || (refs.length > 0 && refs.some((ref) => r.json.includes(ref)))) {
        hits.push({ seq: r.seq ?? 0, id: r.step_id, traj: r.traj_id });
        if (hits.length >= limit) return { hits, truncated: true };
      }
    }
    from = rows[rows.length - 1]?.seq ?? from;
    if (rows.length < PAGE) break;
  }
  return { hits, truncated: false };
}
