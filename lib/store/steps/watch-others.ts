// What others append to a mind (its page's messages, a config change, another
// tab), for the mind's own worker. Not a live query: that read again after
// each of the mind's own writes, every few milliseconds on a fast model, for
// rows it then skipped (bench/mind: about a millisecond of the worker's
// thread per iteration). This watch reads when a change to the steps table is
// announced by anyone but this context's own batch writer (lib/store/db/raw-write),
// and keeps its place past the mind's own rows as they are written: a batch
// that follows on from the last row seen moves the place on with no read; one
// that does not (someone's rows may lie between) makes it read.
import Dexie, { type ObservabilitySet } from "dexie";
import type { ReverieDb, StepRow } from "../db/db";
import { onWriteHere, wroteHere } from "../db/raw-write";
import { rowsAfter } from "./steps";

/**
 * Call `onRows` with the mind's rows appended after `afterSeq` by others (and,
 * where they could not be passed over, its own: tell them apart by id), in
 * order, each once. Read at most every `everyMs`. Returns the unsubscribe.
 */
export function watchOthers(db: ReverieDb, mindId: string, afterSeq: number, onRows: (rows: StepRow[]) => void, options: { everyMs?: number } = {}): () => void {
  const everyMs = options.everyMs ?? 0;
  const stepsPart = `idb://${db.name}/steps/`;
  let seen = afterSeq;
  let stopped = false;
  let reading = false;
  let again = false;
  let lastRead = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const read = async () => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    lastRead = Date.now();
    try {
      const rows = await rowsAfter(db, mindId, seen);
      if (!stopped && rows.length) {
        seen = Math.max(seen, ...rows.map((r) => r.seq ?? 0));
        onRows(rows);
      }
    } catch {
      // A failed read is tried again at the next change.
    } finally {
      reading = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  };
  function schedule(): void {
    if (stopped || timer) return;
    const wait = lastRead + everyMs - Date.now();
    if (wait <= 0) return void read();
    timer = setTimeout(() => {
      timer = null;
      void read();
    }, wait);
  }

  const onChange = (parts: ObservabilitySet) => {
    if (wroteHere(parts)) return;
    if ("all" in parts || Object.keys(parts).some((k) => k.startsWith(stepsPart))) schedule();
  };
  const offOwn = onWriteHere((written, writes, keys) => {
    if (written.name !== db.name) return;
    writes.forEach((w, i) => {
      if (w.table !== "steps") return;
      const seqs = keys[i] as number[];
      const first = seqs[0];
      const last = seqs.at(-1);
      if (first === undefined || last === undefined) return;
      // Consecutive from the place: nobody else's row lies between (a store's keys rise with every row).
      if (first === seen + 1 && last - first === seqs.length - 1) seen = last;
      else schedule();
    });
  });
  Dexie.on.storagemutated.subscribe(onChange);
  // Whatever was appended between `afterSeq` and now.
  schedule();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    offOwn();
    Dexie.on.storagemutated.unsubscribe(onChange);
  };
}
