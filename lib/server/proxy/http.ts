import "server-only";
// The proxy's JSON error responses, in OpenAI's error shape (`{"error": {...}}`)
// so any OpenAI client shows the message, and the key scrubber every relayed
// upstream text passes through.

export type ProxyErrorType =
  | "not_configured"
  | "invalid_config"
  | "unauthorized"
  | "invalid_request"
  | "request_too_large"
  | "spend_cap"
  | "ledger_unavailable"
  | "upstream_error"
  | "not_found";

export function errorResponse(
  status: number,
  type: ProxyErrorType,
  message: string,
  opts: { extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Response {
  return Response.json({ error: { message, type, ...opts.extra } }, { status, headers: { "Cache-Control": "no-store", ...opts.headers } });
}

/** Adds a Set-Cookie (a newly issued client id) to any response. */
export function withCookie(res: Response, setCookie: string | undefined): Response {
  if (setCookie) res.headers.append("Set-Cookie", setCookie);
  return res;
}

export const REDACTED = "[redacted]";

/** Removes the host key from text that came from upstream (an error that echoes the request, say). */
export function keyScrubber(key: string): (text: string) => string {
  if (!key) return (t) => t;
  return (text) => (text.includes(key) ? text.split(key).join(REDACTED) : text);
}
