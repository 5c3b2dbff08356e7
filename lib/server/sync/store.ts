import "server-only";
// A synced mind on the server: created by its browser's first sync (which
// gets the write token), then fed batches of steps in the browser's own seq
// order. Append-only and idempotent by step id; a batch is all or nothing.
// Every write checks the quotas (sync-quota.ts) in its own transaction, and
// keeps the mind's counters (bytes, steps, blobs) with it.
import { randomUUID } from "node:crypto";
import { SYNC_LIMITS, type OwnSteps, type SyncState, type Upload, type Uploaded, type WireTrajectory } from "@/lib/sync/wire";
import { parseStep } from "@/lib/trajectory/schema";
import type { Sql } from "../db/sql";
import type { SyncQuotas } from "../sharing/quotas";
import { checkBlob, checkCreate, checkSteps, quotaOf, type Creator, type Held } from "./quota";
import { HttpError } from "../http/route";
import { checkFence } from "../state/lease";
import { writeSteps } from "./steps";
import { hashToken, newToken, tokenMatches } from "../sharing/tokens";

export { SYNC_CHANNEL } from "./steps";

export async function createMind(sql: Sql, name: string, who: Creator, quotas: SyncQuotas): Promise<{ mind: string; write_token: string }> {
  const mind = randomUUID();
  const token = newToken();
  await sql.transaction(async (tx) => {
    await checkCreate(tx, who, quotas);
    await tx.query("INSERT INTO sync_minds (id, name, write_token_hash, client_id, client_addr) VALUES ($1, $2, $3, $4, $5)", [mind, name, hashToken(token), who.clientId, who.addr]);
  });
  return { mind, write_token: token };
}

type HeldRow = { bytes: string | number; step_count: string | number; blob_count: string | number };
const heldOf = (r: HeldRow): Held => ({ bytes: Number(r.bytes), steps: Number(r.step_count), blobs: Number(r.blob_count) });

/** Refuses (401) unless `token` is this mind's write token; an unknown mind is refused the same way, after the same comparison. */
export async function authorizeMind(sql: Sql, mind: string, token: string | undefined): Promise<void> {
  if (token === undefined) throw new HttpError(401, "unauthorized", "this route needs the mind's write token (Authorization: Bearer <token>)");
  const rows = await sql.query<{ write_token_hash: Uint8Array }>("SELECT write_token_hash FROM sync_minds WHERE id = $1", [mind]);
  if (!tokenMatches(token, rows[0]?.write_token_hash)) throw new HttpError(401, "unauthorized", "wrong write token for this mind (or no such mind)");
}

export async function syncState(sql: Sql, mind: string, quotas: SyncQuotas): Promise<SyncState> {
  const [row] = await sql.query<
    { name: string; last_seq: string | number; last_step_id: string | null; keep_alive: boolean; halted: boolean; holder: string | null; epoch: string | number | null; expires_at: Date | string | null; live: boolean | null } & HeldRow
  >(
    `SELECT m.name, m.last_seq, m.bytes, m.step_count, m.blob_count, m.keep_alive, m.halted_at IS NOT NULL AS halted,
       (SELECT s.step_id FROM sync_steps s WHERE s.mind = m.id AND s.seq = m.last_seq) AS last_step_id,
       l.holder, l.epoch, l.expires_at, l.expires_at > now() AS live
     FROM sync_minds m LEFT JOIN mind_leases l ON l.mind = m.id WHERE m.id = $1`,
    [mind],
  );
  if (!row) throw new HttpError(404, "not_found", "no such mind");
  const held = heldOf(row);
  const lease = row.holder !== null && row.epoch !== null && row.expires_at !== null ? { holder: row.holder, epoch: Number(row.epoch), expires_at: new Date(row.expires_at).toISOString(), live: Boolean(row.live) } : null;
  return {
    mind,
    name: row.name,
    last_seq: Number(row.last_seq),
    ...(row.last_step_id ? { last_step_id: row.last_step_id } : {}),
    steps: held.steps,
    quota: quotaOf(held, quotas),
    home: { keep_alive: Boolean(row.keep_alive), halted: Boolean(row.halted), lease },
  };
}

