import "server-only";
// Everything waiting to come in for a mind, not yet a step of it: what its
// tab reads through GET /inbox and what the server's own way in
// (../state/inbound.ts) delivers when it hosts the mind.
import type { InboxContent } from "@/lib/sync/inbox-wire";
import type { Sql } from "../db/sql";
import { pendingAlerts } from "./alerts";
import { pendingControls } from "./controls";
import { pendingCurations } from "./curations";
import { inbox } from "./messages";

export async function inboxContent(sql: Sql, mind: string): Promise<InboxContent> {
  return { messages: await inbox(sql, mind), controls: await pendingControls(sql, mind), alerts: await pendingAlerts(sql, mind), curations: await pendingCurations(sql, mind) };
}
