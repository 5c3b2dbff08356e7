import "server-only";
// Alerts through an alert link (CI failures, monitors, bots), queued for the
// mind's home like guests' messages. A storm never buries people's words:
// the first ALERT_LIMITS.burst alerts from one link within a minute reach
// the mind one by one; the rest of that minute join one storm, delivered as
// a single observation (the count, the titles) once the minute is over, so
// it is whole when the mind reads it. Counted in SQL under the link's row
// lock, so it holds across server instances.
import { randomUUID } from "node:crypto";
import { ALERT_LIMITS, type AlertPost } from "@/lib/sharing/wire";
import { AlertSeverity, type InboundAlert } from "@/lib/sync/inbox-wire";
import { can } from "@/lib/sharing/roles";
import type { ResolvedLink } from "../sharing/links";
import type { Sql } from "../db/sql";
import { HttpError } from "../http/route";
import { SYNC_CHANNEL } from "../sync/store";
import { lockLink, withinMinute } from "../sharing/link-rate";

const WINDOW_S = 60;

/** `stormEnds`: this alert opened a storm, whose fold is delivered once it ends (a mind put away on the server is woken for it then). */
export async function postAlert(sql: Sql, link: ResolvedLink, alert: AlertPost): Promise<{ id: string; coalesced: boolean; stormEnds?: Date }> {
  if (!can(link.holder, "alert")) throw new HttpError(403, "forbidden", "only an alert link may post alerts");
  return sql.transaction(async (tx) => {
    await lockLink(tx, link.id);
    const recent = await withinMinute(tx, "link_alerts", link.id, ALERT_LIMITS.perMinute, "alerts", "alert link");
    let storm: string | null = null;
    let stormEnds: Date | undefined;
    if (recent >= ALERT_LIMITS.burst) {
      const [open] = await tx.query<{ id: string }>("SELECT id FROM alert_storms WHERE link = $1 AND closes_at > now() ORDER BY closes_at DESC LIMIT 1", [link.id]);
      storm = open?.id ?? randomUUID();
      if (!open) {
        const [made] = await tx.query<{ closes_at: Date }>("INSERT INTO alert_storms (id, mind, link, closes_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4)) RETURNING closes_at", [storm, link.mind, link.id, WINDOW_S]);
        stormEnds = made ? new Date(made.closes_at) : undefined;
      }
    }
    const id = randomUUID();
    await tx.query("INSERT INTO link_alerts (id, mind, link, storm, severity, title, body) VALUES ($1, $2, $3, $4, $5, $6, $7)", [id, link.mind, link.id, storm, alert.severity, alert.title, alert.body || null]);
    await tx.query("SELECT pg_notify($1, $2)", [SYNC_CHANNEL, link.mind]);
    return { id, coalesced: storm !== null, ...(stormEnds ? { stormEnds } : {}) };
  });
}

const RANK = AlertSeverity.options;
const worst = (a: AlertSeverity, b: AlertSeverity): AlertSeverity => (RANK.indexOf(b) > RANK.indexOf(a) ? b : a);

/** Alerts not yet delivered, oldest first: each one alone, and each storm whose minute is over, folded into one. */
export async function pendingAlerts(sql: Sql, mind: string): Promise<InboundAlert[]> {
  const alone = await sql.query<{ id: string; link: string; label: string | null; created_at: Date; severity: AlertSeverity; title: string; body: string | null }>(
    `SELECT a.id, a.link, l.label, a.created_at, a.severity, a.title, a.body FROM link_alerts a JOIN share_links l ON l.id = a.link
     WHERE a.mind = $1 AND a.storm IS NULL AND NOT EXISTS (SELECT 1 FROM sync_steps s WHERE s.mind = a.mind AND s.step_id = a.id)
     ORDER BY a.created_at, a.id`,
    [mind],
  );
  const stormRows = await sql.query<{ storm: string; link: string; label: string | null; opened_at: Date; severity: AlertSeverity; title: string }>(
    `SELECT s.id AS storm, s.link, l.label, s.opened_at, a.severity, a.title FROM alert_storms s
     JOIN share_links l ON l.id = s.link JOIN link_alerts a ON a.storm = s.id
     WHERE s.mind = $1 AND s.closes_at <= now() AND NOT EXISTS (SELECT 1 FROM sync_steps st WHERE st.mind = s.mind AND st.step_id = s.id)
     ORDER BY s.opened_at, s.id, a.created_at, a.id`,
    [mind],
  );
  const out: InboundAlert[] = alone.map((a) => ({
    id: a.id,
    link: a.link,
    label: a.label,
    created_at: new Date(a.created_at).toISOString(),
    severity: a.severity,
    title: a.title,
    ...(a.body ? { body: a.body } : {}),
    count: 1,
    titles: [a.title],
  }));
  const storms = new Map<string, InboundAlert>();
  for (const r of stormRows) {
    const s = storms.get(r.storm);
    if (!s) {
      storms.set(r.storm, { id: r.storm, link: r.link, label: r.label, created_at: new Date(r.opened_at).toISOString(), severity: r.severity, title: r.title, count: 1, titles: [r.title] });
      continue;
    }
    s.count++;
    s.severity = worst(s.severity, r.severity);
    if (s.titles.length < ALERT_LIMITS.stormTitles) s.titles.push(r.title);
  }
  return [...out, ...storms.values()].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}
