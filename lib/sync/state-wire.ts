// The mind's state beyond its steps, as sync moves it between its homes:
// schemas only (lib/sync/wire.ts holds the rest of the sync API).
import * as z from "zod";
import { TierLine } from "../context/rollups";
import { PacingSnapshot, ShellState } from "../mind/state/state";
import { SYNC_LIMITS, SyncQuota } from "./wire";

//
// Everything beyond the steps that a mind needs to go on living in its other
// home: the workspace (every file under it, `mem`, `skills` and `focus`
// included), the sealed summaries, the settings (never a model key), the
// shell's state and the pacing. Both ways; every write carries the lease
// epoch (fenced like an upload) and counts against the mind's bytes.

/** A workspace path: absolute, no `..` segment, no NUL. */
export const WorkspacePath = z
  .string()
  .min(1)
  .max(4096)
  .startsWith("/")
  .refine((p) => !p.includes("\0") && !p.split("/").includes(".."), "a workspace path has no NUL and no .. segment");
export const FileKind = z.enum(["file", "dir", "symlink"]);
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "not a SHA-256 hex digest");
const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "not base64");
const Version = z.number().int().positive();

/**
 * A workspace entry as the server lists it. `version` grows by one with every
 * write of the path by either home; `sha256` is of a file's bytes or a
 * symlink's target (UTF-8), null for a directory.
 */
export const WireFileInfo = z.object({
  path: WorkspacePath,
  kind: FileKind,
  mode: z.number().int().nonnegative(),
  mtime: z.number(),
  version: Version,
  size: z.number().int().nonnegative(),
  sha256: Sha256.nullable(),
});
export type WireFileInfo = z.infer<typeof WireFileInfo>;

/** A sealed summary's place: its trajectory, tier and block. */
export const WireTierKey = z.object({ traj: z.string().min(1).max(64), tier: z.number().int().min(0), index: z.number().int().min(0) });
export type WireTierKey = z.infer<typeof WireTierKey>;
/** A sealed summary as it travels (a tiers.jsonl line with who wrote it and when). Its seqs are each home's own: the receiver sets them from its own steps. */
export const WireTier = TierLine.extend({ model: z.string().max(200).optional(), created: z.string().max(64).optional() });
export type WireTier = z.infer<typeof WireTier>;

/** Does a value hold a model key anywhere (a field named apiKey with a value)? */
export function carriesKey(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(carriesKey);
  if (!v || typeof v !== "object") return false;
  return Object.entries(v).some(([k, x]) => (k === "apiKey" && x !== undefined && x !== null && x !== "") || carriesKey(x));
}
/** A mind's settings as the server keeps them: its record (lib/mind/settings/settings.ts) without any key, never with one. */
export const SyncedSettings = z.record(z.string(), z.unknown()).refine((s) => !carriesKey(s), "settings never carry a model key");
export type SyncedSettings = z.infer<typeof SyncedSettings>;

/** GET /api/sync/minds/<mind>/state → 200 MindStateSummary: what the server holds of the mind beyond its steps (no file contents). */
export const MindStateSummary = z.object({
  settings: SyncedSettings.nullable(),
  shell: ShellState.nullable(),
  pacing: PacingSnapshot.nullable(),
  files: z.array(WireFileInfo),
  tiers: z.array(WireTierKey),
});
export type MindStateSummary = z.infer<typeof MindStateSummary>;

/** A workspace entry whole: a file's bytes (base64), a symlink's target. */
export const WireFile = z.object({
  path: WorkspacePath,
  kind: FileKind,
  mode: z.number().int().nonnegative(),
  mtime: z.number(),
  version: Version,
  data_b64: Base64.optional(),
  target: z.string().max(4096).optional(),
});
export type WireFile = z.infer<typeof WireFile>;

/**
 * POST /api/sync/minds/<mind>/files/read {paths} → 200 FilesContent: the
 * entries asked for, in the order asked, as many as fit in
 * SYNC_LIMITS.filesBodyBytes (at least one); `left` are those that did not
 * fit (ask again), `missing` those the server does not hold.
 */
export const FilesRead = z.object({ paths: z.array(WorkspacePath).min(1).max(SYNC_LIMITS.filesPerRequest) });
export const FilesContent = z.object({ files: z.array(WireFile), missing: z.array(z.string()), left: z.array(z.string()) });
export type FilesContent = z.infer<typeof FilesContent>;

/**
 * One write of a path. `base_version` is the server's version the writer's
 * copy came from (null: the writer thinks the path is new). A write against
 * any other version than the server's current one, with different content,
 * keeps both: the server's copy stays at `path`, the incoming one is stored
 * at a new sibling `<path>.conflict-<UTC YYYYMMDD-HHMMSS>[-n]`.
 */
