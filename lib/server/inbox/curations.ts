import "server-only";
// An operator's changes to the mind's memories and goals from an invite page
// (lib/shell/curation.ts). Queued like control requests until the mind's
// home, a tab or the server runner, applies the change to its files and
// records it as a step with the request's id; what the page shows is read
// from the mind's workspace as the server has it (synced from its tab, or
// written by its runner).
import { randomUUID } from "node:crypto";
import { INVITE_LIMITS, type CurationPost, type SharedMemory } from "@/lib/sharing/wire";
import { type InboundCuration } from "@/lib/sync/inbox-wire";
import { can } from "@/lib/sharing/roles";
import { FOCUS_FILE, focusLines, openThenDone, parseGoals } from "@/lib/shell/focus-file";
import { MEMORY_DIR, memoryIdOf, newestFirst, parseMemory } from "@/lib/shell/memory-file";
import { Curation } from "@/lib/shell/curation";
import type { ResolvedLink } from "../sharing/links";
import type { Sql } from "../db/sql";
import { HttpError } from "../http/route";
import { SYNC_CHANNEL } from "../sync/store";
import { lockLink, withinMinute } from "../sharing/link-rate";
import { UNNAMED_OPERATOR } from "./controls";

export async function postCuration(sql: Sql, link: ResolvedLink, post: CurationPost): Promise<{ id: string }> {
  if (!can(link.holder, "curate")) throw new HttpError(403, "forbidden", "this link may not change the mind's memories or goals; only an operator's invite may");
  const { from, ...request } = post;
  return sql.transaction(async (tx) => {
    await lockLink(tx, link.id);
    await withinMinute(tx, "mind_curations", link.id, INVITE_LIMITS.perMinute, "changes to the mind's memory");
    const id = randomUUID();
    await tx.query("INSERT INTO mind_curations (id, mind, link, from_name, request) VALUES ($1, $2, $3, $4, $5)", [id, link.mind, link.id, from?.trim() || UNNAMED_OPERATOR, JSON.stringify(request)]);
    await tx.query("SELECT pg_notify($1, $2)", [SYNC_CHANNEL, link.mind]);
    return { id };
  });
}

/** Changes not yet recorded in the mind's trajectory (no step with the request's id), oldest first. A row that no longer reads as a change is left out. */
export async function pendingCurations(sql: Sql, mind: string): Promise<InboundCuration[]> {
  const rows = await sql.query<{ id: string; from_name: string; request: unknown; created_at: Date; link: string }>(
    `SELECT c.id, c.from_name, c.request, c.created_at, c.link FROM mind_curations c
     WHERE c.mind = $1 AND NOT EXISTS (SELECT 1 FROM sync_steps s WHERE s.mind = c.mind AND s.step_id = c.id)
     ORDER BY c.created_at, c.id`,
    [mind],
  );
  return rows.flatMap((r) => {
    const request = typeof r.request === "string" ? (JSON.parse(r.request) as unknown) : r.request;
    const c = Curation.safeParse({ ...(request as object), id: r.id, by: r.from_name === UNNAMED_OPERATOR ? "" : r.from_name, role: "operator" });
    return c.success ? [{ ...c.data, created_at: new Date(r.created_at).toISOString(), link: r.link }] : [];
  });
}

/** The mind's goals and memories as its synced workspace holds them, and the changes still waiting. */
export async function sharedMemory(sql: Sql, mind: string): Promise<SharedMemory> {
  const rows = await sql.query<{ path: string; data: Uint8Array | null; mtime: string | number }>(
    `SELECT path, data, mtime FROM mind_files WHERE mind = $1 AND kind = 'file' AND (path = $2 OR (path LIKE $3 AND path NOT LIKE $4))`,
    [mind, FOCUS_FILE, `${MEMORY_DIR}/%.md`, `${MEMORY_DIR}/%/%`],
  );
  const text = (data: Uint8Array | null) => new TextDecoder().decode(data ?? new Uint8Array());
  const focus = rows.find((r) => r.path === FOCUS_FILE);
  const memories = rows.flatMap((r) => {
    const id = memoryIdOf(r.path);
    return id === null ? [] : [parseMemory(id, text(r.data), new Date(Number(r.mtime)).toISOString())];
  });
  return { goals: focus ? openThenDone(parseGoals(focusLines(text(focus.data)))) : [], memories: newestFirst(memories), pending: await pendingCurations(sql, mind) };
}
