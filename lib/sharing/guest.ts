// A guest on an invite link, in their browser: the name they write under
// (kept in localStorage, so it is there next time) and sending, with the
// server's refusals turned into sentences a person can act on.
import { ApiRequestError } from "../sync/client/http";
import { type ShareClient } from "./client";

const GUEST_NAME_KEY = "reverie-guest-name";

export const savedGuestName = (): string => localStorage.getItem(GUEST_NAME_KEY) ?? "";
export const saveGuestName = (name: string): void => localStorage.setItem(GUEST_NAME_KEY, name);

export class InviteRevokedError extends Error {}

/** Rejects with a readable error; an InviteRevokedError when the link is gone. */
export async function sendAsGuest(client: ShareClient, name: string, content: string): Promise<void> {
  if (!name.trim()) throw new Error("Pick a name first: it is who the mind sees writing.");
  try {
    await client.send(name.trim(), content);
  } catch (e) {
    if (!(e instanceof ApiRequestError)) throw e;
    if (e.status === 429) throw new Error(`Too many messages for now: try again in ${e.retryAfter ?? 60} s.`, { cause: e });
    if (e.status === 404) throw new InviteRevokedError("This invite was revoked: the message was not sent.", { cause: e });
    throw new Error(`The message was not sent: ${e.message}`, { cause: e });
  }
}
