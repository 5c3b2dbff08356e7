import "server-only";
// Everything waiting to come in for a mind, not yet a step of it: what its
// tab reads through GET /inbox and what the server's own way in
// (../state/inbound.ts) delivers when it hosts the mind. Its owner's own
// (owner.ts) come back to its own browser too: the home holding the mind takes
// them, and a step of theirs already there is not taken twice.
import type { InboxContent } from "@/lib/sync/inbox-wire";
import type { Sql } from "../db/sql";
import { pendingAlerts } from "./alerts";
import { pendingControls } from "./controls";
import { pendingCurations } from "./curations";
import { inbox } from "./messages";
import { pendingOwnerChanges } from "./owner";

export async function inboxContent(sql: Sql, mind: string): Promise<InboxContent> {
  return { messages: await inbox(sql, mind), controls: await pendingControls(sql, mind), alerts: await pendingAlerts(sql, mind), curations: await pendingCurations(sql, mind), owner: await pendingOwnerChanges(sql, mind) };
}
