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
import { TierLine } from "../context/rollups";
import { PacingSnapshot, ShellState } from "../mind/state";
import { BudgetConfig } from "../trajectory/schema";
import { ControlAction, InviteRole } from "./roles";
import { Curation, CurationRequest } from "../shell/curation";

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

export const ALERT_LIMITS = {
  titleChars: 200,
  bodyChars: 20_000,
  /** Alerts per alert link per minute; over it, 429 with Retry-After. */
  perMinute: 60,
  /** Alerts from one link in a minute that reach the mind one by one; past them, the rest of that minute is one observation with the count and the titles. */
  burst: 5,
  /** Titles a coalesced observation lists (the count says how many more). */
  stormTitles: 20,
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

/** Where a synced mind lives: its lease (who writes it now, if anyone), and whether a server runner keeps it alive. */
export const ServerHome = z.object({
  keep_alive: z.boolean(),
  /** A panic stop (or Stop) from a tab: no runner takes it until a tab starts it again. */
  halted: z.boolean(),
  lease: z.object({ holder: z.string(), epoch: z.number().int().positive(), expires_at: z.string(), live: z.boolean() }).nullable(),
});
export type ServerHome = z.infer<typeof ServerHome>;

/** GET /api/sync/minds/<mind> → 200 SyncState: where to resume, and the mind's use of its quota. */
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
});
export type LeaseRequest = z.infer<typeof LeaseRequest>;
export const Lease = z.object({ holder: z.string(), epoch: z.number().int().positive(), expires_at: z.string() });
export type Lease = z.infer<typeof Lease>;

/** PUT /api/sync/minds/<mind>/blobs/<name> with the text as body (text/plain) → 204. Idempotent; blobs never change. */
export const BlobName = z.string().regex(/^[^\0]{1,300}$/).refine((s) => !s.split("/").includes(".."), "no .. in a blob name");

/** `alert`: a link that may only post alerts (CI failures, monitors, bots) into the mind's stream; it reads nothing. */
export const LinkKind = z.enum(["snapshot", "live", "invite", "alert"]);
export type LinkKind = z.infer<typeof LinkKind>;

/**
 * POST /api/sync/minds/<mind>/links → 201 CreatedLink. A snapshot shows steps up to at_seq (default: the server's last_seq).
 * An invite carries a role (lib/share/roles.ts; default member); other kinds none (400 if given one).
 */
export const CreateLink = z
  .object({ kind: LinkKind, at_seq: z.number().int().nonnegative().optional(), label: z.string().max(100).optional(), role: InviteRole.optional() })
  .refine((l) => l.kind === "invite" || l.role === undefined, "only an invite carries a role");
export const CreatedLink = z.object({
  id: z.string(),
  kind: LinkKind,
  token: Token,
  path: z.string(),
  at_seq: z.number().int().nonnegative().nullable(),
  /** An invite's role; null for other kinds (and absent from an older server). */
  role: InviteRole.nullable().default(null),
});
export type CreatedLink = z.infer<typeof CreatedLink>;

