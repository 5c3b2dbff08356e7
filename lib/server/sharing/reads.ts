import "server-only";
// What a share link reads: pages of steps, a step's place, a search, a blob.
// Every step read is bounded by the link's last_seq, so a snapshot never
// shows a step beyond its at_seq, and by what its holder may read: a guest
// reads the conversation (message steps) and nothing else.
import { SYNC_LIMITS, type WireStep } from "@/lib/sync/wire";
import { type StepPage } from "@/lib/sharing/wire";
import { can, CONVERSATION_KINDS } from "@/lib/sharing/roles";
import type { ResolvedLink } from "./links";
import type { Sql } from "../db/sql";
import { HttpError } from "../http/route";

type StepRow = { seq: string | number; traj: string; json: string };
const wire = (r: StepRow): WireStep => ({ seq: Number(r.seq), traj: r.traj, json: r.json });

function intParam(url: URL, name: string, fallback: number | undefined, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new HttpError(400, "invalid", `${name} must be a whole number ≥ 0, not ${JSON.stringify(raw)}`);
  return Math.min(n, max);
}

/** The SQL that keeps a holder without the whole stream to the conversation's kinds ("" for everyone else), its kinds pushed onto `params`. */
function kindsClause(link: ResolvedLink, params: unknown[]): string {
  return can(link.holder, "stream") ? "" : ` AND type = ANY($${params.push([...CONVERSATION_KINDS])}::text[])`;
}

/** Whether a step (as it travels) is one the link's holder may read. */
export function readableBy(link: ResolvedLink, json: string): boolean {
  if (can(link.holder, "stream")) return true;
  const type = (JSON.parse(json) as { type?: unknown }).type;
  return typeof type === "string" && CONVERSATION_KINDS.includes(type);
}

/** ?after=S (oldest first after S) or ?before=S (the newest before S, oldest first); optional traj and limit. */
export async function readSteps(sql: Sql, link: ResolvedLink, url: URL): Promise<StepPage> {
  const limit = intParam(url, "limit", SYNC_LIMITS.readSteps, SYNC_LIMITS.readSteps)!;
  const before = intParam(url, "before", undefined);
  const after = intParam(url, "after", 0)!;
  const traj = url.searchParams.get("traj");
  const params: unknown[] = [link.mind, link.last_seq, limit];
  const trajClause = (traj ? ` AND traj = $${params.push(traj)}` : "") + kindsClause(link, params);
  let rows: StepRow[];
  if (before !== undefined) {
    params.push(before);
    rows = await sql.query<StepRow>(`SELECT seq, traj, json FROM sync_steps WHERE mind = $1 AND seq <= $2 AND seq < $${params.length}${trajClause} ORDER BY seq DESC LIMIT $3`, params);
    rows.reverse();
  } else {
    params.push(after);
    rows = await sql.query<StepRow>(`SELECT seq, traj, json FROM sync_steps WHERE mind = $1 AND seq <= $2 AND seq > $${params.length}${trajClause} ORDER BY seq LIMIT $3`, params);
  }
  return { steps: rows.map(wire), last_seq: link.last_seq };
}

/** Steps of a mind after `after`, up to `limit`: what a live stream sends. */
export async function stepsAfter(sql: Sql, mind: string, after: number, limit = SYNC_LIMITS.readSteps): Promise<WireStep[]> {
  const rows = await sql.query<StepRow>("SELECT seq, traj, json FROM sync_steps WHERE mind = $1 AND seq > $2 ORDER BY seq LIMIT $3", [mind, after, limit]);
  return rows.map(wire);
}

export async function locateStep(sql: Sql, link: ResolvedLink, stepId: string): Promise<{ seq: number; traj: string }> {
  const params: unknown[] = [link.mind, stepId, link.last_seq];
  const [row] = await sql.query<{ seq: string | number; traj: string }>(`SELECT seq, traj FROM sync_steps WHERE mind = $1 AND step_id = $2 AND seq <= $3${kindsClause(link, params)}`, params);
  if (!row) throw new HttpError(404, "not_found", "no such step in this link");
  return { seq: Number(row.seq), traj: row.traj };
}

const SEARCH_DEFAULT = 200;

/** A case-insensitive substring search over the steps' JSON, oldest first. */
export async function searchSteps(sql: Sql, link: ResolvedLink, url: URL): Promise<{ hits: { seq: number; id: string; traj: string }[]; truncated: boolean }> {
  const q = url.searchParams.get("q") ?? "";
  if (!q.trim()) throw new HttpError(400, "invalid", "search needs a non-empty q");
  if (q.length > 500) throw new HttpError(400, "invalid", "q is over 500 characters");
  const limit = Math.max(1, intParam(url, "limit", SEARCH_DEFAULT, SYNC_LIMITS.readSteps)!);
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const params: unknown[] = [link.mind, link.last_seq, pattern, limit + 1];
  const rows = await sql.query<{ seq: string | number; step_id: string; traj: string }>(
    `SELECT seq, step_id, traj FROM sync_steps WHERE mind = $1 AND seq <= $2 AND json ILIKE $3${kindsClause(link, params)} ORDER BY seq LIMIT $4`,
    params,
  );
  return { hits: rows.slice(0, limit).map((r) => ({ seq: Number(r.seq), id: r.step_id, traj: r.traj })), truncated: rows.length > limit };
}

export async function readBlob(sql: Sql, mind: string, name: string): Promise<string> {
  const [row] = await sql.query<{ content: string }>("SELECT content FROM sync_blobs WHERE mind = $1 AND name = $2", [mind, name]);
  if (!row) throw new HttpError(404, "not_found", "no such blob");
  return row.content;
}
