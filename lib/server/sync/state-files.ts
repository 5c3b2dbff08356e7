import "server-only";
// A synced mind's workspace on the server (mind_files), as sync reads and
// writes it. Every row carries a version that every write bumps, whichever
// home writes (the runner's through sqlMindState's files.save). A write says
// which version its copy came from; against any other, with other content,
// nothing is lost: the server's copy stays and the incoming one is kept
// beside it under a conflict name (lib/sync/wire.ts conflictPath).
import { createHash } from "node:crypto";
import { conflictPath, type FileOutcome, type FilesContent, type FilesWrite, type FilesWritten, type WireFile, type WireFileInfo } from "@/lib/sync/state-wire";
import { SYNC_LIMITS } from "@/lib/sync/wire";
import type { Sql } from "../db/sql";
import type { SyncQuotas } from "../sharing/quotas";
import { addBytes, lockForWrite } from "./state-lock";
import { HttpError } from "../http/route";
import { checkBytes, quotaOf } from "./quota";

type Kind = WireFileInfo["kind"];

/** What a row holds: a file's bytes, a symlink's target (UTF-8), and its digest as the API gives it. */
const SIZE = "COALESCE(octet_length(data), 0) + COALESCE(octet_length(target), 0)";
const SHA = `CASE kind WHEN 'dir' THEN NULL WHEN 'symlink' THEN encode(sha256(convert_to(COALESCE(target, ''), 'UTF8')), 'hex') ELSE encode(sha256(COALESCE(data, ''::bytea)), 'hex') END`;

type InfoRow = { path: string; kind: Kind; mode: number; mtime: number; version: string | number; size: string | number; sha256: string | null };
const infoOf = (r: InfoRow): WireFileInfo => ({ path: r.path, kind: r.kind, mode: Number(r.mode), mtime: Number(r.mtime), version: Number(r.version), size: Number(r.size), sha256: r.sha256 });

/** Every entry of the mind's workspace, without contents. */
export async function listFiles(sql: Sql, mind: string): Promise<WireFileInfo[]> {
  const rows = await sql.query<InfoRow>(`SELECT path, kind, mode, mtime, version, ${SIZE} AS size, ${SHA} AS sha256 FROM mind_files WHERE mind = $1 ORDER BY path`, [mind]);
  return rows.map(infoOf);
}

/** Room in a read's answer for the envelope around the files. */
const ENVELOPE_BYTES = 64 * 1024;
const base64Length = (bytes: number) => 4 * Math.ceil(bytes / 3);

/** The entries asked for, as many as fit in one answer (always the first), in the order asked. */
export async function readFiles(sql: Sql, mind: string, paths: string[]): Promise<FilesContent> {
  const sizes = new Map((await sql.query<{ path: string; size: string | number }>(`SELECT path, ${SIZE} AS size FROM mind_files WHERE mind = $1 AND path = ANY($2::text[])`, [mind, paths])).map((r) => [r.path, Number(r.size)]));
  const missing = paths.filter((p) => !sizes.has(p));
  const send: string[] = [];
  const left: string[] = [];
  let room = SYNC_LIMITS.filesBodyBytes - ENVELOPE_BYTES;
  for (const p of paths) {
    const size = sizes.get(p);
    if (size === undefined) continue;
    const cost = base64Length(size) + p.length + 200;
    if (send.length && (left.length || cost > room)) left.push(p);
    else {
      send.push(p);
      room -= cost;
    }
  }
  const rows = send.length
    ? await sql.query<{ path: string; kind: Kind; data: Uint8Array | null; target: string | null; mode: number; mtime: number; version: string | number }>(
        "SELECT path, kind, data, target, mode, mtime, version FROM mind_files WHERE mind = $1 AND path = ANY($2::text[])",
        [mind, send],
      )
    : [];
  const byPath = new Map(rows.map((r) => [r.path, r]));
  const files = send.flatMap((p): WireFile[] => {
    const r = byPath.get(p);
    if (!r) return [];
    return [
      {
        path: r.path,
        kind: r.kind,
        mode: Number(r.mode),
        mtime: Number(r.mtime),
        version: Number(r.version),
        ...(r.kind === "file" ? { data_b64: Buffer.from(r.data ?? new Uint8Array()).toString("base64") } : {}),
        ...(r.kind === "symlink" ? { target: r.target ?? "" } : {}),
      },
    ];
  });
  // A row removed between the two reads is missing now.
  return { files, missing: [...missing, ...send.filter((p) => !byPath.has(p))], left };
}

type Current = { version: number; kind: Kind; size: number; sha256: string | null };

