// Import into IndexedDB. Steps are written under a new owner id as they
// stream in; the owner's record is written last, as the commit. Until then
// the import is invisible, and a cancelled, failed or abandoned import (a
// closed tab) is swept away: nothing half-imported is left behind.
import { importArchive, type ImportSink, type StepBatchItem } from "../../import/importer";
import { checkSummary, type ImportStats } from "../../import/stats";
import { formatTs } from "../../trajectory/schema";
import type { ImportedArchive } from "../minds/archives";
import type { PageRow, ReverieDb, TierRow } from "../db/db";
import { readTierLines, TIERS_FILE } from "../../context/rollups";
import { putResultsText } from "../minds/results";
import Dexie from "dexie";
import { systemIds } from "../../system/system";

export class ImportError extends Error {}

export interface ImportResult {
  id: string;
  stats: ImportStats;
}

/** Held while an import runs, so another tab's sweep leaves it alone. */
export function importLockName(id: string): string {
  return `reverie-import-${id}`;
}

export async function importIntoDb(
  db: ReverieDb,
  file: Blob,
  opts: { name: string; signal?: AbortSignal; onProgress?: (bytesRead: number, totalBytes: number, stats: ImportStats) => void },
): Promise<ImportResult> {
  const id = systemIds.uuid();
  const locks = typeof navigator !== "undefined" ? navigator.locks : undefined;
  if (!locks) return importWithId(db, id, file, opts);
  return locks.request(importLockName(id), () => importWithId(db, id, file, opts));
}

async function importWithId(
  db: ReverieDb,
  id: string,
  file: Blob,
  opts: { name: string; signal?: AbortSignal; onProgress?: (bytesRead: number, totalBytes: number, stats: ImportStats) => void },
): Promise<ImportResult> {
  let mindJson: unknown;
  const pages = pageWriter(db, id);
  const trajOfDir = new Map<string, string>();
  /** tiers.jsonl texts by folder: written once every trajectory is known (a file may come before its trajectory.jsonl). */
  const tierTexts = new Map<string, string>();
  const sink: ImportSink = {
    trajectory: async (t) => {
      trajOfDir.set(t.dir, t.trajId);
      await db.trajectories.put({ mind_id: id, traj_id: t.trajId, name: t.name, dir: t.dir, parent_traj: t.parentTraj, parent_step: t.parentStep });
    },
    tiers: async (dir, text) => {
      if (!tierTexts.has(dir)) tierTexts.set(dir, text);
    },
    steps: (trajId, batch) => pages.add(trajId, batch),
    blob: async (path, text) => {
      await db.blobs.put({ mind_id: id, name: path, text });
    },
    // Kept as it came (the importer warned if it is not readable results), so export gives it back.
    results: (text) => putResultsText(db, id, text),
    // Stripped here, so a mind.json no walk can get through is the importer's warning, not a failed import.
    mind: async (json) => {
      mindJson = stripKeys(json);
    },
  };
  let stats: ImportStats;
  await markImportStarted(db, id);
  try {
    stats = await importArchive(file, sink, { name: opts.name, signal: opts.signal, onProgress: opts.onProgress });
    await pages.finish();
    if (stats.trajectories === 0) throw new ImportError(`${opts.name} holds no trajectory.jsonl: nothing to import.`);
    if (stats.steps === 0) throw new ImportError(`${opts.name} holds no readable steps (${stats.skipped} line(s) skipped).`);
    await writeTiers(db, id, tierTexts, trajOfDir, stats.warnings);
    const summary = checkSummary(stats);
    const record: ImportedArchive = {
      kind: "imported",
      id,
      name: archiveName(mindJson, opts.name),
      created_at: formatTs(Date.now()),
      source: opts.name,
      stats: { steps: summary.steps, skipped: summary.skipped, trajectories: summary.trajectories, forks: summary.forks, runs: summary.runs, blobs: stats.blobs },
      mind: mindJson,
    };
    // The commit: the record appears and the in-progress marker goes, together.
    await db.transaction("rw", db.minds, db.settings, async () => {
      await db.minds.add({ id, json: record });
      await db.settings.delete(markerKey(id));
    });
  } catch (e) {
    await pages.finish().catch(() => undefined);
    await discardUncommitted(db, id);
    throw e;
  }
  return { id, stats };
}

/**
 * Each trajectory's tiers.jsonl into the tiers table. A line that is not a
 * sealed summary is skipped and counted (a warning), never hiding the lines
 * after it; a later line for a block already read is a duplicate and skipped
 * too (the first one sealed it). Seqs in a line belong to the database that
 * wrote it, so they are dropped.
 */
async function writeTiers(db: ReverieDb, owner: string, texts: Map<string, string>, trajOfDir: Map<string, string>, warnings: string[]): Promise<void> {
  for (const [dir, text] of texts) {
    const where = `${dir ? `${dir}/` : ""}${TIERS_FILE}`;
    const trajId = trajOfDir.get(dir);
    if (!trajId) {
      warnings.push(`${where} has no trajectory.jsonl beside it; its summaries were not imported.`);
      continue;
    }
    const rows = new Map<string, TierRow>();
    const { lines, skipped } = readTierLines(text);
    let duplicates = 0;
    for (const { first_seq: _f, last_seq: _l, ...t } of lines) {
      const key = `${t.tier}:${t.index}`;
      if (rows.has(key)) {
        duplicates++;
        continue;
      }
      rows.set(key, { mind_id: owner, traj_id: trajId, ...t });
    }
    await db.tiers.bulkAdd([...rows.values()]);
    if (skipped) warnings.push(`${where}: ${skipped} line(s) skipped that are not sealed summaries; the other ${rows.size} were imported.`);
    if (duplicates) warnings.push(`${where}: ${duplicates} later summary line(s) of a block already read were skipped (the first one sealed it).`);
  }
}

