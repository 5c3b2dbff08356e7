import "server-only";
// An operator's pause, resume and stop from an invite page. The server's own
// record of the mind moves at once (halted or not: a runner hosting it stops,
// and none takes it while it is halted), and the request is queued like a
// guest's message until the mind's home, a tab or the server runner, records
// it as a step and obeys it there. Only a pause may be undone from a link: a
// stopped mind is started again by its owner.
import { randomUUID } from "node:crypto";
import { INVITE_LIMITS, type ControlRequest } from "@/lib/sharing/wire";
import { type InboundControl } from "@/lib/sync/inbox-wire";
import { can, type ControlAction } from "@/lib/sharing/roles";
import type { ResolvedLink } from "../sharing/links";
import type { Sql } from "../db/sql";
import { HttpError } from "../http/route";
import { SYNC_CHANNEL } from "../sync/store";
import { lockLink, withinMinute } from "../sharing/link-rate";

/** Who asked, when the operator gave no name. */
export const UNNAMED_OPERATOR = "an operator";

export async function postControl(sql: Sql, link: ResolvedLink, req: ControlRequest): Promise<{ id: string; action: ControlAction }> {
  if (!can(link.holder, "control")) throw new HttpError(403, "forbidden", "this link may not pause, resume or stop the mind; only an operator's invite may");
  const from = req.from?.trim() || UNNAMED_OPERATOR;
  return sql.transaction(async (tx) => {
    await lockLink(tx, link.id);
    await withinMinute(tx, "mind_controls", link.id, INVITE_LIMITS.perMinute, "control requests");
    const [m] = await tx.query<{ halted: boolean; paused_by: string | null }>("SELECT halted_at IS NOT NULL AS halted, paused_by FROM sync_minds WHERE id = $1 FOR UPDATE", [link.mind]);
    const stopped = Boolean(m?.halted) && m?.paused_by === null;
    if (stopped && req.action !== "stop") {
      throw new HttpError(409, "stopped", `the mind is stopped, not paused: only its owner can start it again, so it was not ${req.action === "pause" ? "paused" : "resumed"}`);
    }
    if (req.action === "pause") await tx.query("UPDATE sync_minds SET halted_at = COALESCE(halted_at, now()), paused_by = $2 WHERE id = $1", [link.mind, from]);
    else if (req.action === "stop") await tx.query("UPDATE sync_minds SET halted_at = COALESCE(halted_at, now()), paused_by = NULL WHERE id = $1", [link.mind]);
    else await tx.query("UPDATE sync_minds SET halted_at = NULL, paused_by = NULL WHERE id = $1", [link.mind]);
    const id = randomUUID();
    await tx.query("INSERT INTO mind_controls (id, mind, link, from_name, action) VALUES ($1, $2, $3, $4, $5)", [id, link.mind, link.id, from, req.action]);
    await tx.query("SELECT pg_notify($1, $2)", [SYNC_CHANNEL, link.mind]);
    return { id, action: req.action };
  });
}

/** Control requests not yet recorded in the mind's trajectory (no step with the request's id), oldest first. */
export async function pendingControls(sql: Sql, mind: string): Promise<InboundControl[]> {
  const rows = await sql.query<{ id: string; from_name: string; action: ControlAction; created_at: Date; link: string }>(
    `SELECT c.id, c.from_name, c.action, c.created_at, c.link FROM mind_controls c
     WHERE c.mind = $1 AND NOT EXISTS (SELECT 1 FROM sync_steps s WHERE s.mind = c.mind AND s.step_id = c.id)
     ORDER BY c.created_at, c.id`,
    [mind],
  );
  return rows.map((r) => ({ id: r.id, from: r.from_name, action: r.action, created_at: new Date(r.created_at).toISOString(), link: r.link }));
}
