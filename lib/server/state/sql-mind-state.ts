import "server-only";
// A running mind's state in SQL (PGlite or PostgreSQL): the server's home of
// the MindState port (lib/mind/state/state.ts), for a mind that goes on living
// while no tab is open. It keeps what every home keeps (the contract suite in
// test/unit/helpers/mind-state-contract.ts runs against it on both engines).
//
// It writes where sync writes: a mind's steps are its rows in sync_steps, in
// its one seq order, through sync's one writer of them (../sync/steps.ts),
// so a share link and the tab's next pull see the server's steps like any
// uploaded ones; blobs and trajectories likewise. What only a running mind
// needs (usage rows, context records, sealed summaries, the workspace, the
// settings and the shell state) has its own tables (migration 5). One
// `append` is one transaction. Given its lease epoch, every write is fenced
// (lease.ts): once another home holds the mind, this one writes nothing.
import { inStream } from "../../context/build";
import { TierLine } from "../../context/rollups";
import type { FoundStep } from "../../mind/ports";
import { InvalidStepError, PacingSnapshot, ShellState, type FileRecord, type MindRecord, type MindState, type StateBatch, type TierStorePort } from "../../mind/state/state";
import { trajDirName } from "../../trajectory/headlong";
import { parseStep, stepUsage, type Step } from "../../trajectory/schema";
import { stepText } from "../../trajectory/summary";
import type { Sql } from "../db/sql";
import { writeSteps } from "../sync/steps";
import { sqlInbound, type SqlInboundPort } from "./inbound";
import { checkFence } from "./lease";

type StepJson = { json: string };

const readStep = (json: string): Step | undefined => {
  const parsed = parseStep(JSON.parse(json));
  return parsed.ok ? parsed.step : undefined;
};
const stepsOf = (rows: StepJson[]) => rows.flatMap((r) => readStep(r.json) ?? []);

