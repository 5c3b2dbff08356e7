// The mind's hot write path: one IndexedDB transaction straight on the
// connection Dexie opened, past Dexie's middleware (hooks, virtual indexes,
// observability, its cache and its promise zones). A mind on a fast model
// writes a batch of steps with their usage and context rows every few
// milliseconds; Dexie's own JavaScript for that batch was the largest single
// cost on the worker's thread (bench/mind, 2.4 ms of profiled self time per
// iteration, against 0.5 ms for IndexedDB's own put and add).
//
// Every live query must still hear of the write, in this context and in every
// other tab (Dexie broadcasts between them), so the change is announced as
// Dexie's observability middleware announces its own: the same parts (the
// primary keys, and each real index's keys of the rows written), fired on the
// same event, once the transaction has committed; writes that follow one
// another fast are announced together (ANNOUNCE_MS).
import Dexie, { RangeSet, type IndexableType, type ObservabilitySet } from "dexie";
import type { ReverieDb } from "./db";

/** The tables written this way (the rest go through Dexie). */
export type HotTable = "steps" | "usage" | "contexts";

/** Rows to add (refused if the key exists) or put (replaced) in one table. */
export interface TableWrite {
  table: HotTable;
  op: "add" | "put";
  rows: readonly object[];
}

/**
 * Write `writes` in order, in one transaction; resolves with each write's
 * primary keys (an auto-incremented key as the store gave it). All or
 * nothing: a refused row (a key that exists, a row that cannot be stored)
 * aborts the transaction and rejects with its error.
 */
export async function writeRows(db: ReverieDb, writes: readonly TableWrite[]): Promise<IndexableType[][]> {
  const live = writes.filter((w) => w.rows.length > 0);
  if (live.length === 0) return writes.map(() => []);
  if (!db.isOpen()) await db.open();
  const keys = await transact(db.backendDB(), live);
  const parts = mutatedParts(db, live, keys);
  for (const listener of ownWriters) listener(db, live, keys);
  announce(parts);
  let i = 0;
  return writes.map((w) => (w.rows.length > 0 ? (keys[i++] as IndexableType[]) : []));
}

/** The announcements writeRows made in this context: a watch of what others wrote can pass over them (the same object reaches Dexie's listeners here; other tabs get a copy). */
const own = new WeakSet<ObservabilitySet>();

/**
 * Writes are announced at most this often: the first after a quiet spell at
 * once, those that follow it within ANNOUNCE_MS together, at its end. A mind
 * on a fast model writes every few tens of milliseconds, and each
 * announcement goes to every open tab (Dexie's BroadcastChannel: a copy
 * made, sent through the browser, and read into every live query of each
 * page). Pages show new steps at most every LIVE_MS (250 ms) anyway.
 */
export const ANNOUNCE_MS = 100;
let gathered: ObservabilitySet | null = null;
let announcedAt = Number.NEGATIVE_INFINITY;
let announceTimer: ReturnType<typeof setTimeout> | null = null;

function announce(parts: ObservabilitySet): void {
  const now = Date.now();
  if (!gathered && now - announcedAt >= ANNOUNCE_MS) return fire(parts);
  gathered = gathered ? Dexie.extendObservabilitySet(gathered, parts) : parts;
  announceTimer ??= setTimeout(
    () => {
      announceTimer = null;
      const all = gathered;
      gathered = null;
      if (all) fire(all);
    },
    Math.max(0, announcedAt + ANNOUNCE_MS - now),
  );
}

function fire(parts: ObservabilitySet): void {
  announcedAt = Date.now();
  own.add(parts);
  Dexie.on.storagemutated.fire(parts);
}
type WriteListener = (db: ReverieDb, writes: readonly TableWrite[], keys: readonly IndexableType[][]) => void;
const ownWriters = new Set<WriteListener>();

/** Was this change announced by writeRows, in this context? */
export const wroteHere = (parts: ObservabilitySet): boolean => own.has(parts);

/** Hear of every write writeRows commits in this context (before it is announced); returns the unsubscribe. */
export function onWriteHere(listener: WriteListener): () => void {
  ownWriters.add(listener);
  return () => ownWriters.delete(listener);
}

function transact(idb: IDBDatabase, writes: readonly TableWrite[]): Promise<IndexableType[][]> {
  return new Promise((resolve, reject) => {
    const tx = idb.transaction([...new Set(writes.map((w) => w.table))], "readwrite");
    const keys: IndexableType[][] = writes.map(() => []);
    tx.oncomplete = () => resolve(keys);
    // A refused request aborts the whole transaction; its error is the one to report.
    tx.onabort = () => reject(tx.error ?? new DOMException("The write was aborted.", "AbortError"));
    try {
      writes.forEach((w, i) => {
        const store = tx.objectStore(w.table);
        const out = keys[i] as IndexableType[];
        w.rows.forEach((row, j) => {
          const req = w.op === "add" ? store.add(row) : store.put(row);
          req.onsuccess = () => (out[j] = req.result as IndexableType);
        });
      });
    } catch (e) {
      // A row that cannot be stored at all (DataCloneError, a bad key) throws here: nothing before it may commit.
      tx.onabort = () => reject(e);
      tx.abort();
    }
  });
}

/** What Dexie's observability middleware would report for these writes (dexie 4: `idb://<db>/<table>/<index>` → the keys touched). */
export function mutatedParts(db: ReverieDb, writes: readonly TableWrite[], keys: readonly IndexableType[][]): ObservabilitySet {
  const parts = new Map<string, RangeSet>();
  const part = (table: string, index: string) => {
    const name = `idb://${db.name}/${table}/${index}`;
    let set = parts.get(name);
    if (!set) parts.set(name, (set = new RangeSet()));
    return set;
  };
  writes.forEach((w, i) => {
    const { schema } = db.core.table(w.table);
    const pks = keys[i] as IndexableType[];
    part(w.table, "").addKeys(pks);
    // A put may replace a row whose index keys differed: Dexie marks its key as a possible deletion too.
    part(w.table, ":dels").addKeys(w.op === "put" ? pks : []);
    const pkPath = schema.primaryKey.keyPath;
    const autoPk = schema.primaryKey.autoIncrement && typeof pkPath === "string" ? pkPath : null;
    // An auto-incremented key is not in the row as written: the store's key stands in for it.
    const stored = autoPk ? w.rows.map((row, j) => ({ ...row, [autoPk]: pks[j] })) : w.rows;
    for (const ix of schema.indexes) {
      // The virtual indexes (prefixes of compound ones) are Dexie's own: queries on them are recorded as on the real index.
      if ((ix as { isVirtual?: boolean }).isVirtual || !ix.name || !ix.extractKey) continue;
      const set = part(w.table, ix.name);
      for (const row of stored) {
        const key = ix.extractKey(row);
        if (key != null) set.addKey(key);
      }
    }
  });
  return Object.fromEntries(parts);
}
