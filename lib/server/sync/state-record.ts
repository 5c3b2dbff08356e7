import "server-only";
// A synced mind's state beyond its steps and workspace, as sync reads and
// writes it: the sealed summaries (mind_tiers, sealed once each), and the
// record (sync_minds.settings / shell / pacing). And the summary of all of it
// that a home reads before it pulls. Writes are locked, fenced and counted
// against the mind's bytes like every other write (state-lock.ts).
import { PacingSnapshot, ShellState } from "@/lib/mind/state/state";
import { SyncedSettings, WireTier, type MindStateSummary, type RecordWrite, type TiersSealed, type TiersWrite } from "@/lib/sync/state-wire";
import type { Sql } from "../db/sql";
import type { SyncQuotas } from "../sharing/quotas";
import { listFiles } from "./state-files";
import { addBytes, lockForWrite } from "./state-lock";
import { HttpError } from "../http/route";
import { checkBytes, quotaOf } from "./quota";

/** A stored JSON column through its schema: damaged or absent is null. */
function parsed<T>(text: string | null, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }): T | null {
  if (!text) return null;
  try {
    const r = schema.safeParse(JSON.parse(text));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/** What the server holds of the mind beyond its steps. */
export async function stateSummary(sql: Sql, mind: string): Promise<MindStateSummary> {
  const [row] = await sql.query<{ settings: string | null; shell: string | null; pacing: string | null }>("SELECT settings, shell, pacing FROM sync_minds WHERE id = $1", [mind]);
  if (!row) throw new HttpError(404, "not_found", "no such mind");
  const tiers = await sql.query<{ traj: string; tier: number; idx: number }>("SELECT traj, tier, idx FROM mind_tiers WHERE mind = $1 ORDER BY traj, tier, idx", [mind]);
  return {
    settings: parsed(row.settings, SyncedSettings),
    shell: parsed(row.shell, ShellState),
    pacing: parsed(row.pacing, PacingSnapshot),
    files: await listFiles(sql, mind),
    tiers: tiers.map((t) => ({ traj: t.traj, tier: Number(t.tier), index: Number(t.idx) })),
  };
}

/** A summary as it travels: its seqs are a home's own numbering, so they stay behind. */
const withoutSeqs = ({ first_seq: _f, last_seq: _l, ...rest }: WireTier): WireTier => rest;

/**
 * Seal each summary once (one already sealed stays as it was); its seqs are
 * this server's, read from its steps. A summary whose first or last step the
 * server does not hold waits (it is not sealed, and is named in `waiting`):
 * its steps are not uploaded yet, or were never accepted (a tab's steps
 * after it lost the lease, which its pull sets aside). Sealed, it would take
 * the block's place for good though it does not fit this server's stream,
 * and a runner's summarizer could never seal its own.
 */
export async function sealTiers(sql: Sql, mind: string, write: TiersWrite, quotas: SyncQuotas): Promise<TiersSealed> {
  return sql.transaction(async (tx) => {
    const held = await lockForWrite(tx, mind, write.epoch);
    const ids = [...new Set(write.tiers.flatMap((t) => [t.first_step, t.last_step]))];
    const seqs = new Map((await tx.query<{ step_id: string; seq: string | number }>("SELECT step_id, seq FROM sync_steps WHERE mind = $1 AND step_id = ANY($2::text[])", [mind, ids])).map((r) => [r.step_id, Number(r.seq)]));
    let sealed = 0;
    let bytes = 0;
    /** The waiting ones' bytes count against the quota too: a write that could not be stored later is refused now, whole. */
    let waitingBytes = 0;
    const waiting: TiersSealed["waiting"] = [];
    for (const t of write.tiers) {
      const first = seqs.get(t.first_step);
      const last = seqs.get(t.last_step);
      const json = JSON.stringify({ ...withoutSeqs(t), ...(first !== undefined && last !== undefined ? { first_seq: first, last_seq: last } : {}) });
      if (first === undefined || last === undefined) {
        waiting.push({ tier: t.tier, index: t.index });
        waitingBytes += Buffer.byteLength(json, "utf8");
        continue;
      }
      const inserted = await tx.query("INSERT INTO mind_tiers (mind, traj, tier, idx, json) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING idx", [mind, write.traj, t.tier, t.index, json]);
      if (inserted.length) {
        sealed++;
        bytes += Buffer.byteLength(json, "utf8");
      }
    }
    if (bytes + waitingBytes > 0) await checkBytes(tx, held, bytes + waitingBytes, "these summaries", quotas);
    await addBytes(tx, mind, bytes);
    return { sealed, already: write.tiers.length - sealed - waiting.length, waiting, quota: quotaOf({ ...held, bytes: held.bytes + bytes }, quotas) };
  });
}

/** The summaries of `keys` the server holds, for one trajectory. */
export async function readTiers(sql: Sql, mind: string, traj: string, keys: { tier: number; index: number }[]): Promise<WireTier[]> {
  const rows = await sql.query<{ json: string }>(
    "SELECT json FROM mind_tiers WHERE mind = $1 AND traj = $2 AND (tier, idx) IN (SELECT * FROM unnest($3::int[], $4::int[])) ORDER BY tier, idx",
    [mind, traj, keys.map((k) => k.tier), keys.map((k) => k.index)],
  );
  return rows.flatMap((r) => {
    const t = parsed(r.json, WireTier);
    return t ? [withoutSeqs(t)] : [];
  });
}

/** Replace the parts of the record the write carries. */
export async function writeRecord(sql: Sql, mind: string, write: RecordWrite, quotas: SyncQuotas): Promise<{ quota: ReturnType<typeof quotaOf> }> {
  return sql.transaction(async (tx) => {
    const held = await lockForWrite(tx, mind, write.epoch);
    const [old] = await tx.query<{ settings: number | null; shell: number | null; pacing: number | null }>(
      "SELECT octet_length(settings) AS settings, octet_length(shell) AS shell, octet_length(pacing) AS pacing FROM sync_minds WHERE id = $1",
      [mind],
    );
    const parts = { settings: write.settings, shell: write.shell, pacing: write.pacing };
    let delta = 0;
    for (const [column, value] of Object.entries(parts) as [keyof typeof parts, unknown][]) {
      if (value === undefined) continue;
      const text = JSON.stringify(value);
      delta += Buffer.byteLength(text, "utf8") - Number(old?.[column] ?? 0);
      await tx.query(`UPDATE sync_minds SET ${column} = $2 WHERE id = $1`, [mind, text]);
    }
    if (delta > 0) await checkBytes(tx, held, delta, "this record", quotas);
    await addBytes(tx, mind, delta);
    return { quota: quotaOf({ ...held, bytes: Math.max(0, held.bytes + delta) }, quotas) };
  });
}
