import "server-only";
// Who is calling the proxy: a bearer token the host handed out (each token is
// a client of its own), else an anonymous id in a signed cookie. The caps are
// per client, so an id must not be forgeable: the cookie carries an HMAC, and
// a missing or forged one is replaced by a fresh id.
import { createHash, timingSafeEqual } from "node:crypto";
import { issueCookieId, signedCookieId } from "../http/signed-cookie";

export const CLIENT_COOKIE = "reverie_client";

export type Identity =
  | { ok: true; clientId: string; /** Set when a new anonymous id was issued. */ setCookie?: string }
  | { ok: false; status: 401; message: string };

const sha256 = (s: string) => createHash("sha256").update(s).digest();

/** A token's client id: a prefix of its hash, so ids can be logged and stored without the token. */
export const tokenClientId = (token: string) => `token:${sha256(token).toString("hex").slice(0, 16)}`;

/** Whether `given` is one of `tokens`, in time that does not depend on where they differ (hashes make lengths equal). */
function knownToken(given: string, tokens: readonly string[]): string | undefined {
  const g = sha256(given);
  let hit: string | undefined;
  for (const t of tokens) if (timingSafeEqual(g, sha256(t)) && hit === undefined) hit = t;
  return hit;
}

/** Whether `request` carries `Authorization: Bearer <token>` for exactly this token (none configured: never). */
export function bearsToken(request: Request, token: string | undefined): boolean {
  if (!token) return false;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  return m?.[1] !== undefined && knownToken(m[1], [token]) !== undefined;
}

/**
 * Identify the caller of `request`. `cookieSecret` is only asked for when
 * there is no bearer token (it lives in SQL). An Authorization header that
 * is not one of `tokens` is refused: falling back to the cookie would let a
 * mistyped token spend as someone else.
 */
export async function identify(request: Request, tokens: readonly string[], cookieSecret: () => Promise<Buffer>): Promise<Identity> {
  const auth = request.headers.get("authorization");
  if (auth !== null) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    const token = m?.[1] !== undefined ? knownToken(m[1], tokens) : undefined;
    if (token === undefined) return { ok: false, status: 401, message: "unknown bearer token (use a token the host gave you, or no Authorization header for an anonymous session)" };
    return { ok: true, clientId: tokenClientId(token) };
  }
  const secret = await cookieSecret();
  const existing = signedCookieId(request, CLIENT_COOKIE, secret);
  if (existing) return { ok: true, clientId: `anon:${existing}` };
  const fresh = issueCookieId(request, CLIENT_COOKIE, "/api/llm", secret);
  return { ok: true, clientId: `anon:${fresh.id}`, setCookie: fresh.setCookie };
}
