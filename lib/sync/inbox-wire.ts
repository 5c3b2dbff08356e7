// What comes in for a mind from outside while it is synced: guests' messages,
// operators' control requests and curations, alerts, and its owner's own
// steps and changes when another home holds it; schemas only. The steps each
// becomes are made in one place (./inbox-steps.ts), whichever home delivers
// them.
import * as z from "zod";
import { ControlAction, InviteRole } from "../sharing/roles";
import { Curation } from "../shell/curation";
import { SelfChange } from "../shell/self/change";
import { SyncedSettings } from "./state-wire";

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
/** The step kinds its owner hands a mind from a browser that does not hold it: a message, its settings. */
export const OWNER_STEP_KINDS = ["message", "config"] as const;
/**
 * POST /api/sync/minds/<mind>/owner → 202: what the mind's own browser hands
 * it while another home holds it (its lease is elsewhere): a step (a message;
 * a config step with the keyless settings it records), or a change to its
 * memory or its own texts. Kept until the mind's home records a step with the
 * change's id; the same id again is taken once.
 */
export const OwnerChange = z.discriminatedUnion("kind", [
  z.object({ id: z.string().min(1).max(64), kind: z.literal("step"), step: z.record(z.string(), z.unknown()), settings: SyncedSettings.optional() }),
  z.object({ id: z.string().min(1).max(64), kind: z.literal("curation"), change: Curation }),
  z.object({ id: z.string().min(1).max(64), kind: z.literal("self"), change: SelfChange }),
]);
export type OwnerChange = z.infer<typeof OwnerChange>;

/** The inbox: messages, control requests, alerts, changes to the mind's memory and its owner's own, not yet delivered, oldest first (all but the first absent from an older server). */
export const InboxContent = z.object({
  messages: z.array(Inbound),
  controls: z.array(InboundControl).default([]),
  alerts: z.array(InboundAlert).default([]),
  curations: z.array(InboundCuration).default([]),
  owner: z.array(OwnerChange).default([]),
});
export type InboxContent = z.infer<typeof InboxContent>;
