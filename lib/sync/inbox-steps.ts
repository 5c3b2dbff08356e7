// What comes in through an invite or alert link, as steps of the mind, the same in
// whichever home delivers it (the tab's inbox pass, or the server runner's).
// Each step's id is the request's, so it is appended (and uploaded) once. Pure.
import { parseStep, stampStep, type Step } from "../trajectory/schema";
import type { InboundChange } from "../mind/state/inbound";
import type { InboxContent, Inbound, InboundAlert, InboundControl } from "./inbox-wire";
import type { ControlAction } from "../sharing/roles";

/**
 * One thing that came in: a step for the mind to write (a control request's
 * to obey as well; a config step's with the keyless settings it records), or
 * a change for the mind to make and record (its step gets the change's id).
 */
export type InboxItem = { kind: "step"; step: Step; control?: InboundControl; settings?: Record<string, unknown> } | { kind: "change"; change: InboundChange };

/**
 * Everything in an inbox, in the order it reaches the mind, whichever home
 * delivers it: people's messages, then alerts, then changes to its memory,
 * then its owner's own, then operators' controls (a pause is recorded after
 * what came before it).
 * The one list of the inbox's kinds.
 */
export function inboxItems(content: InboxContent, name: string, now: number): InboxItem[] {
  return [
    ...content.messages.map((m): InboxItem => ({ kind: "step", step: inviteStep(m, name, now) })),
    ...content.alerts.map((a): InboxItem => ({ kind: "step", step: alertStep(a, now) })),
    ...content.curations.map(({ created_at: _at, link: _link, ...c }): InboxItem => ({ kind: "change", change: { id: c.id, kind: "curation", body: c } })),
    ...content.owner.flatMap((o): InboxItem[] => {
      if (o.kind !== "step") return [{ kind: "change", change: { id: o.id, kind: o.kind, body: o.change } }];
      const step = parseStep(o.step);
      return step.ok ? [{ kind: "step", step: step.step, ...(o.settings ? { settings: o.settings } : {}) }] : [];
    }),
    ...content.controls.map((c): InboxItem => ({ kind: "step", step: controlStep(c, now), control: c })),
  ];
}

/**
 * The step a guest's message becomes, tagged with the sender's role. A guest
 * who took the mind's own name is marked as a guest, so nobody reads their
 * words as the mind's.
 */
export function inviteStep(msg: Inbound, to: string, now: number) {
  const from = msg.from.trim().toLowerCase() === to.trim().toLowerCase() ? `${msg.from} (guest)` : msg.from;
  return stampStep({ type: "message", source: "invite", from, to, content: msg.content, ...(msg.role ? { role: msg.role } : {}), step_id: msg.id.toLowerCase() }, { id: msg.id, now });
}

const DONE: Record<ControlAction, string> = {
  pause: "paused you: you think no more until an operator resumes you or your owner starts you",
  resume: "resumed you",
  stop: "stopped you: only your owner can start you again",
};

/** The observation an operator's control request becomes: the mind reads who did what (source `control`). */
export function controlStep(c: InboundControl, now: number) {
  return stampStep(
    { type: "observation", source: "control", action: c.action, by: c.from, role: "operator", content: `${c.from} (operator) ${DONE[c.action]}, from an invite link.`, step_id: c.id.toLowerCase() },
    { id: c.id, now },
  );
}

/**
 * The observation an alert becomes (source `alert`): where it came from and
 * how bad, so the mind tells an automated alert from a person's word; a storm
 * says how many came and their titles.
 */
export function alertStep(a: InboundAlert, now: number) {
  const from = a.label ? `the alert link "${a.label}"` : "an alert link";
  const content =
    a.count === 1
      ? `Alert (${a.severity}) from ${from}: ${a.title}${a.body ? `\n${a.body}` : ""}`
      : `Alert storm from ${from}: ${a.count} more alerts within a minute, folded into this one (worst: ${a.severity}). Titles: ${a.titles.join("; ")}${a.count > a.titles.length ? `; and ${a.count - a.titles.length} more` : ""}`;
  return stampStep(
    { type: "observation", source: "alert", severity: a.severity, title: a.title, count: a.count, ...(a.label ? { link_label: a.label } : {}), content, step_id: a.id.toLowerCase() },
    { id: a.id, now },
  );
}
