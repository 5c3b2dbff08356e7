import "server-only";
// Guests' messages through an invite link, queued for the mind's runner. The
// rate limit is counted in SQL under the link's row lock, so it holds however
// many server instances share the database.
import { randomUUID } from "node:crypto";
import { INVITE_LIMITS, type GuestMessage } from "@/lib/sharing/wire";
import { type Inbound } from "@/lib/sync/inbox-wire";
import { can, type InviteRole } from "@/lib/sharing/roles";
import type { ResolvedLink } from "../sharing/links";
import type { Sql } from "../db/sql";
import { HttpError } from "../http/route";
import { SYNC_CHANNEL } from "../sync/store";
import { lockLink, withinMinute } from "../sharing/link-rate";


export async function postGuestMessage(sql: Sql, link: ResolvedLink, msg: GuestMessage): Promise<{ id: string }> {
  if (!can(link.holder, "talk")) throw new HttpError(403, "read_only", "this link is read-only; only an invite link can send messages");
  return sql.transaction(async (tx) => {
    // Serialises one link's senders so two instances cannot both take the last slot.
    await lockLink(tx, link.id);
    await withinMinute(tx, "guest_messages", link.id, INVITE_LIMITS.perMinute, "messages");
    const id = randomUUID();
    await tx.query("INSERT INTO guest_messages (id, mind, link, from_name, content) VALUES ($1, $2, $3, $4, $5)", [id, link.mind, link.id, msg.from, msg.content]);
    await tx.query("SELECT pg_notify($1, $2)", [SYNC_CHANNEL, link.mind]);
    return { id };
  });
}

/** Messages not yet delivered: no step with the message's id has been uploaded. */
export async function inbox(sql: Sql, mind: string): Promise<Inbound[]> {
  const rows = await sql.query<{ id: string; from_name: string; content: string; created_at: Date; link: string; role: InviteRole | null }>(
    `SELECT g.id, g.from_name, g.content, g.created_at, g.link, l.role FROM guest_messages g JOIN share_links l ON l.id = g.link
     WHERE g.mind = $1 AND NOT EXISTS (SELECT 1 FROM sync_steps s WHERE s.mind = g.mind AND s.step_id = g.id)
     ORDER BY g.created_at, g.id`,
    [mind],
  );
  return rows.map((r) => ({ id: r.id, from: r.from_name, content: r.content, created_at: new Date(r.created_at).toISOString(), link: r.link, ...(r.role ? { role: r.role } : {}) }));
}
