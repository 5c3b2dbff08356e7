// The sharing HTTP API, declared once for both ends: the browser that syncs a
// mind and reads shared links (lib/share), and the server that stores and
// serves them (lib/server). Pure: schemas, paths and limits, no I/O.
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
} as const;

export const INVITE_LIMITS = {
  nameChars: 40,
  messageChars: 20_000,
  /** Messages per invite link per minute; over it, 429 with Retry-After. */
  perMinute: 10,
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

/** GET /api/sync/minds/<mind> → 200 SyncState: where to resume, and the mind's use of its quota. */
export const SyncState = z.object({
  mind: z.string(),
  name: z.string(),
  last_seq: z.number().int().nonnegative(),
  steps: z.number().int().nonnegative(),
  quota: SyncQuota.optional(),
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
});
export type LeaseRequest = z.infer<typeof LeaseRequest>;
export const Lease = z.object({ holder: z.string(), epoch: z.number().int().positive(), expires_at: z.string() });
export type Lease = z.infer<typeof Lease>;

/** PUT /api/sync/minds/<mind>/blobs/<name> with the text as body (text/plain) → 204. Idempotent; blobs never change. */
export const BlobName = z.string().regex(/^[^\0]{1,300}$/).refine((s) => !s.split("/").includes(".."), "no .. in a blob name");

export const LinkKind = z.enum(["snapshot", "live", "invite"]);
export type LinkKind = z.infer<typeof LinkKind>;

/** POST /api/sync/minds/<mind>/links → 201 CreatedLink. A snapshot shows steps up to at_seq (default: the server's last_seq). */
export const CreateLink = z.object({ kind: LinkKind, at_seq: z.number().int().nonnegative().optional(), label: z.string().max(100).optional() });
export const CreatedLink = z.object({ id: z.string(), kind: LinkKind, token: Token, path: z.string(), at_seq: z.number().int().nonnegative().nullable() });
export type CreatedLink = z.infer<typeof CreatedLink>;

/** GET /api/sync/minds/<mind>/links → 200 {links: LinkInfo[]} (no tokens: the server keeps only hashes). */
export const Guest = z.object({ name: z.string(), messages: z.number().int(), last_at: z.string() });
export const LinkInfo = z.object({
  id: z.string(),
  kind: LinkKind,
  label: z.string().nullable(),
  at_seq: z.number().int().nullable(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  /** Who has written through it (invites). */
  guests: z.array(Guest),
});
export type LinkInfo = z.infer<typeof LinkInfo>;
// DELETE /api/sync/minds/<mind>/links/<id> → 204: revoked at once, for every server instance.

/**
 * GET /api/sync/minds/<mind>/inbox → 200 {messages: Inbound[]}: guests'
 * messages not yet delivered. The runner appends each as a `message` step
 * whose step_id is the message's id; a message counts as delivered once a
 * step with its id has been uploaded, so a crash between fetch and upload
 * neither loses nor duplicates it.
 */
export const Inbound = z.object({ id: z.string(), from: z.string(), content: z.string(), created_at: z.string(), link: z.string() });
export type Inbound = z.infer<typeof Inbound>;

// ---- links (anyone holding /s/<token>) -----------------------------------

/** GET /api/share/<token> → 200 SharedMind; 404 not_found (unknown or revoked) with no content beyond the error. */
export const SharedMind = z.object({
  kind: LinkKind,
  name: z.string(),
  /** A snapshot's last step; null for live and invite links. */
  at_seq: z.number().int().nullable(),
  /** The newest seq this link may read now. */
  last_seq: z.number().int().nonnegative(),
  trajectories: z.array(WireTrajectory),
});
export type SharedMind = z.infer<typeof SharedMind>;

/**
 * GET /api/share/<token>/steps?traj=T&after=S&limit=N (oldest first after S)
 * or ?traj=T&before=S&limit=N (the N newest before S, oldest first)
 * → 200 {steps: WireStep[], last_seq}. Omitting traj reads every trajectory.
 */
export const StepPage = z.object({ steps: z.array(WireStep), last_seq: z.number().int().nonnegative() });
export type StepPage = z.infer<typeof StepPage>;

// GET /api/share/<token>/locate/<step_id> → 200 {seq, traj} | 404.
export const Located = z.object({ seq: z.number().int(), traj: z.string() });
// GET /api/share/<token>/search?q=…&limit=N → 200 {hits: [{seq, id, traj}], truncated}.
export const SearchHits = z.object({ hits: z.array(z.object({ seq: z.number().int(), id: z.string(), traj: z.string() })), truncated: z.boolean() });
// GET /api/share/<token>/blobs/<name> → 200 text/plain | 404.

/**
 * GET /api/share/<token>/events?after=S (or the Last-Event-ID header, which
 * wins) → text/event-stream, live and invite links only (a snapshot: 404).
 * Each new step is `event: step`, `id: <seq>`, `data: <WireStep JSON>`; a
 * comment line every 15 s keeps proxies from closing it. A revoked link's
 * stream gets `event: revoked` and ends.
 */
export const STEP_EVENT = "step";
export const REVOKED_EVENT = "revoked";

/** POST /api/share/<token>/messages {from, content} → 202 {id}. Invites only: other links get 403 read_only. */
export const GuestMessage = z.object({
  from: z
    .string()
    .trim()
    .min(1)
    .max(INVITE_LIMITS.nameChars)
    .refine((s) => !/[\p{Cc}\p{Cf}]/u.test(s), "a name has no control characters"),
  content: z.string().trim().min(1).max(INVITE_LIMITS.messageChars),
});
export type GuestMessage = z.infer<typeof GuestMessage>;

export const sharePath = (token: string) => `/s/${token}`;
