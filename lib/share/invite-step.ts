// A guest's message as a step of the mind, the same in whichever home
// delivers it (the tab's inbox pass, or the server runner's). Pure.
import { stampStep } from "../trajectory/schema";
import type { Inbound } from "./api";

/**
 * The step a guest's message becomes: its id is the message's, so it is
 * appended (and uploaded) once. A guest who took the mind's own name is
 * marked as a guest, so nobody reads their words as the mind's.
 */
export function inviteStep(msg: Inbound, to: string, now: number) {
  const from = msg.from.trim().toLowerCase() === to.trim().toLowerCase() ? `${msg.from} (guest)` : msg.from;
  return stampStep({ type: "message", source: "invite", from, to, content: msg.content, step_id: msg.id.toLowerCase() }, { id: msg.id, now });
}
