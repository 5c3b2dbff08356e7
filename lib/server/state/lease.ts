import "server-only";
// A mind's lease: one writer at a time, whether it is a tab (through sync) or
// a server runner. The lease has a holder, an epoch that only grows (each
// acquisition takes the next), and an expiry its holder keeps pushing back.
// Every write carries the writer's epoch, and a write whose epoch is not the
// lease's is refused as fenced: a laptop that wakes up after its lease was
// taken cannot append beside the new holder.
//
// The fence is checked inside the writing transaction, under a share lock on
// the lease row, and taking the lease updates that row: so a write that
// passed its check commits before the lease can move, and the new holder,
// reading the mind after taking the lease, sees it.
import type { Lease } from "@/lib/sync/wire";
import type { Sql } from "../db/sql";
import { HttpError } from "../http/route";

export const DEFAULT_LEASE_S = 30;

type Row = { holder: string; epoch: string | number; expires_at: Date | string };
const leaseOf = (r: Row): Lease => ({ holder: r.holder, epoch: Number(r.epoch), expires_at: new Date(r.expires_at).toISOString() });

/** Take the mind's lease at the next epoch, if it is free, lapsed, or already `holder`'s; else who holds it and until when. */
export async function acquireLease(sql: Sql, mind: string, holder: string, ttlS = DEFAULT_LEASE_S): Promise<{ ok: true; lease: Lease } | { ok: false; lease: Lease }> {
  const taken = await sql.query<Row>(
    `INSERT INTO mind_leases AS l (mind, holder, epoch, expires_at, renewed_at) VALUES ($1, $2, 1, now() + make_interval(secs => $3), now())
     ON CONFLICT (mind) DO UPDATE SET holder = EXCLUDED.holder, epoch = l.epoch + 1, expires_at = EXCLUDED.expires_at, renewed_at = now(), wanted_by = NULL, wanted_at = NULL
     WHERE l.expires_at <= now() OR l.holder = EXCLUDED.holder
     RETURNING holder, epoch, expires_at`,
    [mind, holder, ttlS],
  );
  if (taken[0]) return { ok: true, lease: leaseOf(taken[0]) };
  const [held] = await sql.query<Row>("SELECT holder, epoch, expires_at FROM mind_leases WHERE mind = $1", [mind]);
  if (!held) throw new Error(`the lease of ${mind} vanished while it was being taken`);
  return { ok: false, lease: leaseOf(held) };
}

/** Where a request for a lease is announced (pg_notify, the mind's id; PGlite delivers its own in process): the runner hosting it looks at once. */
export const LEASE_WANTED_CHANNEL = "reverie_lease_wanted";

/**
 * Ask the holder to hand the lease over (a tab opening a mind a runner
 * hosts): the runner hears of it at once (LEASE_WANTED_CHANNEL; its poll is
 * the safety net), ends its run and lets go, and the asker's next acquire
 * succeeds. Taking the lease clears the request.
 */
export async function wantLease(sql: Sql, mind: string, asker: string): Promise<void> {
  const asked = await sql.query("UPDATE mind_leases SET wanted_by = $2, wanted_at = COALESCE(wanted_at, now()) WHERE mind = $1 AND holder <> $2 RETURNING mind", [mind, asker]);
  if (asked.length) await sql.query("SELECT pg_notify($1, $2)", [LEASE_WANTED_CHANNEL, mind]);
}

/** Push the lease's expiry back, if `epoch` is still `holder`'s lease; else it is fenced (someone took it since). */
export async function renewLease(sql: Sql, mind: string, holder: string, epoch: number, ttlS = DEFAULT_LEASE_S): Promise<Lease | "fenced"> {
  const [row] = await sql.query<Row>(
    "UPDATE mind_leases SET expires_at = now() + make_interval(secs => $4), renewed_at = now() WHERE mind = $1 AND holder = $2 AND epoch = $3 RETURNING holder, epoch, expires_at",
    [mind, holder, epoch, ttlS],
  );
  return row ? leaseOf(row) : "fenced";
}

/** How often a release that names its holder's last step looks for it. */
const RELEASE_POLL_MS = 100;

/**
 * Let the lease go (the next holder takes the next epoch); false when `epoch`
 * was no longer the lease's. `lastStep`: the newest step its holder wrote.
 * Until the mind holds it the lease stays, at most until it would lapse
 * anyway: the holder's last upload may still be on its way (the fence takes
 * it, since no other home can take the lease meanwhile), so the next home
 * writes nothing before the old holder's steps are in.
 */
export async function releaseLease(sql: Sql, mind: string, holder: string, epoch: number, lastStep?: string): Promise<boolean> {
  while (lastStep !== undefined) {
    const [row] = await sql.query<{ live: boolean; held: boolean }>(
      `SELECT l.expires_at > now() AS live, EXISTS (SELECT 1 FROM sync_steps s WHERE s.mind = l.mind AND s.step_id = $4) AS held
       FROM mind_leases l WHERE l.mind = $1 AND l.holder = $2 AND l.epoch = $3`,
      [mind, holder, epoch, lastStep],
    );
    if (!row) return false;
    if (row.held || !row.live) break;
    await new Promise((r) => setTimeout(r, RELEASE_POLL_MS));
  }
  const rows = await sql.query("UPDATE mind_leases SET expires_at = LEAST(expires_at, now()) WHERE mind = $1 AND holder = $2 AND epoch = $3 RETURNING epoch", [mind, holder, epoch]);
  return rows.length > 0;
}

export const fenced = (message: string, current?: number) => new HttpError(409, "fenced", message, current === undefined ? {} : { epoch: current });

/**
 * Inside a writing transaction: refuse (409 fenced) a write whose epoch is not
 * the mind's lease's. A mind never leased takes writes without an epoch (a tab
 * that only syncs); once leased, every write must carry the current epoch.
 */
export async function checkFence(tx: Sql, mind: string, epoch: number | undefined): Promise<void> {
  const [row] = await tx.query<{ epoch: string | number }>("SELECT epoch FROM mind_leases WHERE mind = $1 FOR SHARE", [mind]);
  if (!row) {
    if (epoch !== undefined) throw fenced(`this mind has no lease, so epoch ${epoch} is not its writer's; take the lease first`);
    return;
  }
  const current = Number(row.epoch);
  if (epoch === undefined) throw fenced(`this mind is leased (epoch ${current}): a write must carry its writer's epoch; take the lease first`, current);
  if (epoch !== current) throw fenced(`epoch ${epoch} is not the lease's (${current}): another home writes this mind now; nothing was written`, current);
}
