import "server-only";
// Forgetting a whole mind: every row the server keeps for it, its steps
// included, gone in one transaction. Asked for by its owner (DELETE
// /api/sync/minds/<mind> with its write token) or by the host (`npx reverie
// minds --forget <mind>`); nothing else calls it.
//
// This is the one way past sync_steps' append-only trigger (migration 14),
// which refuses every UPDATE and DELETE of a stored step: the transaction
// below names the mind and itself (its txid) in a transaction-local setting
// (set_config(…, true): gone at COMMIT or ROLLBACK, never seen by another
// connection), and the trigger lets a DELETE through only for that mind's
// rows, in this transaction. scripts/check-writers.mjs keeps the setting's
// name in this file and the migration, and every UPDATE or DELETE of
// sync_steps in this file.
//
// What stays: the host's spend ledger (spend_reservations, spend_counters),
// which counts clients, not minds; a queued wake in the runner's job queue,
// which the runner drops when it finds no mind; a runner hosting the mind
// stops at its next lease renewal (its lease row is gone). Live links' streams
// end as revoked (lib/server/sharing/live.ts reads a forgotten link as one).
import type { Sql } from "../db/sql";
import { SYNC_CHANNEL } from "./steps";

/** The transaction-local setting that sync_steps_append_only() reads. */
const FORGET_SETTING = "reverie.forget_mind";

/**
 * Every table with a `mind` column referencing sync_minds, in an order that
 * deletes a row before the rows it references (an alert before its storm and
 * its link; what came through a link before the link). A test checks this
 * list against the database's own foreign keys, so a new table is not missed.
 */
export const MIND_TABLES = [
  "link_alerts",
  "alert_storms",
  "mind_controls",
  "mind_curations",
  "guest_messages",
  "share_links",
  "owner_changes",
  "mind_leases",
  "mind_usage",
  "mind_contexts",
  "mind_tiers",
  "mind_files",
  "sync_blobs",
  "sync_trajectories",
  "sync_steps",
] as const;

/** Forget `mind` and everything the server keeps for it. Resolves false when there is no such mind (nothing is done). */
export async function forgetMind(sql: Sql, mind: string): Promise<boolean> {
  return sql.transaction(async (tx) => {
    // The mind's row first, as every writer takes it: a write in flight finishes first, or finds no mind after.
    const [row] = await tx.query<{ id: string }>("SELECT id FROM sync_minds WHERE id = $1 FOR UPDATE", [mind]);
    if (!row) return false;
    await tx.query("SELECT set_config($1, $2::text || ':' || txid_current()::text, true)", [FORGET_SETTING, mind]);
    for (const table of MIND_TABLES) await tx.query(`DELETE FROM ${table} WHERE mind = $1`, [mind]);
    await tx.query("DELETE FROM sync_minds WHERE id = $1", [mind]);
    // Live followers look again, and find their links gone.
    await tx.query("SELECT pg_notify($1, $2)", [SYNC_CHANNEL, mind]);
    return true;
  });
}
