import "server-only";
// Share links: capabilities in a URL. A link row holds only its token's
// digest; holding the token is the whole permission, so lookups go by digest
// and the digest is compared in constant time before it counts.
import { randomUUID } from "node:crypto";
import { sharePath, type CreatedLink, type LinkInfo, type LinkKind } from "@/lib/sharing/wire";
import { Token } from "@/lib/sync/wire";
import { DEFAULT_INVITE_ROLE, type Holder, type InviteRole } from "@/lib/sharing/roles";
import type { Sql } from "../db/sql";
import { HttpError, notFound } from "../http/route";
import { QUOTA_VARS } from "./quotas";
import { SYNC_CHANNEL } from "../sync/store";
import { hashToken, newToken, tokenMatches } from "./tokens";

const iso = (v: unknown): string => new Date(v as string | Date).toISOString();

/** `maxLinks`: links (revoked ones too: each is a row) one mind may have made. */
export async function createLink(sql: Sql, mind: string, req: { kind: LinkKind; at_seq?: number; label?: string; role?: InviteRole }, maxLinks: number): Promise<CreatedLink> {
  const [m] = await sql.query<{ last_seq: string | number; links: number }>("SELECT last_seq, (SELECT count(*)::int FROM share_links WHERE mind = $1) AS links FROM sync_minds WHERE id = $1", [mind]);
  if (!m) throw new HttpError(404, "not_found", "no such mind");
  if (m.links >= maxLinks) {
    throw new HttpError(429, "quota", `this mind has made ${m.links} links, its limit (${QUOTA_VARS.linksPerMind}); nothing was created. Share an existing link, or ask the host to raise the limit.`);
  }
  const last = Number(m.last_seq);
  let atSeq: number | null = null;
  if (req.kind === "snapshot") {
    atSeq = req.at_seq ?? last;
    if (atSeq > last) throw new HttpError(400, "invalid", `at_seq ${atSeq} is beyond the synced steps (the server has up to ${last}); sync first`);
  }
  const role = req.kind === "invite" ? (req.role ?? DEFAULT_INVITE_ROLE) : null;
  const id = randomUUID();
  const token = newToken();
  await sql.query("INSERT INTO share_links (id, mind, kind, token_hash, at_seq, label, role) VALUES ($1, $2, $3, $4, $5, $6, $7)", [id, mind, req.kind, hashToken(token), atSeq, req.label ?? null, role]);
  return { id, kind: req.kind, token, path: sharePath(token), at_seq: atSeq, role };
}

export async function listLinks(sql: Sql, mind: string): Promise<LinkInfo[]> {
  const links = await sql.query<{ id: string; kind: LinkKind; role: InviteRole | null; label: string | null; at_seq: string | number | null; created_at: Date; revoked_at: Date | null }>(
    "SELECT id, kind, role, label, at_seq, created_at, revoked_at FROM share_links WHERE mind = $1 ORDER BY created_at, id",
    [mind],
  );
  const guests = await sql.query<{ link: string; from_name: string; messages: number; last_at: Date }>(
    "SELECT link, from_name, count(*)::int AS messages, max(created_at) AS last_at FROM guest_messages WHERE mind = $1 GROUP BY link, from_name ORDER BY max(created_at) DESC",
    [mind],
  );
  return links.map((l) => ({
    id: l.id,
    kind: l.kind,
    role: l.role,
    label: l.label,
    at_seq: l.at_seq === null ? null : Number(l.at_seq),
    created_at: iso(l.created_at),
    revoked_at: l.revoked_at ? iso(l.revoked_at) : null,
    guests: guests.filter((g) => g.link === l.id).map((g) => ({ name: g.from_name, messages: Number(g.messages), last_at: iso(g.last_at) })),
  }));
}

/** Revokes at once; the notify wakes every instance's live streams of this mind so they end now, not at their next check. */
export async function revokeLink(sql: Sql, mind: string, id: string): Promise<void> {
  await sql.transaction(async (tx) => {
    const rows = await tx.query("UPDATE share_links SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND mind = $2 RETURNING id", [id, mind]);
    if (!rows.length) throw new HttpError(404, "not_found", "this mind has no such link");
    await tx.query("SELECT pg_notify($1, $2)", [SYNC_CHANNEL, mind]);
  });
}

export interface ResolvedLink {
  id: string;
  mind: string;
  kind: LinkKind;
  /** What its holder may do (lib/sharing/roles.ts). */
  holder: Holder;
  /** A snapshot's bound; null for live and invite. */
  at_seq: number | null;
  name: string;
  /** The newest seq this link may read now. */
  last_seq: number;
}

/** The live link a token opens, or 404 for anything else (malformed, unknown, revoked), all alike. */
export async function resolveLink(sql: Sql, token: string): Promise<ResolvedLink> {
  if (!Token.safeParse(token).success) throw notFound();
  const digest = hashToken(token);
  const [row] = await sql.query<{ id: string; mind: string; kind: LinkKind; role: InviteRole | null; at_seq: string | number | null; token_hash: Uint8Array; revoked_at: Date | null; name: string; last_seq: string | number }>(
    `SELECT l.id, l.mind, l.kind, l.role, l.at_seq, l.token_hash, l.revoked_at, m.name, m.last_seq
     FROM share_links l JOIN sync_minds m ON m.id = l.mind WHERE l.token_hash = $1`,
    [digest],
  );
  if (!tokenMatches(token, row?.token_hash) || !row || row.revoked_at) throw notFound();
  const atSeq = row.at_seq === null ? null : Number(row.at_seq);
  const last = Number(row.last_seq);
  const holder: Holder = row.kind === "invite" ? { kind: "invite", role: row.role ?? DEFAULT_INVITE_ROLE } : { kind: row.kind };
  return { id: row.id, mind: row.mind, kind: row.kind, holder, at_seq: atSeq, name: row.name, last_seq: atSeq === null ? last : Math.min(atSeq, last) };
}
