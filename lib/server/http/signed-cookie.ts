import "server-only";
// An anonymous client id in a signed cookie: `<id>.<HMAC of id>`. Caps and
// quotas are per client, so an id must not be forgeable: a missing or forged
// cookie is replaced by a fresh id. Used by the proxy (spend caps) and the
// sync API (quotas), each with a cookie of its own scoped to its path.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const MAX_AGE_S = 400 * 24 * 3600; // browsers cap cookie lifetimes at 400 days

const sign = (secret: Buffer, id: string) => createHmac("sha256", secret).update(id).digest("base64url");

function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The id in the request's cookie `name`, if its signature checks out. */
export function signedCookieId(request: Request, name: string, secret: Buffer): string | undefined {
  const value = cookieValue(request.headers.get("cookie"), name);
  if (!value) return undefined;
  const dot = value.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const id = value.slice(0, dot);
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(id)) return undefined;
  const given = Buffer.from(value.slice(dot + 1), "base64url");
  const want = Buffer.from(sign(secret, id), "base64url");
  return given.length === want.length && timingSafeEqual(given, want) ? id : undefined;
}

/** A fresh id and the Set-Cookie that carries it (HttpOnly, SameSite=Strict, Secure over https). */
export function issueCookieId(request: Request, name: string, path: string, secret: Buffer): { id: string; setCookie: string } {
  const id = randomBytes(16).toString("base64url");
  const secure = new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  return { id, setCookie: `${name}=${id}.${sign(secret, id)}; Path=${path}; Max-Age=${MAX_AGE_S}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}` };
}