const sha256Hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The incoming entry as the table holds it, refused (413) when a file is over the limit. */
function incoming(p: FilesWrite["put"][number]) {
  const data = p.kind === "file" ? Buffer.from(p.data_b64 ?? "", "base64") : null;
  if (data && data.length > SYNC_LIMITS.fileBytes) throw new HttpError(413, "too_large", `${p.path} is over ${SYNC_LIMITS.fileBytes} bytes; nothing was written`);
  const target = p.kind === "symlink" ? (p.target ?? "") : null;
  const sha = data ? sha256Hex(data) : target !== null ? sha256Hex(Buffer.from(target, "utf8")) : null;
  return { data, target, sha, size: (data?.length ?? 0) + (target === null ? 0 : Buffer.byteLength(target, "utf8")) };
}

/**
 * One files write, in one transaction under the mind's lock and fence: removes
 * (only at the server's version), then puts (at the server's version, or with
 * the same content, written; else kept under a conflict name). Over the
 * mind's bytes, 413 and nothing written.
 */
export async function writeFiles(sql: Sql, mind: string, write: FilesWrite, quotas: SyncQuotas, now = Date.now()): Promise<FilesWritten> {
  const prepared = write.put.map((p) => ({ p, ...incoming(p) }));
  return sql.transaction(async (tx) => {
    const held = await lockForWrite(tx, mind, write.epoch);
    const paths = [...write.put, ...write.remove].map((f) => f.path);
    const rows = await tx.query<InfoRow>(`SELECT path, kind, mode, mtime, version, ${SIZE} AS size, ${SHA} AS sha256 FROM mind_files WHERE mind = $1 AND path = ANY($2::text[])`, [mind, paths]);
    const current = new Map<string, Current>(rows.map((r) => [r.path, { version: Number(r.version), kind: r.kind, size: Number(r.size), sha256: r.sha256 }]));
    const results: FileOutcome[] = [];
    let delta = 0;

    for (const r of write.remove) {
      const cur = current.get(r.path);
      if (cur && cur.version !== r.base_version) {
        results.push({ path: r.path, status: "stale", current: cur.version });
        continue;
      }
      if (cur) {
        await tx.query("DELETE FROM mind_files WHERE mind = $1 AND path = $2", [mind, r.path]);
        delta -= cur.size;
      }
      results.push({ path: r.path, status: "removed" });
    }

    const named = new Set<string>();
    const freeConflictName = async (path: string) => {
      for (let attempt = 1; ; attempt++) {
        const name = conflictPath(path, now, attempt);
        if (named.has(name) || current.has(name)) continue;
        const [taken] = await tx.query("SELECT 1 FROM mind_files WHERE mind = $1 AND path = $2", [mind, name]);
        if (!taken) {
          named.add(name);
          return name;
        }
      }
    };
    const insert = (path: string, f: (typeof prepared)[number]) =>
      tx.query("INSERT INTO mind_files (mind, path, kind, data, target, mode, mtime, version) VALUES ($1, $2, $3, $4, $5, $6, $7, 1)", [mind, path, f.p.kind, f.data, f.target, f.p.mode, f.p.mtime]);

    for (const f of prepared) {
      const { p } = f;
      const cur = current.get(p.path);
      if (!cur) {
        // Nothing is there (new, or removed by the other home since): nothing to lose by writing it.
        await insert(p.path, f);
        delta += f.size;
        results.push({ path: p.path, status: "written", version: 1 });
      } else if (cur.version === p.base_version) {
        const [row] = await tx.query<{ version: string | number }>(
          "UPDATE mind_files SET kind = $3, data = $4, target = $5, mode = $6, mtime = $7, version = version + 1 WHERE mind = $1 AND path = $2 RETURNING version",
          [mind, p.path, p.kind, f.data, f.target, p.mode, p.mtime],
        );
        delta += f.size - cur.size;
        results.push({ path: p.path, status: "written", version: Number(row?.version) });
      } else if (cur.kind === p.kind && cur.sha256 === f.sha) {
        // Both homes hold the same thing: no conflict, and no new version.
        results.push({ path: p.path, status: "written", version: cur.version });
      } else {
        const kept = await freeConflictName(p.path);
        await insert(kept, f);
        delta += f.size;
        results.push({ path: p.path, status: "conflict", kept_as: kept, version: 1, current: cur.version });
      }
    }

    if (delta > 0) await checkBytes(tx, held, delta, "these workspace files", quotas);
    await addBytes(tx, mind, delta);
    return { results, quota: quotaOf({ ...held, bytes: Math.max(0, held.bytes + delta) }, quotas) };
  });
}
