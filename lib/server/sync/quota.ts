import "server-only";
// The quota checks of the sync API's writes, each inside the writing
// transaction: creating a mind (per client, per hour, and the server's
// space), adding steps and adding a blob (the mind's bytes, steps and blobs,
// and the server's space). A check that fails throws an HttpError, which
// rolls the transaction back: nothing is written. The server-wide checks
// take one advisory lock, so two writers cannot both squeeze under the total.
import type { SyncQuota } from "@/lib/sync/wire";
import type { Sql } from "../db/sql";
import { byteSize as formatBytes } from "@/lib/archive/limits";
import { MIND_ROW_BYTES, QUOTA_VARS, type SyncQuotas } from "../sharing/quotas";
import { HttpError } from "../http/route";

const QUOTA_LOCK = 7_264_913_002;

/** Who is creating a mind: its client id (a signed cookie's, or one just issued) and address; `known` when the cookie was sent. */
export interface Creator {
  clientId: string;
  addr: string;
  known: boolean;
}

/** A mind's counters, as its locked row holds them. */
export interface Held {
  bytes: number;
  steps: number;
  blobs: number;
}

const tooMuch = (message: string) => new HttpError(413, "quota", message);

async function serverBytes(tx: Sql): Promise<number> {
  await tx.query("SELECT pg_advisory_xact_lock($1)", [QUOTA_LOCK]);
  const [row] = await tx.query<{ bytes: string }>(`SELECT (COALESCE(sum(bytes), 0) + count(*) * ${MIND_ROW_BYTES})::text AS bytes FROM sync_minds`);
  return Number(row?.bytes ?? 0);
}

function checkTotal(total: number, adding: number, q: SyncQuotas): void {
  if (total + adding <= q.bytesTotal) return;
  throw tooMuch(
    `this server's space for synced minds is full: ${formatBytes(total)} of ${formatBytes(q.bytesTotal)} (${QUOTA_VARS.bytesTotal}); nothing was written. ` +
      "The mind goes on in this browser; ask the host to raise the limit or remove old minds.",
  );
}

export async function checkCreate(tx: Sql, who: Creator, q: SyncQuotas): Promise<void> {
  checkTotal(await serverBytes(tx), MIND_ROW_BYTES, q);
  const [c] = await tx.query<{ minds: number; recent: number; recent_all: number; wait_s: number | null }>(
    `SELECT (SELECT count(*)::int FROM sync_minds WHERE client_id = $1) AS minds,
            (SELECT count(*)::int FROM sync_minds WHERE created_at > now() - interval '1 hour' AND CASE WHEN $3 THEN client_id = $1 ELSE client_addr = $2 END) AS recent,
            (SELECT count(*)::int FROM sync_minds WHERE created_at > now() - interval '1 hour') AS recent_all,
            (SELECT ceil(extract(epoch FROM min(created_at) + interval '1 hour' - now()))::int FROM sync_minds
              WHERE created_at > now() - interval '1 hour' AND CASE WHEN $3 THEN client_id = $1 ELSE client_addr = $2 END) AS wait_s`,
    [who.clientId, who.addr, who.known],
  );
  if (!c) return;
  if (c.minds >= q.mindsPerClient) {
    throw new HttpError(
      429,
      "quota",
      `you have ${c.minds} synced minds on this server, its limit per client (${QUOTA_VARS.mindsPerClient}); nothing was created. Sync one of them instead, or ask the host to raise the limit.`,
    );
  }
  const retry = String(Math.max(1, Number(c.wait_s ?? 60)));
  if (c.recent >= q.createsPerHour) {
    throw new HttpError(429, "rate_limited", `${c.recent} minds were created from here in the last hour, the limit (${QUOTA_VARS.createsPerHour}); nothing was created. Try again in ${retry} s.`, {}, { "Retry-After": retry });
  }
  if (c.recent_all >= q.createsPerHourTotal) {
    throw new HttpError(429, "rate_limited", `this server has created ${c.recent_all} minds in the last hour, its limit (${QUOTA_VARS.createsPerHourTotal}); nothing was created. Try again later.`, {}, { "Retry-After": "60" });
  }
}

/** Before adding `steps` steps of `bytes` bytes to a mind holding `held`. */
export async function checkSteps(tx: Sql, held: Held, steps: number, bytes: number, q: SyncQuotas): Promise<void> {
  if (held.steps + steps > q.stepsPerMind) {
    throw tooMuch(`this mind holds ${held.steps} steps on the server, and ${steps} more would pass its limit of ${q.stepsPerMind} (${QUOTA_VARS.stepsPerMind}); nothing was written. The mind goes on in this browser; ask the host to raise the limit, or turn sync off.`);
  }
  checkMindBytes(held, bytes, "this batch", q);
  checkTotal(await serverBytes(tx), bytes, q);
}

/** Before adding a blob of `bytes` bytes to a mind holding `held`. */
export async function checkBlob(tx: Sql, held: Held, bytes: number, q: SyncQuotas): Promise<void> {
  if (held.blobs + 1 > q.blobsPerMind) {
    throw tooMuch(`this mind holds ${held.blobs} blobs on the server, its limit (${QUOTA_VARS.blobsPerMind}); nothing was written. The mind goes on in this browser; ask the host to raise the limit, or turn sync off.`);
  }
  checkMindBytes(held, bytes, "this blob", q);
  checkTotal(await serverBytes(tx), bytes, q);
}

/** Before adding `bytes` bytes of the mind's state (workspace files, sealed summaries, its record) to a mind holding `held`. */
export async function checkBytes(tx: Sql, held: Held, bytes: number, what: string, q: SyncQuotas): Promise<void> {
  checkMindBytes(held, bytes, what, q);
  checkTotal(await serverBytes(tx), bytes, q);
}

function checkMindBytes(held: Held, bytes: number, what: string, q: SyncQuotas): void {
  if (held.bytes + bytes <= q.bytesPerMind) return;
  throw tooMuch(
    `this mind holds ${formatBytes(held.bytes)} of its ${formatBytes(q.bytesPerMind)} on the server (${QUOTA_VARS.bytesPerMind}), and ${what} (${formatBytes(bytes)}) would pass it; nothing was written. ` +
      "The mind goes on in this browser; ask the host to raise the limit, or turn sync off.",
  );
}

/** A mind's use of its quota, as the API reports it. */
export const quotaOf = (held: Held, q: SyncQuotas): SyncQuota => ({
  bytes: held.bytes,
  max_bytes: q.bytesPerMind,
  steps: held.steps,
  max_steps: q.stepsPerMind,
  blobs: held.blobs,
  max_blobs: q.blobsPerMind,
});