/** The mind's steps after `after` (its own browser pulling what another home wrote), with every trajectory they are in. */
export async function ownSteps(sql: Sql, mind: string, after: number, limit: number): Promise<OwnSteps> {
  const [m] = await sql.query<{ last_seq: string | number }>("SELECT last_seq FROM sync_minds WHERE id = $1", [mind]);
  if (!m) throw new HttpError(404, "not_found", "no such mind");
  const rows = await sql.query<{ seq: string | number; traj: string; json: string }>("SELECT seq, traj, json FROM sync_steps WHERE mind = $1 AND seq > $2 ORDER BY seq LIMIT $3", [mind, after, limit]);
  const steps = rows.map((r) => ({ seq: Number(r.seq), traj: r.traj, json: r.json }));
  const used = new Set(steps.map((st) => st.traj));
  const trajectories = (await readTrajectories(sql, mind)).filter((t) => used.has(t.traj));
  return { steps, last_seq: Number(m.last_seq), trajectories };
}

type Checked = { seq: number; traj: string; json: string; step_id: string; type: string };

/** Checks every step before any is written: sizes (413), increasing seqs after `after`, JSON that parses as a step, no id twice (400). */
function checkBatch(upload: Upload): Checked[] {
  const out: Checked[] = [];
  const ids = new Set<string>();
  let prev = upload.after;
  for (const [i, s] of upload.steps.entries()) {
    if (Buffer.byteLength(s.json, "utf8") > SYNC_LIMITS.stepBytes) throw new HttpError(413, "too_large", `step ${i} (seq ${s.seq}) is over ${SYNC_LIMITS.stepBytes} bytes`);
    if (s.seq <= prev) throw new HttpError(400, "invalid", `step ${i}: seq ${s.seq} does not follow ${prev} (seqs increase, starting after \`after\`)`);
    prev = s.seq;
    let value: unknown;
    try {
      value = JSON.parse(s.json);
    } catch {
      throw new HttpError(400, "invalid", `step ${i} (seq ${s.seq}): json is not JSON`);
    }
    const parsed = parseStep(value);
    if (!parsed.ok) throw new HttpError(400, "invalid", `step ${i} (seq ${s.seq}) is not a step: ${parsed.error}`);
    const { step_id, type } = parsed.step;
    if (ids.has(step_id)) throw new HttpError(400, "invalid", `step ${i} (seq ${s.seq}): step_id ${step_id} appears twice in the batch`);
    ids.add(step_id);
    out.push({ seq: s.seq, traj: s.traj, json: s.json, step_id, type });
  }
  return out;
}

/** The gap / conflict / idempotent rules of lib/sync/wire.ts `Upload`, in one transaction. */
export async function uploadSteps(sql: Sql, mind: string, upload: Upload, quotas: SyncQuotas): Promise<Uploaded> {
  const steps = checkBatch(upload);
  return sql.transaction(async (tx) => {
    // The row lock orders concurrent uploads of one mind (two tabs, two instances).
    const [row] = await tx.query<{ last_seq: string | number } & HeldRow>("SELECT last_seq, bytes, step_count, blob_count FROM sync_minds WHERE id = $1 FOR UPDATE", [mind]);
    if (!row) throw new HttpError(404, "not_found", "no such mind");
    await checkFence(tx, mind, upload.epoch);
    const last = Number(row.last_seq);
    if (upload.after > last) throw new HttpError(409, "gap", `this batch follows seq ${upload.after} but the server has steps only up to ${last}; resend from ${last}`, { last_seq: last });
    const known = new Map<string, number>();
    if (steps.length) {
      const rows = await tx.query<{ step_id: string; seq: string | number }>("SELECT step_id, seq FROM sync_steps WHERE mind = $1 AND step_id = ANY($2::text[])", [mind, steps.map((s) => s.step_id)]);
      for (const r of rows) known.set(r.step_id, Number(r.seq));
    }
    const added: Checked[] = [];
    let skipped = 0;
    for (const s of steps) {
      const at = known.get(s.step_id);
      if (s.seq <= last && at !== undefined) skipped++;
      else if (at !== undefined || s.seq <= last) {
        const why = at !== undefined ? `step ${s.step_id} is already stored at seq ${at}` : `the server already holds a different step at or below seq ${last}`;
        throw new HttpError(409, "conflict", `seq ${s.seq}: ${why}; nothing was written`, { last_seq: last });
      } else added.push(s);
    }
    const held = heldOf(row);
    let newLast = last;
    if (added.length) {
      const bytes = added.reduce((n, s) => n + Buffer.byteLength(s.json, "utf8"), 0);
      await checkSteps(tx, held, added.length, bytes, quotas);
      newLast = (await writeSteps(tx, mind, added)).last;
      held.bytes += bytes;
      held.steps += added.length;
    }
    if (upload.trajectories?.length) await upsertTrajectories(tx, mind, upload.trajectories);
    return { last_seq: newLast, added: added.length, skipped, quota: quotaOf(held, quotas) };
  });
}

