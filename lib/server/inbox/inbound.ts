import "server-only";
// Which of a runner's minds have something waiting to come in: a guest's
// message, an operator's control request or change to its memory, its
// owner's own (a message, its settings, a change), an alert,
// or an alert storm whose minute is over, none of them yet a step of the
// mind (a step with the request's id). One query for the runner's poll.
import type { Sql } from "../db/sql";

const NOT_DELIVERED = (alias: string, id = "id") => `NOT EXISTS (SELECT 1 FROM sync_steps s WHERE s.mind = ${alias}.mind AND s.step_id = ${alias}.${id})`;

export async function mindsWithInbound(sql: Sql, minds: string[]): Promise<string[]> {
  if (!minds.length) return [];
  const rows = await sql.query<{ mind: string }>(
    `SELECT g.mind FROM guest_messages g WHERE g.mind = ANY($1::text[]) AND ${NOT_DELIVERED("g")}
     UNION SELECT c.mind FROM mind_controls c WHERE c.mind = ANY($1::text[]) AND ${NOT_DELIVERED("c")}
     UNION SELECT k.mind FROM mind_curations k WHERE k.mind = ANY($1::text[]) AND ${NOT_DELIVERED("k")}
     UNION SELECT o.mind FROM owner_changes o WHERE o.mind = ANY($1::text[]) AND ${NOT_DELIVERED("o")}
     UNION SELECT a.mind FROM link_alerts a WHERE a.mind = ANY($1::text[]) AND a.storm IS NULL AND ${NOT_DELIVERED("a")}
     UNION SELECT st.mind FROM alert_storms st WHERE st.mind = ANY($1::text[]) AND st.closes_at <= now() AND ${NOT_DELIVERED("st")}`,
    [minds],
  );
  return rows.map((r) => r.mind);
}
