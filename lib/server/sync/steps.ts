import "server-only";
// The one writer of a mind's steps on the server: every row of sync_steps is
// written here, whether a browser uploaded it (store.ts) or the server's own
// home of the mind appended it (sql-mind-state.ts), so both go into the one
// seq order the same way: under the mind's row lock, with its counters
// (last_seq, bytes, step_count) and the notice to live viewers in the same
// transaction. Its callers check what is theirs to check first (the lease's
// fence, quotas, a batch's shape).
import type { Sql } from "../db/sql";

/** pg_notify channel: payload is a mind id whose steps or links just changed. */
export const SYNC_CHANNEL = "reverie_sync";

export interface StepRow {
  traj: string;
  step_id: string;
  type: string;
  json: string;
  /** An uploader's own numbering (a browser's seqs, increasing past the mind's last); absent: the next seq. */
  seq?: number;
}

/** Rows per INSERT: five parameters each, well under PostgreSQL's 65,535. */
const CHUNK = 1000;

/**
 * Append `rows`, in order, to the mind's steps inside the caller's
 * transaction. Resolves with the mind's last seq before and after, and the
 * bytes added. Throws, writing nothing, on a seq that does not follow.
 */
export async function writeSteps(tx: Sql, mind: string, rows: readonly StepRow[]): Promise<{ before: number; last: number; bytes: number }> {
  // Every write of the mind takes its row first (one lock order); a caller that took it already takes it again for free.
  const [row] = await tx.query<{ last_seq: string | number }>("SELECT last_seq FROM sync_minds WHERE id = $1 FOR UPDATE", [mind]);
  if (!row) throw new Error(`There is no mind ${mind} on this server.`);
  const before = Number(row.last_seq);
  let seq = before;
  let bytes = 0;
  const numbered = rows.map((r) => {
    const at = r.seq ?? seq + 1;
    if (!Number.isSafeInteger(at) || at <= seq) throw new Error(`step ${r.step_id}: seq ${at} does not follow ${seq}`);
    seq = at;
    bytes += Buffer.byteLength(r.json, "utf8");
    return { ...r, seq: at };
  });
  if (!numbered.length) return { before, last: before, bytes: 0 };
  for (let i = 0; i < numbered.length; i += CHUNK) {
    const params: unknown[] = [mind];
    const values = numbered.slice(i, i + CHUNK).map((r) => {
      const n = params.push(r.seq, r.step_id, r.traj, r.type, r.json);
      return `($1, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
    });
    await tx.query(`INSERT INTO sync_steps (mind, seq, step_id, traj, type, json) VALUES ${values.join(", ")}`, params);
  }
  await tx.query("UPDATE sync_minds SET last_seq = $2, bytes = bytes + $3, step_count = step_count + $4 WHERE id = $1", [mind, seq, bytes, numbered.length]);
  // Delivered on COMMIT, to every instance LISTENing (and nothing if this rolls back).
  await tx.query("SELECT pg_notify($1, $2)", [SYNC_CHANNEL, mind]);
  return { before, last: seq, bytes };
}
