// Steps a pull set aside, and how every reader leaves them out. Taking a mind
// back (lib/store/sync/pull.ts), this browser may find its own steps past
// where the server went on without them: written under a lease that was no
// longer its own, refused by the server. The log is never rewritten, so such
// a row is not moved or deleted: it stays where it is, byte for byte, an
// AsideRow records it as set aside, and a copy of it is appended to the
// trajectory it is set aside in (under a new id: a step id is unique in a
// mind, and the row left in place keeps its own). Every read of a trajectory
// or of the mind's whole log passes over the recorded rows, so the mind's
// line reads as one, the same as the server's, and the copies read (and
// upload) as the trajectory they were appended to.
//
// A mind with nothing set aside (almost every one) costs each read one look
// at an empty range of the asides table; its reads are otherwise unchanged.
import Dexie from "dexie";
import type { AsideRow, ReverieDb, StepRow } from "../db/db";

/** A mind's set-aside rows: their seqs, and how many were in each trajectory. */
export interface SetAside {
  seqs: ReadonlySet<number>;
  /** How many rows of `trajId` are set aside (what a count of that trajectory leaves out). */
  inTraj(trajId: string): number;
}

/** Every set-aside record of a mind, by seq. */
export function asideRows(db: ReverieDb, mindId: string): Promise<AsideRow[]> {
  return db.asides.where("[mind_id+seq]").between([mindId, Dexie.minKey], [mindId, Dexie.maxKey]).toArray();
}

/** What of a mind is set aside; null when nothing is (its reads then go as they always did). */
export async function setAside(db: ReverieDb, mindId: string): Promise<SetAside | null> {
  const rows = await asideRows(db, mindId);
  if (!rows.length) return null;
  const perTraj = new Map<string, number>();
  for (const r of rows) perTraj.set(r.from_traj, (perTraj.get(r.from_traj) ?? 0) + 1);
  return { seqs: new Set(rows.map((r) => r.seq)), inTraj: (trajId) => perTraj.get(trajId) ?? 0 };
}

/** Whether the row at `seq` is one set aside. */
export const isSetAside = (aside: SetAside | null, seq: number | undefined): boolean => aside !== null && aside.seqs.has(seq ?? 0);

/** Rows read whole, without those set aside. */
export const withoutSetAside = (rows: StepRow[], aside: SetAside | null): StepRow[] => (aside ? rows.filter((r) => !aside.seqs.has(r.seq ?? 0)) : rows);

/** A read with a limit or a stop: set-aside rows are passed over before the limit counts them (with nothing set aside, the read is as it was). */
export const passingOver = (rows: StepRows, aside: SetAside | null): StepRows => (aside ? rows.filter((r) => !aside.seqs.has(r.seq ?? 0)) : rows);

/** A read of the steps table, as Dexie types it. */
type StepRows = ReturnType<ReverieDb["steps"]["toCollection"]>;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * The copies of `stale` (a mind's rows, oldest first) to append to `trajId`,
 * and the records that set the rows themselves aside. Each copy has a new id
 * (from `uuid`), and every id of a stale step anywhere in a copy's text is
 * the copy's (a run's header, the step that woke it, a reply, a blob named
 * after its step), so the copies hold together as the rows did. `rename`
 * gives a text (a blob's ref) with the same ids changed.
 */
export function asideCopies(stale: readonly StepRow[], trajId: string, uuid: () => string): { copies: StepRow[]; records: AsideRow[]; rename(text: string): string } {
  const ids = new Map(stale.map((r) => [r.step_id.toLowerCase(), uuid()]));
  const rename = (text: string) => text.replace(UUID, (id) => ids.get(id.toLowerCase()) ?? id);
  const copies: StepRow[] = [];
  const records: AsideRow[] = [];
  for (const r of stale) {
    const copyId = ids.get(r.step_id.toLowerCase()) as string;
    copies.push({ step_id: copyId, mind_id: r.mind_id, traj_id: trajId, type: r.type, json: rename(r.json) });
    records.push({ mind_id: r.mind_id, seq: r.seq ?? 0, step_id: r.step_id, from_traj: r.traj_id, traj_id: trajId, copy_id: copyId });
  }
  return { copies, records, rename };
}