export const FilePut = z
  .object({
    path: WorkspacePath,
    kind: FileKind,
    data_b64: Base64.optional(),
    target: z.string().max(4096).optional(),
    mode: z.number().int().nonnegative(),
    mtime: z.number(),
    base_version: Version.nullable(),
  })
  .refine((f) => (f.kind === "symlink") === (f.target !== undefined) && (f.kind === "file" || f.data_b64 === undefined), "a file may carry data_b64, a symlink carries a target, a directory neither");
export type FilePut = z.infer<typeof FilePut>;
/** A removal is carried out only against the server's current version; against a stale one it removes nothing ("stale"). */
export const FileRemove = z.object({ path: WorkspacePath, base_version: Version });
export type FileRemove = z.infer<typeof FileRemove>;

/** POST /api/sync/minds/<mind>/files → 200 FilesWritten, one outcome per path, all in one transaction (a refusal writes nothing). */
export const FilesWrite = z
  .object({
    epoch: Version.optional(),
    put: z.array(FilePut).max(SYNC_LIMITS.filesPerRequest),
    remove: z.array(FileRemove).max(SYNC_LIMITS.filesPerRequest * 5),
  })
  .refine((w) => new Set([...w.put, ...w.remove].map((f) => f.path)).size === w.put.length + w.remove.length, "each path at most once per write");
export type FilesWrite = z.infer<typeof FilesWrite>;

export const FileOutcome = z.discriminatedUnion("status", [
  /** Stored at `version` (or already there with the same content, at the server's version). */
  z.object({ path: z.string(), status: z.literal("written"), version: Version }),
  /** Both kept: the server's copy at `path` (its version `current`), the incoming one at `kept_as` (its `version`). */
  z.object({ path: z.string(), status: z.literal("conflict"), kept_as: z.string(), version: Version, current: Version }),
  z.object({ path: z.string(), status: z.literal("removed") }),
  /** Not removed: the server's copy changed since (its version `current`). */
  z.object({ path: z.string(), status: z.literal("stale"), current: Version }),
]);
export type FileOutcome = z.infer<typeof FileOutcome>;
export const FilesWritten = z.object({ results: z.array(FileOutcome), quota: SyncQuota });
export type FilesWritten = z.infer<typeof FilesWritten>;

/**
 * POST /api/sync/minds/<mind>/tiers {epoch, traj, tiers} → 200 TiersSealed: each sealed once; one already sealed is left
 * as it is; one whose first or last step the server does not hold is not sealed but `waiting` (send it again later).
 */
export const TiersWrite = z.object({ epoch: Version.optional(), traj: z.string().min(1).max(64), tiers: z.array(WireTier).min(1).max(SYNC_LIMITS.tiersPerRequest) });
export type TiersWrite = z.infer<typeof TiersWrite>;
export const TiersSealed = z.object({
  sealed: z.number().int().nonnegative(),
  already: z.number().int().nonnegative(),
  /** Not sealed: the server does not hold its first or last step (yet). Absent from an older server. */
  waiting: z.array(z.object({ tier: z.number().int().min(0), index: z.number().int().min(0) })).default([]),
  quota: SyncQuota,
});
export type TiersSealed = z.infer<typeof TiersSealed>;
/** POST /api/sync/minds/<mind>/tiers/read {traj, keys} → 200 {tiers}: those of `keys` the server holds. */
export const TiersRead = z.object({ traj: z.string().min(1).max(64), keys: z.array(z.object({ tier: z.number().int().min(0), index: z.number().int().min(0) })).min(1).max(SYNC_LIMITS.tiersPerRequest) });
export const TiersContent = z.object({ tiers: z.array(WireTier) });

/** PUT /api/sync/minds/<mind>/record {epoch, settings?, shell?, pacing?} → 200 {quota}: each given part replaces the server's. */
export const RecordWrite = z
  .object({ epoch: Version.optional(), settings: SyncedSettings.optional(), shell: ShellState.optional(), pacing: PacingSnapshot.optional() })
  .refine((r) => r.settings !== undefined || r.shell !== undefined || r.pacing !== undefined, "a record write carries settings, shell or pacing");
export type RecordWrite = z.infer<typeof RecordWrite>;
export const RecordWritten = z.object({ quota: SyncQuota });

/**
 * Where a write against a stale version keeps the incoming copy (both homes
 * name conflicts alike): `<path>.conflict-<UTC YYYYMMDD-HHMMSS>` for try 1,
 * then `-2`, `-3`… for the tries after, until one is free.
 */
export function conflictPath(path: string, atMs: number, attempt = 1): string {
  const stamp = new Date(atMs).toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${path}.conflict-${stamp}${attempt > 1 ? `-${attempt}` : ""}`;
}
