import "server-only";
// What a mind's own browser hands it while another home holds it (its lease
// is on the server, or in another browser): a person's message, its settings
// (a config step with the keyless settings it records), a change to its
// memory or its own texts. Kept, as an operator's changes are, until the
// mind's home records a step with the change's id; the same id posted again
// is taken once.
import { OWNER_STEP_KINDS, OwnerChange } from "@/lib/sync/inbox-wire";
import { parseStep } from "@/lib/trajectory/schema";
import type { Sql } from "../db/sql";
import { HttpError } from "../http/route";
import { SYNC_CHANNEL } from "../sync/steps";

/** Keep `change` for the mind; false when one of its id was kept already. A step that is not a message or a config step of the mind's is refused (400). */
export async function postOwnerChange(sql: Sql, mind: string, change: OwnerChange): Promise<boolean> {
  if (change.kind === "step") {
    const step = parseStep(change.step);
    if (!step.ok) throw new HttpError(400, "invalid", `the step is not a step: ${step.error}`);
    if (!OWNER_STEP_KINDS.some((k) => k === step.step.type)) throw new HttpError(400, "invalid", `a mind's owner hands it ${OWNER_STEP_KINDS.join(" or ")} steps, not ${step.step.type}`);
    if (step.step.step_id !== change.id.toLowerCase()) throw new HttpError(400, "invalid", "a step's change has the step's id");
    if (step.step.type === "config" && !change.settings) throw new HttpError(400, "invalid", "a config step comes with the settings it records");
  }
  return sql.transaction(async (tx) => {
    const kept = await tx.query("INSERT INTO owner_changes (id, mind, change) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id", [change.id.toLowerCase(), mind, JSON.stringify(change)]);
    if (kept.length) await tx.query("SELECT pg_notify($1, $2)", [SYNC_CHANNEL, mind]);
    return kept.length > 0;
  });
}

/** What the owner handed in that the mind has no step of yet, oldest first; a row that no longer reads as a change is left out. */
export async function pendingOwnerChanges(sql: Sql, mind: string): Promise<OwnerChange[]> {
  const rows = await sql.query<{ change: unknown }>(
    `SELECT o.change FROM owner_changes o WHERE o.mind = $1 AND NOT EXISTS (SELECT 1 FROM sync_steps s WHERE s.mind = o.mind AND s.step_id = o.id) ORDER BY o.created_at, o.id`,
    [mind],
  );
  return rows.flatMap((r) => {
    const parsed = OwnerChange.safeParse(typeof r.change === "string" ? JSON.parse(r.change) : r.change);
    return parsed.success ? [parsed.data] : [];
  });
}
