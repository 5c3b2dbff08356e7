// What comes in through an invite or alert link, as steps of the mind, the same in
// whichever home delivers it (the tab's inbox pass, or the server runner's).
// Each step's id is the request's, so it is appended (and uploaded) once. Pure.
import { stampStep } from "../trajectory/schema";
import type { Inbound, InboundAlert, InboundControl } from "./api";
import type { ControlAction } from "./roles";

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
