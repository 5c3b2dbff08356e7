// The sync HTTP API, declared once for both ends: the browser that syncs a
// mind (lib/sync/client) and the server that stores it (lib/server/sync).
// Pure: schemas, paths and limits, no I/O. The mind's state beyond its steps
// is in ./state-wire.ts, what comes in for the mind in ./inbox-wire.ts, and
// share links in lib/sharing/wire.ts.
//
// Two kinds of credential, both unguessable random strings (32 bytes,
// base64url: 256 bits), kept on the server only as SHA-256 hashes:
// - a write token, made by a mind's first sync and kept in that browser; sent
//   as `Authorization: Bearer <token>` on every /api/sync route;
// - a link token, in the URL `/s/<token>`: a capability to read (snapshot or
//   live) or, for an invite, to read and send messages. It never writes steps.
import * as z from "zod";

export const TOKEN_BYTES = 32;
/** A token as it travels: base64url of TOKEN_BYTES random bytes (43 characters). */
export const Token = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "not a token");

/** Limits the server enforces; a request over them gets 413 and changes nothing. */
export const SYNC_LIMITS = {
  /** Steps in one upload batch. */
  batchSteps: 500,
  /** Bytes of one upload request body. */
  batchBytes: 4 * 1024 * 1024,
  /** Bytes of one step's JSON. */
  stepBytes: 1024 * 1024,
  /** Bytes of one blob. */
  blobBytes: 8 * 1024 * 1024,
  /** Steps one read returns at most. */
  readSteps: 2000,
  // ---- the mind's state (workspace, tiers, record): see "state" below ----
  /** Bytes of one workspace file; a bigger one stays in its home, reported, not synced. */
  fileBytes: 8 * 1024 * 1024,
  /** Bytes of one files write, or of one files read's answer: room for one file at its limit, base64, and the envelope. */
  filesBodyBytes: 12 * 1024 * 1024,
  /** Paths in one files write or read. */
  filesPerRequest: 200,
  /** Sealed summaries in one tiers write or read. */
  tiersPerRequest: 500,
  /** Bytes of one record write (settings, shell, pacing). */
  recordBytes: 256 * 1024,
} as const;

/** Every error body, whatever the status. */
export const ApiError = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
export type ApiError = z.infer<typeof ApiError>;

/** A step as it travels: the mind's own order (its browser's seq, strictly increasing), its trajectory, its exact JSON. */
export const WireStep = z.object({
  seq: z.number().int().positive(),
  traj: z.string().min(1).max(64),
  json: z.string().min(2),
});
export type WireStep = z.infer<typeof WireStep>;

export const WireTrajectory = z.object({
  traj: z.string().min(1).max(64),
  name: z.string().max(200),
  /** Where its blobs live, relative to the mind ("" for the root), as in the browser's TrajectoryRow. */
  dir: z.string().max(200),
  parent_traj: z.string().optional(),
  parent_step: z.string().optional(),
});
export type WireTrajectory = z.infer<typeof WireTrajectory>;

// ---- sync (the mind's own browser; Bearer write token) -------------------

/** POST /api/sync/minds → 201 CreatedMind. */
export const CreateMind = z.object({ name: z.string().min(1).max(200) });
export const CreatedMind = z.object({ mind: z.string(), write_token: Token });

/** What a synced mind holds on the server against its limits (the host's SYNC_MAX_* settings). */
export const SyncQuota = z.object({
  bytes: z.number().int().nonnegative(),
  max_bytes: z.number().int().positive(),
  steps: z.number().int().nonnegative(),
  max_steps: z.number().int().positive(),
  blobs: z.number().int().nonnegative(),
  max_blobs: z.number().int().positive(),
});
export type SyncQuota = z.infer<typeof SyncQuota>;

/** Where a synced mind lives: its lease (who writes it now, if anyone), and whether a server runner keeps it alive. */
export const ServerHome = z.object({
  keep_alive: z.boolean(),
  /** A panic stop (or Stop) from a tab: no runner takes it until a tab starts it again. */
  halted: z.boolean(),
  lease: z.object({ holder: z.string(), epoch: z.number().int().positive(), expires_at: z.string(), live: z.boolean() }).nullable(),
});
export type ServerHome = z.infer<typeof ServerHome>;

/**
 * GET /api/sync/minds/<mind> → 200 SyncState: where to resume, and the mind's use of its quota.
 * DELETE /api/sync/minds/<mind> → 204: its owner forgets it; the server keeps nothing of it, steps included.
 */