function archiveName(mindJson: unknown, fileName: string): string {
  const name = (mindJson as { name?: unknown } | undefined)?.name;
  if (typeof name === "string" && name.trim()) return name.trim().slice(0, 80);
  return fileName.replace(/\.(jsonl|ndjson|json|zip|tar\.gz|tgz|tar)$/i, "") || "imported trajectory";
}

/** A mind.json from elsewhere might carry a key; never keep one. */
function stripKeys(json: unknown): unknown {
  if (!json || typeof json !== "object") return undefined;
  return JSON.parse(JSON.stringify(json, (k, v) => (/^(api[_-]?key|key|token|access[_-]?token|secret|password|authorization)$/i.test(k) ? undefined : v)));
}

/**
 * Remove the rows of an import that never committed. Refuses an owner that
 * has a record: a mind's or a committed archive's steps are never deleted.
 */
export async function discardUncommitted(db: ReverieDb, ownerId: string): Promise<void> {
  await db.transaction("rw", [db.minds, db.steps, db.pages, db.blobs, db.trajectories, db.tiers, db.settings], async () => {
    if (await db.minds.get(ownerId)) throw new Error("Refusing to delete the steps of a committed owner.");
    await db.tiers.where("[mind_id+traj_id]").between([ownerId, Dexie.minKey], [ownerId, Dexie.maxKey]).delete();
    await db.steps.where("[mind_id+seq]").between([ownerId, Dexie.minKey], [ownerId, Dexie.maxKey]).delete();
    await db.pages.where("[mind_id+first]").between([ownerId, Dexie.minKey], [ownerId, Dexie.maxKey]).delete();
    await db.blobs.where("[mind_id+name]").between([ownerId, Dexie.minKey], [ownerId, Dexie.maxKey]).delete();
    await db.trajectories.where("mind_id").equals(ownerId).delete();
    await db.settings.delete(markerKey(ownerId));
  });
}

const MARKER = "import-in-progress:";
const markerKey = (id: string) => `${MARKER}${id}`;

/**
 * Written before an import writes anything, removed by its commit or discard:
 * what is left marked belongs to an import that never finished.
 */
export async function markImportStarted(db: ReverieDb, id: string): Promise<void> {
  await db.settings.put({ key: markerKey(id), value: { started: formatTs(Date.now()) } });
}

/**
 * At start-up: sweep imports a closed tab left unfinished (still marked as in
 * progress), sparing those `isRunning` says are under way in another tab.
 * Reads only the markers, so it costs nothing when there is nothing to sweep.
 */
export async function sweepUnfinishedImports(db: ReverieDb, isRunning: (ownerId: string) => boolean = () => false): Promise<number> {
  const markers = await db.settings.where("key").startsWith(MARKER).primaryKeys();
  let swept = 0;
  for (const key of markers) {
    const owner = String(key).slice(MARKER.length);
    if (isRunning(owner)) continue;
    if (await db.minds.get(owner)) {
      await db.settings.delete(key); // committed, only the marker was left
      continue;
    }
    await discardUncommitted(db, owner);
    swept++;
  }
  return swept;
}

/** Lines per page: big enough that a 100,000-step import is a few hundred rows. */
export const PAGE_LINES = 500;

/**
 * Collects lines into pages per trajectory and writes them, one write in
 * flight at a time, so parsing the next lines overlaps the database's work.
 */
function pageWriter(db: ReverieDb, owner: string) {
  let seq = 0;
  const open = new Map<string, { page: number; first: number; lines: string[]; ids: string[] }>();
  let ready: PageRow[] = [];
  let inFlight: Promise<unknown> = Promise.resolve();

  const seal = (trajId: string) => {
    const p = open.get(trajId);
    if (!p || p.lines.length === 0) return;
    ready.push({ mind_id: owner, traj_id: trajId, page: p.page, first: p.first, lines: p.lines.join("\n"), ids: p.ids.join(",") });
    open.set(trajId, { page: p.page + 1, first: seq, lines: [], ids: [] });
  };
  const write = async () => {
    if (ready.length === 0) return;
    const rows = ready;
    ready = [];
    await inFlight; // one write at a time; a failure surfaces here
    inFlight = db.pages.bulkAdd(rows);
    // Reported when the next write or finish() awaits it; not an unhandled rejection meanwhile.
    inFlight.catch(() => undefined);
  };

  return {
    async add(trajId: string, batch: StepBatchItem[]): Promise<void> {
      if (!open.has(trajId)) open.set(trajId, { page: 0, first: seq, lines: [], ids: [] });
      for (const item of batch) {
        const cur = open.get(trajId) as { lines: string[]; ids: string[] };
        cur.lines.push(item.raw);
        cur.ids.push(item.step.step_id.toLowerCase());
        seq++;
        if (cur.lines.length >= PAGE_LINES) seal(trajId);
      }
      await write();
    },
    async finish(): Promise<void> {
      for (const trajId of open.keys()) seal(trajId);
      await write();
      await inFlight;
    },
  };
}