async function upsertTrajectories(tx: Sql, mind: string, trajectories: WireTrajectory[]): Promise<void> {
  for (const t of trajectories) {
    await tx.query(
      `INSERT INTO sync_trajectories (mind, traj, name, dir, parent_traj, parent_step) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (mind, traj) DO UPDATE SET name = EXCLUDED.name, dir = EXCLUDED.dir, parent_traj = EXCLUDED.parent_traj, parent_step = EXCLUDED.parent_step`,
      [mind, t.traj, t.name, t.dir, t.parent_traj ?? null, t.parent_step ?? null],
    );
  }
}

/** Blobs never change: the same text again is a no-op, different text under the same name is 409. */
export async function putBlob(sql: Sql, mind: string, name: string, content: string, quotas: SyncQuotas, epoch?: number): Promise<void> {
  await sql.transaction(async (tx) => {
    const [row] = await tx.query<HeldRow>("SELECT bytes, step_count, blob_count FROM sync_minds WHERE id = $1 FOR UPDATE", [mind]);
    if (!row) throw new HttpError(404, "not_found", "no such mind");
    await checkFence(tx, mind, epoch);
    const [stored] = await tx.query<{ same: boolean }>("SELECT content = $3 AS same FROM sync_blobs WHERE mind = $1 AND name = $2", [mind, name, content]);
    if (stored) {
      if (!stored.same) throw new HttpError(409, "conflict", `blob ${name} is already stored with different content (blobs never change)`);
      return;
    }
    const bytes = Buffer.byteLength(content, "utf8");
    await checkBlob(tx, heldOf(row), bytes, quotas);
    await tx.query("INSERT INTO sync_blobs (mind, name, content) VALUES ($1, $2, $3)", [mind, name, content]);
    await tx.query("UPDATE sync_minds SET bytes = bytes + $2, blob_count = blob_count + 1 WHERE id = $1", [mind, bytes]);
  });
}

/** A mind's trajectories; given a snapshot's bound, only those with a step at or before it (a later fork's name is later content). */
export async function readTrajectories(sql: Sql, mind: string, atSeq: number | null = null): Promise<WireTrajectory[]> {
  const rows = await sql.query<{ traj: string; name: string; dir: string; parent_traj: string | null; parent_step: string | null }>(
    `SELECT traj, name, dir, parent_traj, parent_step FROM sync_trajectories t WHERE mind = $1
     AND ($2::bigint IS NULL OR EXISTS (SELECT 1 FROM sync_steps s WHERE s.mind = t.mind AND s.traj = t.traj AND s.seq <= $2))
     ORDER BY parent_traj IS NOT NULL, traj`,
    [mind, atSeq],
  );
  return rows.map((r) => ({ traj: r.traj, name: r.name, dir: r.dir, ...(r.parent_traj ? { parent_traj: r.parent_traj } : {}), ...(r.parent_step ? { parent_step: r.parent_step } : {}) }));
}