export const SyncState = z.object({
  mind: z.string(),
  name: z.string(),
  last_seq: z.number().int().nonnegative(),
  /** The id of the step at last_seq: a browser finds its own copy of it to know where its uploads stand. */
  last_step_id: z.string().optional(),
  steps: z.number().int().nonnegative(),
  quota: SyncQuota.optional(),
  home: ServerHome.optional(),
});
export type SyncState = z.infer<typeof SyncState>;

/**
 * POST /api/sync/minds/<mind>/steps → 200 Uploaded.
 * `after` is the seq this batch follows; the server holds every step up to its
 * own last_seq. after > last_seq is a gap: 409 {code:"gap", last_seq} and
 * nothing is written (the client resends from last_seq). Steps at or below
 * last_seq whose step_id the server has are skipped (idempotent); any other
 * step at or below last_seq is 409 {code:"conflict"}. Seqs in a batch must
 * increase; each json must parse as a step. All or nothing, in one transaction.
 */
export const Upload = z.object({
  after: z.number().int().nonnegative(),
  steps: z.array(WireStep).max(SYNC_LIMITS.batchSteps),
  trajectories: z.array(WireTrajectory).max(100).optional(),
  /** The writer's lease epoch: required once the mind is leased (see Lease), and it must be the current one, else 409 {code:"fenced"}. */
  epoch: z.number().int().positive().optional(),
});
export type Upload = z.infer<typeof Upload>;
export const Uploaded = z.object({ last_seq: z.number().int().nonnegative(), added: z.number().int(), skipped: z.number().int(), quota: SyncQuota.optional() });
export type Uploaded = z.infer<typeof Uploaded>;
/** GET /api/runner → 200 RunnerInfo when this server runs minds while no tab holds them; 404 not_configured otherwise. */
export const RunnerInfo = z.object({ max_minds: z.number().int().positive(), lease_s: z.number().int().positive(), keeps_keys: z.boolean() });
export type RunnerInfo = z.infer<typeof RunnerInfo>;

/**
 * PUT /api/sync/minds/<mind>/keep-alive → 200 ServerHome. On: the server
 * runner thinks for the mind whenever no tab holds it; refused (409
 * cannot_keep_alive, with the reason) when it could not pay for its calls
 * there. `api_key`: the mind's own key, kept encrypted for the runner (only
 * when the server offers it). Off: the runner lets it be, and a kept key is
 * deleted.
 */
export const KeepAlive = z.object({ on: z.boolean(), api_key: z.string().min(1).max(500).optional() });
export type KeepAlive = z.infer<typeof KeepAlive>;
/** POST /api/sync/minds/<mind>/halt {halted} → 200 ServerHome: a Stop or panic stop from a tab ends the mind on the server too; a Start clears it. */
export const Halt = z.object({ halted: z.boolean() });

/** GET /api/sync/minds/<mind>/steps?after=S[&limit=N] → 200 OwnSteps: the steps the server holds after S (another home wrote them), with the trajectories they are in. */
export const OwnSteps = z.object({ steps: z.array(WireStep), last_seq: z.number().int().nonnegative(), trajectories: z.array(WireTrajectory) });
export type OwnSteps = z.infer<typeof OwnSteps>;
export const GapError = ApiError.extend({ error: z.object({ code: z.literal("gap"), message: z.string(), last_seq: z.number().int().nonnegative() }) });

/**
 * POST /api/sync/minds/<mind>/lease {holder} → 200 Lease: take the mind's
 * lease (one writer at a time), at a new epoch, if it is free or expired, or
 * already this holder's; else 409 {code:"leased", holder, expires_at}.
 * With {holder, epoch}: renew it, or 409 {code:"fenced"} when that epoch is
 * no longer the lease's. DELETE with {holder, epoch}: let it go (204).
 * Epochs only grow; a write carrying an older one is refused as fenced.
 */
export const LeaseRequest = z.object({
  holder: z.string().min(1).max(200),
  epoch: z.number().int().positive().optional(),
  ttl_s: z.number().int().min(5).max(3600).optional(),
  /** Letting it go: the newest step the holder wrote; the lease is let go once the server holds it (or when it would lapse). */
  last_step: z.string().min(1).max(100).optional(),
});
export type LeaseRequest = z.infer<typeof LeaseRequest>;
export const Lease = z.object({ holder: z.string(), epoch: z.number().int().positive(), expires_at: z.string() });
export type Lease = z.infer<typeof Lease>;

/** PUT /api/sync/minds/<mind>/blobs/<name> with the text as body (text/plain) → 204. Idempotent; blobs never change. */
export const BlobName = z.string().regex(/^[^\0]{1,300}$/).refine((s) => !s.split("/").includes(".."), "no .. in a blob name");
