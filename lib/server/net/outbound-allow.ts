import "server-only";
// OUTBOUND_ALLOW: the loopback, private and link-local addresses the host
// lets the server reach for an address a user supplied (an own-key mind's
// model base URL; later webhooks and push), as `host:port` entries. Nothing
// is listed by default, so a base URL at the host's own database or cloud
// metadata is refused. An entry names an IP address or localhost, never
// another name: what a name resolves to can change, the host's word cannot.
import { isIP } from "node:net";
import * as z from "zod";
import { isLocalhostName, type ListedPort } from "./address-policy";

export type OutboundAllow = { ok: true; entries: ListedPort[] } | { ok: false; problems: string[] };

const EXAMPLES = "such as 127.0.0.1:8080, [::1]:8080 or localhost:11434";

/** One entry, `host:port`: an IPv4 address, an IPv6 address in brackets, or localhost. */
const OutboundAllowEntry = z.string().transform((entry, ctx): ListedPort => {
  const problem = (message: string) => {
    ctx.addIssue({ code: "custom", message: `OUTBOUND_ALLOW: "${entry}" ${message}` });
    return z.NEVER;
  };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry)) return problem(`is a URL; an entry is an address and a port, ${EXAMPLES}`);
  const m = /^(\[[^\]]*\]|[^:[\]]*):(\d+)$/.exec(entry);
  if (!m) return problem(`is not an address and a port (${EXAMPLES}; an IPv6 address goes in brackets)`);
  const [, written = "", digits = ""] = m;
  const port = Number(digits);
  if (port < 1 || port > 65535) return problem("has a port outside 1 to 65535");
  const bracketed = written.startsWith("[");
  const host = (bracketed ? written.slice(1, -1) : written).toLowerCase();
  if (!host) return problem(`has no address before its port (${EXAMPLES})`);
  const family = isIP(host);
  if (bracketed && family !== 6) return problem("has something in brackets that is not an IPv6 address");
  if (family === 6 && !bracketed) return problem("has an IPv6 address that is not in brackets");
  if (family !== 0) return { host, port };
  if (isLocalhostName(host)) return { host: "localhost", port };
  return problem(`names a host (${host}); list its IP address with the port instead, or localhost: a name's addresses can change, the host's word cannot`);
});

/**
 * OUTBOUND_ALLOW: entries separated by commas or whitespace; unset or blank
 * lists nothing. Each malformed entry is a problem that names it (`npm start`
 * refuses to start on any).
 */
export function parseOutboundAllow(value: string | undefined): OutboundAllow {
  const entries: ListedPort[] = [];
  const problems: string[] = [];
  for (const entry of (value ?? "").split(/[\s,]+/).filter(Boolean)) {
    const parsed = OutboundAllowEntry.safeParse(entry);
    if (parsed.success) entries.push(parsed.data);
    else problems.push(...parsed.error.issues.map((i) => i.message));
  }
  return problems.length ? { ok: false, problems } : { ok: true, entries };
}

/** How an entry is written back (in the start-up line). */
export const listedPortText = ({ host, port }: ListedPort) => `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
