// The share-link HTTP API (anyone holding /s/<token>, and the owner's link
// management), declared once for the page that reads a link (lib/sharing) and
// the server that serves it (lib/server/sharing). Pure: schemas, paths and
// limits, no I/O.
import * as z from "zod";
import { BudgetConfig } from "../trajectory/schema";
import { InboundCuration, AlertSeverity } from "../sync/inbox-wire";
import { Token, WireStep, WireTrajectory } from "../sync/wire";
import { CurationRequest } from "../shell/curation";
import { ControlAction, InviteRole } from "./roles";

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

/** `alert`: a link that may only post alerts (CI failures, monitors, bots) into the mind's stream; it reads nothing. */
export const LinkKind = z.enum(["snapshot", "live", "invite", "alert"]);
export type LinkKind = z.infer<typeof LinkKind>;

/**
 * POST /api/sync/minds/<mind>/links → 201 CreatedLink. A snapshot shows steps up to at_seq (default: the server's last_seq).
 * An invite carries a role (lib/sharing/roles.ts; default member); other kinds none (400 if given one).
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

/** GET /api/share/<token> → 200 SharedMind; 404 not_found (unknown or revoked) with no content beyond the error. */
export const SharedMind = z.object({
  kind: LinkKind,
  /** An invite's role (what its holder may do: lib/sharing/roles.ts); null for other kinds. */
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

/** One UTC hour or day of model calls, as lib/mind/budget/usage-series.ts sums it (its field names, so the owner's table and charts draw it as it is). */
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
