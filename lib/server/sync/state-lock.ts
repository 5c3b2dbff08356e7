import "server-only";
// The start of every write of a mind's state (workspace, tiers, record), as
// of an upload: the mind's row locked (one lock order for every writer of the
// mind), then the lease's fence, in the writing transaction.
import type { Sql } from "../db/sql";
import { checkFence } from "../state/lease";
import { HttpError } from "../http/route";
import type { Held } from "./quota";

/** Locks the mind's row, checks the writer's epoch, and says what the mind holds against its quota. */
export async function lockForWrite(tx: Sql, mind: string, epoch: number | undefined): Promise<Held> {
  const [row] = await tx.query<{ bytes: string | number; step_count: string | number; blob_count: string | number }>(
    "SELECT bytes, step_count, blob_count FROM sync_minds WHERE id = $1 FOR UPDATE",
    [mind],
  );
  if (!row) throw new HttpError(404, "not_found", "no such mind");
  await checkFence(tx, mind, epoch);
  return { bytes: Number(row.bytes), steps: Number(row.step_count), blobs: Number(row.blob_count) };
}

/** Keep the mind's byte count with a write that changed what it holds by `delta`. */
export async function addBytes(tx: Sql, mind: string, delta: number): Promise<void> {
  if (delta !== 0) await tx.query("UPDATE sync_minds SET bytes = GREATEST(0, bytes + $2) WHERE id = $1", [mind, delta]);
}
