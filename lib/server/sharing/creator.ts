import "server-only";
// Who is creating a synced mind, for its quotas: the id in a signed cookie
// of the sync API's own (issued with the first mind), else the address the
// request came from. The address is what Next puts in X-Forwarded-For: the
// peer's, unless a reverse proxy (or the client itself) set the header, so
// the last entry is taken (the one the nearest proxy added). A client can
// claim another address; the server-wide limits still bound it.
import { serverSecret } from "../db/secrets";
import type { Sql } from "../db/sql";
import { issueCookieId, signedCookieId } from "../http/signed-cookie";
import type { Creator } from "../sync/quota";

export const SYNC_COOKIE = "reverie_sync_client";

export async function syncCreator(request: Request, sql: Sql): Promise<Creator & { setCookie?: string }> {
  const secret = await serverSecret(sql, "client-cookie");
  const addr = clientAddress(request);
  const known = signedCookieId(request, SYNC_COOKIE, secret);
  if (known) return { clientId: known, addr, known: true };
  const fresh = issueCookieId(request, SYNC_COOKIE, "/api/sync", secret);
  return { clientId: fresh.id, addr, known: false, setCookie: fresh.setCookie };
}

function clientAddress(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-for");
  const last = forwarded?.split(",").at(-1)?.trim();
  return last || request.headers.get("x-real-ip")?.trim() || "unknown";
}
