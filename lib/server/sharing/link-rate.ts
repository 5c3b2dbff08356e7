import "server-only";
// One link's sends per minute, counted in SQL inside the caller's transaction
// (which holds the link's row lock, so two instances cannot both take the last
// slot): guests' messages, operators' control requests and alerts alike.
import type { Sql } from "../db/sql";
import { HttpError } from "../http/route";

const WINDOW_S = 60;

/** The link's row, locked for the rest of the transaction; 404 when it is gone or revoked. */
export async function lockLink(tx: Sql, linkId: string): Promise<void> {
  const [l] = await tx.query<{ revoked: boolean }>("SELECT revoked_at IS NOT NULL AS revoked FROM share_links WHERE id = $1 FOR UPDATE", [linkId]);
  if (!l || l.revoked) throw new HttpError(404, "not_found", "no such link, or it was revoked");
}

/**
 * How many rows of `table` the link made in the last minute; at `limit`, a
 * 429 that says when to try again (`what`: "messages", "alerts"…).
 */
export async function withinMinute(tx: Sql, table: "guest_messages" | "mind_controls" | "link_alerts" | "mind_curations", linkId: string, limit: number, what: string, kind = "invite"): Promise<number> {
  const [w] = await tx.query<{ n: number; retry_s: number | null }>(
    `SELECT count(*)::int AS n, ceil(extract(epoch FROM min(created_at) + make_interval(secs => $2) - now()))::int AS retry_s
     FROM ${table} WHERE link = $1 AND created_at > now() - make_interval(secs => $2)`,
    [linkId, WINDOW_S],
  );
  const n = w?.n ?? 0;
  if (n >= limit) {
    const retry = Math.max(1, Number(w?.retry_s ?? WINDOW_S));
    throw new HttpError(429, "rate_limited", `this ${kind} may send ${limit} ${what} a minute; try again in ${retry} s`, {}, { "Retry-After": String(retry) });
  }
  return n;
}
