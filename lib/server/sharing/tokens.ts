import "server-only";
// Write tokens and link tokens: 32 random bytes (256 bits), base64url. The
// server stores only their SHA-256 digests and compares digests with
// timingSafeEqual, so neither a database dump nor a stopwatch reveals one.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { TOKEN_BYTES } from "@/lib/sync/wire";

export const newToken = (): string => randomBytes(TOKEN_BYTES).toString("base64url");

export const hashToken = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest();

// Compared against when there is no stored digest (unknown mind), so a miss costs the same as a wrong token.
const NOTHING = hashToken("");

/**
 * Whether `given` is the token whose digest is `stored`. Both sides are
 * 32-byte digests, so the comparison runs over equal lengths whatever was
 * sent, and its time does not depend on where a wrong token differs.
 */
export function tokenMatches(given: string | undefined, stored: Uint8Array | undefined): boolean {
  const want = stored && stored.length === NOTHING.length ? Buffer.from(stored) : NOTHING;
  const ok = timingSafeEqual(hashToken(given ?? ""), want);
  return ok && stored !== undefined;
}

/** The bearer token of an Authorization header, or undefined. */
export function bearerToken(request: Request): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  return m?.[1];
}
