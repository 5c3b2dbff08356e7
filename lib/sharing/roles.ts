// Who may do what through a link: the one table the server enforces on every
// /api/share route and the invite page reads to say what its holder may do.
// Pure. The owner (the mind's own browser, with its write token) does
// everything and never goes through a link.
import * as z from "zod";

/** An invite's role, chosen when it is made: each one may do what the one before it may, and more. */
export const InviteRole = z.enum(["guest", "member", "operator"]);
export type InviteRole = z.infer<typeof InviteRole>;
/** What an invite made before roles existed is: it could read the whole stream and talk. */
export const DEFAULT_INVITE_ROLE: InviteRole = "member";

export type Capability =
  /** Read the mind's conversation with people: its `message` steps. */
  | "conversation"
  /** Read every step (thoughts, commands, outputs) and the blobs behind them, and search them. */
  | "stream"
  /** Write to the mind under a name. */
  | "talk"
  /** Pause, resume and stop the mind. */
  | "control"
  /** Read, add, edit, complete and forget its memories and goals (each change a step the mind sees). */
  | "curate"
  /** Read what the mind has spent, against its caps. */
  | "usage"
  /** Post alerts into the mind's stream (an alert link, and nothing else). */
  | "alert";

/** A link's holder: its kind, and for an invite, its role. */
export type Holder = { kind: "snapshot" | "live" | "alert" } | { kind: "invite"; role: InviteRole };

const TABLE: Record<"snapshot" | "live" | "alert" | InviteRole, readonly Capability[]> = {
  snapshot: ["conversation", "stream"],
  live: ["conversation", "stream"],
  alert: ["alert"],
  guest: ["conversation", "talk"],
  member: ["conversation", "stream", "talk"],
  operator: ["conversation", "stream", "talk", "control", "curate", "usage"],
};

export function capabilities(h: Holder): readonly Capability[] {
  return TABLE[h.kind === "invite" ? h.role : h.kind];
}

export function can(h: Holder, cap: Capability): boolean {
  return capabilities(h).includes(cap);
}

/** What an invite's holder may do, in words, for the invite page and the share bar. */
export const ROLE_WORDS: Record<InviteRole, string> = {
  guest: "talk to the mind and read its conversations with people",
  member: "talk to the mind and read everything it thinks and does",
  operator: "talk to the mind, read everything it thinks and does, pause, resume or stop it, curate its memories and goals, and see what it spends",
};

/** The step kinds a holder without `stream` may read. */
export const CONVERSATION_KINDS: readonly string[] = ["message"];

/** Said before a guest's first message, and in the mind's own instructions: a shared mind keeps no secrets. */
export const NO_SECRETS =
  "Everything said to this mind may be shared with everyone who talks to it: it keeps no secrets, and it may repeat what you say to others.";

/** What an operator may ask of the mind from an invite page. */
export const ControlAction = z.enum(["pause", "resume", "stop"]);
export type ControlAction = z.infer<typeof ControlAction>;