/** A LIKE pattern that matches `text` literally anywhere. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
/** Text that JSON would escape cannot be looked for in a step's raw JSON. */
const jsonEscapes = (q: string) => /["\\]/.test(q) || [...q].some((c) => c.charCodeAt(0) < 0x20);

/**
 * The mind must exist in sync_minds (its tab made it by syncing, or the
 * server took it over). `parseSettings` reads the stored settings JSON as the
 * home's record type (undefined: damaged, which the port reports as no record).
 */
export interface SqlStateOptions {
  /** This home's lease epoch: every write carries it (none: a mind never leased). */
  epoch?: number;
  /** The time what comes in is stamped with (default: the system's). */
  now?: () => number;
  log?: (line: string) => void;
}

export function sqlMindState<Settings>(sql: Sql, mindId: string, parseSettings: (value: unknown) => Settings | undefined, opts: SqlStateOptions = {}): MindState<Settings> & { inbound: SqlInboundPort } {
  /** Every write is fenced: it carries this home's lease epoch (none: a mind never leased), checked in its transaction. */
  const fence = (tx: Sql) => checkFence(tx, mindId, opts.epoch);
  const dirs = new Map<string, Promise<string>>();
  /** A trajectory's folder ("" for the root), as sync_trajectories names it; read once, it never changes. */
  const dirOf = (trajId: string) => {
    let dir = dirs.get(trajId);
    if (!dir) {
      dir = sql.query<{ dir: string }>("SELECT dir FROM sync_trajectories WHERE mind = $1 AND traj = $2", [mindId, trajId]).then((rows) => rows[0]?.dir ?? "");
      dirs.set(trajId, dir);
      dir.catch(() => dirs.delete(trajId));
    }
    return dir;
  };
  const blobName = async (trajId: string, ref: string) => {
    const dir = await dirOf(trajId);
    return `${dir ? `${dir}/` : ""}blobs/${ref.replace(/^blobs\//, "")}`;
  };

  const state: MindState<Settings> & { inbound: SqlInboundPort } = {
    mindId,
    // What waits in its inbox, delivered when its runner pulls it: written by the mind's one writer, under its epoch.
    inbound: sqlInbound(sql, mindId, {
      now: opts.now ?? (() => Date.now()),
      recordSettings: (settings) =>
        sql.transaction(async (tx) => {
          await fence(tx);
          await tx.query("UPDATE sync_minds SET settings = $2 WHERE id = $1", [mindId, JSON.stringify(settings)]);
        }),
      ...(opts.log ? { log: opts.log } : {}),
    }),

    async append(batch: StateBatch) {
      const ok: { trajId: string; step: Step; json: string }[] = [];
      let refused: InvalidStepError | null = null;
      for (const { trajId, step } of batch.steps) {
        const parsed = parseStep(JSON.parse(JSON.stringify(step)));
        if (!parsed.ok) {
          refused = new InvalidStepError(`Refusing to append an invalid step: ${parsed.error}`, ok.length);
          break;
        }
        ok.push({ trajId, step: parsed.step, json: JSON.stringify(parsed.step) });
      }
      // A record of a refused step is not kept: it would cite a step the log does not hold.
      const lost = new Set(batch.steps.slice(ok.length).map((s) => s.step.step_id));
      const seen = batch.seen.filter((c) => !lost.has(c.step_id));
      if (ok.length || seen.length) {
        await sql.transaction(async (tx) => {
          // The mind's row first, as every write of the mind takes it (one lock order), then the fence.
          const [row] = await tx.query("SELECT 1 FROM sync_minds WHERE id = $1 FOR UPDATE", [mindId]);
          if (!row) throw new Error(`There is no mind ${mindId} on this server.`);
          await fence(tx);
          // Through the one writer of steps, as uploads are: live share links follow the server's steps as they follow a tab's.
          await writeSteps(tx, mindId, ok.map(({ trajId, step, json }) => ({ traj: trajId, step_id: step.step_id, type: step.type, json })));
          for (const { step } of ok) {
            const u = stepUsage(step);
            if (u) await tx.query("INSERT INTO mind_usage (mind, step_id, ts_ms, usd) VALUES ($1, $2, $3, $4)", [mindId, step.step_id, Date.parse(step.ts), u.usd ?? 0]);
          }
          for (const call of seen) {
            await tx.query("INSERT INTO mind_contexts (mind, step_id, json) VALUES ($1, $2, $3) ON CONFLICT (mind, step_id) DO UPDATE SET json = EXCLUDED.json", [mindId, call.step_id, JSON.stringify(call)]);
          }
        });
      }
      if (refused) throw refused;
    },

    async tail(trajId, n) {
      if (n <= 0) return [];
      const rows = await sql.query<StepJson>("SELECT json FROM sync_steps WHERE mind = $1 AND traj = $2 ORDER BY seq DESC LIMIT $3", [mindId, trajId, n]);
      return stepsOf(rows.reverse());
    },

    async count(trajId) {
      const [row] = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM sync_steps WHERE mind = $1 AND traj = $2", [mindId, trajId]);
      return Number(row?.n ?? 0);
    },

    async find(idOrPrefix, limit): Promise<FoundStep[]> {
      const prefix = idOrPrefix.toLowerCase();
      const rows = await sql.query<StepJson & { traj: string }>("SELECT json, traj FROM sync_steps WHERE mind = $1 AND left(step_id, length($2)) = $2 ORDER BY seq LIMIT $3", [mindId, prefix, limit]);
      return rows.flatMap((r) => {
        const step = readStep(r.json);
        return step ? [{ step, trajId: r.traj }] : [];
      });
    },

    async search(trajId, text, limit) {
      const q = text.toLowerCase();
      if (!q || limit <= 0) return [];
      // The raw JSON narrows the rows when it can; the step's rendered text decides.
      const rows = jsonEscapes(q)
        ? await sql.query<StepJson>("SELECT json FROM sync_steps WHERE mind = $1 AND traj = $2 ORDER BY seq DESC", [mindId, trajId])
        : await sql.query<StepJson>("SELECT json FROM sync_steps WHERE mind = $1 AND traj = $2 AND json ILIKE $3 ORDER BY seq DESC", [mindId, trajId, containing(q)]);
      const out: Step[] = [];
      for (const r of rows) {
        if (out.length >= limit) break;
        const step = readStep(r.json);
        if (step && stepText(step).toLowerCase().includes(q)) out.push(step);
      }
      return out;
    },

    async ofKind(trajId, kinds, limit, afterSeq = 0) {
      if (limit <= 0 || kinds.length === 0) return [];
      const rows = await sql.query<StepJson & { seq: string | number }>(
        "SELECT seq, json FROM sync_steps WHERE mind = $1 AND traj = $2 AND type = ANY($3::text[]) AND seq > $4 ORDER BY seq LIMIT $5",
        [mindId, trajId, [...kinds], afterSeq, limit],
      );
      return rows.flatMap((r) => {
        const step = readStep(r.json);
        return step ? [{ seq: Number(r.seq), step }] : [];
      });
    },

    async fork(parentTrajId, child) {
      const [parent] = await sql.query<{ name: string; dir: string }>("SELECT name, dir FROM sync_trajectories WHERE mind = $1 AND traj = $2", [mindId, parentTrajId]);
      if (!parent && parentTrajId !== mindId) throw new Error(`There is no trajectory ${parentTrajId} in mind ${mindId}.`);
      const parentDir = parent?.dir || trajDirName(parentTrajId, parent?.name ?? "trajectory");
      // No ON CONFLICT: forking one trajectory twice is a bug, and the primary key says so.
      await sql.query("INSERT INTO sync_trajectories (mind, traj, name, dir, parent_traj) VALUES ($1, $2, $3, $4, $5)", [
        mindId,
        child.trajId,
        child.name,
        `${parentDir}/${trajDirName(child.trajId, child.name)}`,
        parentTrajId,
      ]);
    },

    async putBlob(trajId, name, text) {
      // Blobs are named after their step: a second write of one name is a bug, and the primary key says so.
      const full = await blobName(trajId, name);
      await sql.transaction(async (tx) => {
        await fence(tx);
        await tx.query("INSERT INTO sync_blobs (mind, name, content) VALUES ($1, $2, $3)", [mindId, full, text]);
        await tx.query("UPDATE sync_minds SET bytes = bytes + $2, blob_count = blob_count + 1 WHERE id = $1", [mindId, Buffer.byteLength(text, "utf8")]);
      });
    },

    async blob(trajId, ref) {
      const rows = await sql.query<{ content: string }>("SELECT content FROM sync_blobs WHERE mind = $1 AND name = $2", [mindId, await blobName(trajId, ref)]);
      return rows[0]?.content;
    },

    tiers: (trajId) => sqlTiers(sql, mindId, trajId),

    async spendSince(sinceMs) {
      const rows = await sql.query<{ ts_ms: string | number; usd: number }>("SELECT ts_ms, usd FROM mind_usage WHERE mind = $1 AND ts_ms >= $2 ORDER BY ts_ms", [mindId, sinceMs]);
      return rows.map((r) => ({ ts: Number(r.ts_ms), usd: Number(r.usd) }));
    },

    files: {
      async loadAll() {
        const rows = await sql.query<FileRow>("SELECT path, kind, data, target, mode, mtime FROM mind_files WHERE mind = $1 ORDER BY path", [mindId]);
        return rows.map(fileRecord);
      },
      async loadUnder(dir) {
        const rows = await sql.query<FileRow>("SELECT path, kind, data, target, mode, mtime FROM mind_files WHERE mind = $1 AND (path = $2 OR left(path, length($2) + 1) = $2 || '/') ORDER BY path", [mindId, dir]);
        return rows.map(fileRecord);
      },
      async save(put, remove) {
        await sql.transaction(async (tx) => {
          // The mind's row first, as every write of the mind takes it (one lock order), then the fence.
          await tx.query("SELECT 1 FROM sync_minds WHERE id = $1 FOR UPDATE", [mindId]);
          await fence(tx);
          // Every write bumps the row's version (the other home's copy is then stale: sync keeps both), and the mind's bytes follow what it holds.
          const sized = (f: FileRecord) => (f.data?.length ?? 0) + (f.target === undefined ? 0 : Buffer.byteLength(f.target, "utf8"));
          const old = await tx.query<{ n: string | number }>(
            "SELECT COALESCE(sum(COALESCE(octet_length(data), 0) + COALESCE(octet_length(target), 0)), 0) AS n FROM mind_files WHERE mind = $1 AND path = ANY($2::text[])",
            [mindId, [...remove, ...put.map((f) => f.path)]],
          );
          if (remove.length) await tx.query("DELETE FROM mind_files WHERE mind = $1 AND path = ANY($2::text[])", [mindId, remove]);
          for (const f of put) {
            await tx.query(
              `INSERT INTO mind_files (mind, path, kind, data, target, mode, mtime) VALUES ($1, $2, $3, $4, $5, $6, $7)
               ON CONFLICT (mind, path) DO UPDATE SET kind = EXCLUDED.kind, data = EXCLUDED.data, target = EXCLUDED.target, mode = EXCLUDED.mode, mtime = EXCLUDED.mtime, version = mind_files.version + 1`,
              [mindId, f.path, f.kind, f.data ?? null, f.target ?? null, f.mode, f.mtime],
            );
          }
          const delta = put.reduce((n, f) => n + sized(f), 0) - Number(old[0]?.n ?? 0);
          if (delta !== 0) await tx.query("UPDATE sync_minds SET bytes = GREATEST(0, bytes + $2) WHERE id = $1", [mindId, delta]);
        });
      },
    },

    async record(): Promise<MindRecord<Settings> | undefined> {
      const [row] = await sql.query<{ settings: string | null; shell: string | null; pacing: string | null }>("SELECT settings, shell, pacing FROM sync_minds WHERE id = $1", [mindId]);
      if (!row?.settings) return undefined;
      let settings: Settings | undefined;
      try {
        settings = parseSettings(JSON.parse(row.settings));
      } catch {
        settings = undefined;
      }
      if (settings === undefined) return undefined;
      const shell = row.shell ? ShellState.safeParse(JSON.parse(row.shell)) : undefined;
      const pacing = row.pacing ? PacingSnapshot.safeParse(JSON.parse(row.pacing)) : undefined;
      return { settings, shell: shell?.success ? shell.data : undefined, ...(pacing?.success ? { pacing: pacing.data } : {}) };
    },

    async saveShellState(state) {
      await sql.transaction(async (tx) => {
        await fence(tx);
        await tx.query("UPDATE sync_minds SET shell = $2 WHERE id = $1", [mindId, JSON.stringify(ShellState.parse(state))]);
      });
    },

    async savePacing(pacing) {
      await sql.transaction(async (tx) => {
        await fence(tx);
        await tx.query("UPDATE sync_minds SET pacing = $2 WHERE id = $1", [mindId, JSON.stringify(PacingSnapshot.parse(pacing))]);
      });
    },
  };
  return state;
}

type FileRow = { path: string; kind: FileRecord["kind"]; data: Uint8Array | null; target: string | null; mode: number; mtime: number };
const fileRecord = (r: FileRow): FileRecord => ({
  path: r.path,
  kind: r.kind,
  ...(r.data !== null ? { data: new Uint8Array(r.data) } : {}),
  ...(r.target !== null ? { target: r.target } : {}),
  mode: Number(r.mode),
  mtime: Number(r.mtime),
});

function sqlTiers(sql: Sql, mindId: string, trajId: string): TierStorePort {
  return {
    async list() {
      const rows = await sql.query<{ json: string }>("SELECT json FROM mind_tiers WHERE mind = $1 AND traj = $2 ORDER BY tier, idx", [mindId, trajId]);
      return rows.map((r) => TierLine.parse(JSON.parse(r.json)));
    },
    async seal(tier) {
      const parsed = TierLine.safeParse(tier);
      if (!parsed.success) throw new Error(`Refusing to seal an invalid summary: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
      const row = { ...parsed.data, ...(tier.model !== undefined ? { model: tier.model } : {}), ...(tier.created !== undefined ? { created: tier.created } : {}) };
      const inserted = await sql.query("INSERT INTO mind_tiers (mind, traj, tier, idx, json) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING idx", [
        mindId,
        trajId,
        tier.tier,
        tier.index,
        JSON.stringify(row),
      ]);
      return inserted.length ? "sealed" : "already-sealed";
    },
    async keysAfter(seq) {
      const rows = await sql.query<{ seq: string | number; type: string; step_id: string }>("SELECT seq, type, step_id FROM sync_steps WHERE mind = $1 AND traj = $2 AND seq > $3 ORDER BY seq", [mindId, trajId, seq]);
      return rows.map((r) => ({ seq: Number(r.seq), type: r.type, step_id: r.step_id }));
    },
    async steps(first, last) {
      const rows = await sql.query<StepJson>("SELECT json FROM sync_steps WHERE mind = $1 AND traj = $2 AND seq BETWEEN $3 AND $4 ORDER BY seq", [mindId, trajId, first, last]);
      return stepsOf(rows).filter(inStream);
    },
  };
}