/** GET /api/sync/minds/<mind>/links → 200 {links: LinkInfo[]} (no tokens: the server keeps only hashes). */
export const Guest = z.object({ name: z.string(), messages: z.number().int(), last_at: z.string() });
export const LinkInfo = z.object({
  id: z.string(),
  kind: LinkKind,
  role: InviteRole.nullable().default(null),
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
export const Inbound = z.object({ id: z.string(), from: z.string(), content: z.string(), created_at: z.string(), link: z.string(), role: InviteRole.optional() });
export type Inbound = z.infer<typeof Inbound>;
/** An operator's control request, delivered like a message (a step with its id records it, once); the mind's home obeys it. */
export const InboundControl = z.object({ id: z.string(), from: z.string(), action: ControlAction, created_at: z.string(), link: z.string() });
export type InboundControl = z.infer<typeof InboundControl>;
export const AlertSeverity = z.enum(["info", "warning", "error", "critical"]);
export type AlertSeverity = z.infer<typeof AlertSeverity>;
/**
 * An alert not yet delivered: one alert (count 1), or a storm coalesced (the
 * alerts past ALERT_LIMITS.burst from one link within a minute: their count,
 * their first titles, the worst severity), delivered once its minute is over.
 */
export const InboundAlert = z.object({
  id: z.string(),
  link: z.string(),
  /** The alert link's label (what its owner named it), null when none. */
  label: z.string().nullable(),
  created_at: z.string(),
  severity: AlertSeverity,
  title: z.string(),
  body: z.string().optional(),
  count: z.number().int().positive(),
  titles: z.array(z.string()),
});
export type InboundAlert = z.infer<typeof InboundAlert>;
/** An operator's change to the mind's memories or goals, delivered like a control request: the mind's home applies it and records it as a step with its id. */
export const InboundCuration = z.intersection(Curation, z.object({ created_at: z.string(), link: z.string() }));
export type InboundCuration = z.infer<typeof InboundCuration>;
/** The inbox: messages, control requests, alerts and changes to the mind's memory not yet delivered, oldest first (the last three absent from an older server). */
export const InboxContent = z.object({
  messages: z.array(Inbound),
  controls: z.array(InboundControl).default([]),
  alerts: z.array(InboundAlert).default([]),
  curations: z.array(InboundCuration).default([]),
});
export type InboxContent = z.infer<typeof InboxContent>;

// ---- links (anyone holding /s/<token>) -----------------------------------

/** GET /api/share/<token> → 200 SharedMind; 404 not_found (unknown or revoked) with no content beyond the error. */
export const SharedMind = z.object({
  kind: LinkKind,
  /** An invite's role (what its holder may do: lib/share/roles.ts); null for other kinds. */
  role: InviteRole.nullable().default(null),
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

/**
 * POST /api/share/<token>/control {action, from?} → 202 {id}: an operator's
 * pause, resume or stop; the mind's home (tab or server) obeys it and records
 * who asked as a step. Any other link: 403 forbidden. A resume of a mind that
 * was stopped (not paused): 409 stopped (only its owner starts it again).
 */
export const ControlRequest = z.object({ action: ControlAction, from: GuestMessage.shape.from.optional() });
export type ControlRequest = z.infer<typeof ControlRequest>;

/**
 * POST /api/share/<token>/memory {what, op, target?, text?, tags?, from?} →
 * 202 {id}: an operator adds, edits or forgets a memory, or sets, changes,
 * completes or drops a goal (lib/shell/curation.ts); queued until the mind's
 * home (tab or server) applies it and records it as a step. GET → 200
 * SharedMemory. Any link but an operator's invite: 403 forbidden.
 */
export const CurationPost = z.intersection(CurationRequest, z.object({ from: GuestMessage.shape.from.optional() }));
export type CurationPost = z.infer<typeof CurationPost>;
export const GoalWire = z.object({ line: z.number().int(), id: z.string(), done: z.boolean(), goal: z.string() });
export const MemoryWire = z.object({
  id: z.string(),
  created: z.string(),
  tags: z.array(z.string()),
  text: z.string(),
  by: z.string().optional(),
  edited: z.object({ at: z.string(), by: z.string() }).optional(),
});
/** The memories and goals in the mind's workspace as the server last has it (synced from its tab, or its runner's), and the changes still waiting for its home. */
export const SharedMemory = z.object({ goals: z.array(GoalWire), memories: z.array(MemoryWire), pending: z.array(InboundCuration) });
export type SharedMemory = z.infer<typeof SharedMemory>;

/** One UTC hour or day of model calls, as lib/mind/usage-series.ts sums it (its field names, so the owner's table and charts draw it as it is). */
export const UsageBucketWire = z.object({
  /** The bucket's UTC start, epoch ms. */
  start: z.number().int(),
  calls: z.number().int().nonnegative(),
  inputTokens: z.number().nonnegative(),
  cachedInputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  usd: z.number().nonnegative(),
});
/** Oldest first; the last bucket holds `now`. */
export const UsageSeriesWire = z.object({ bucket: z.enum(["hour", "day"]), buckets: z.array(UsageBucketWire) });

/**
 * GET /api/share/<token>/usage → 200 MindUsage: what the mind spent, as its
 * owner's Usage tab shows it, summed on the server from the model calls its
 * synced steps record. Operators' invites only (any other link: 403 forbidden).
 */
export const MindUsage = z.object({
  /** The server's clock when it summed, epoch ms: the periods below are the UTC hour and day that hold it. */
  now: z.number().int(),
  /** The mind's spend caps as its synced settings hold them; null when the server has none (settings never synced, or a mind from before caps). */
  caps: BudgetConfig.nullable(),
  /** This UTC hour and this UTC day, as the caps count them; and what the last 60 minutes cost (USD per hour). */
  hour_usd: z.number().nonnegative(),
  day_usd: z.number().nonnegative(),
  burn_usd_per_hour: z.number().nonnegative(),
  /** The last 48 hours and the last 30 days. */
  hour: UsageSeriesWire,
  day: UsageSeriesWire,
});
export type MindUsage = z.infer<typeof MindUsage>;

/**
 * POST /api/share/<token>/alerts {title, body?, severity?} → 202 {id,
 * coalesced}: alert links only (any other: 403 forbidden). Over
 * ALERT_LIMITS.perMinute: 429 with Retry-After; a body over 64 KiB: 413.
 * `coalesced`: this alert is past the minute's burst and reaches the mind
 * folded into one observation when the minute is over.
 */
export const AlertPost = z.object({
  title: z
    .string()
    .trim()
    .min(1)
    .max(ALERT_LIMITS.titleChars)
    .refine((s) => !/[\p{Cc}\p{Cf}]/u.test(s), "a title has no control characters"),
  body: z.string().trim().max(ALERT_LIMITS.bodyChars).optional(),
  severity: AlertSeverity.default("info"),
});
export type AlertPost = z.infer<typeof AlertPost>;

export const sharePath = (token: string) => `/s/${token}`;

// ---- the mind's state (its own browser and the server runner; Bearer write token) ----
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
/** A mind's settings as the server keeps them: its record (lib/store/minds/mind-record.ts) without any key, never with one. */
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
