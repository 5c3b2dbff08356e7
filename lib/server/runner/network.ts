import "server-only";
// The network of a mind on the server. Its permissions hold as in the tab
// (off by default), and the host bounds them further: a mind reaches at most
// what RUNNER_NETWORK_ALLOW lists (unset: nothing), whatever its own list
// says, and never a loopback, private or link-local address the host did not
// list itself, refused before any connection (../net/guarded-fetch.ts).
//
// just-bash has a guard of its own (`denyPrivateRanges`, with the checked
// address pinned to the connection), but it refuses every private address,
// so a host could not let minds reach a service of its own on loopback; the
// sandbox is handed this module's fetch instead, for curl and for the agent's
// commands alike.
import * as z from "zod";
import type { SandboxNetwork } from "../../shell/just-bash-sandbox";
import { FIXED_LIMITS } from "../../shell/limits";
import { allowListNet, type FetchFn } from "../../shell/net";
import { urlAllowed, type Permissions } from "../../trajectory/permissions";
import { blockedKind, listedAddresses, portOf } from "../net/address-policy";
import { guardedFetchFn, guardedSecureFetch, systemResolver, type Guard, type Resolver } from "../net/guarded-fetch";

export type HostAllow = { ok: true; prefixes: string[] } | { ok: false; problems: string[] };

/** One entry of RUNNER_NETWORK_ALLOW, as `origin` + path (the host lower-cased, a default port dropped). */
const HostAllowEntry = z.string().transform((entry, ctx) => {
  const problem = (message: string) => {
    ctx.addIssue({ code: "custom", message: `RUNNER_NETWORK_ALLOW: "${entry}" ${message}` });
    return z.NEVER;
  };
  let u: URL;
  try {
    u = new URL(entry);
  } catch {
    return problem("is not a URL (an allowed prefix is a scheme, a host and optionally a path, such as https://api.example.com/v1/)");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return problem(`is not an http or https URL (it is ${u.protocol})`);
  if (!u.hostname) return problem("has no host");
  if (u.username || u.password) return problem("has a user name or password in it");
  if (u.search || u.hash) return problem("has a query or fragment (an allowed prefix is a scheme, a host and optionally a path)");
  return `${u.origin}${u.pathname}`;
});

/**
 * RUNNER_NETWORK_ALLOW: URL prefixes, separated by commas or whitespace;
 * unset or blank allows nothing. Each malformed entry is a problem that names
 * it (`npm start` refuses to start on any).
 */
export function parseNetworkAllow(value: string | undefined): HostAllow {
  const entries = (value ?? "").split(/[\s,]+/).filter(Boolean);
  const allow: string[] = [];
  const problems: string[] = [];
  for (const entry of entries) {
    const parsed = HostAllowEntry.safeParse(entry);
    if (parsed.success) allow.push(parsed.data);
    else problems.push(...parsed.error.issues.map((i) => i.message));
  }
  if (problems.length) return { ok: false, problems };
  return { ok: true, prefixes: [...new Set(allow)] };
}

/**
 * What a mind may reach on the server: the URLs both lists allow. Two
 * prefixes of one origin allow together the narrower one, when one holds the
 * other; prefixes of different origins, or side by side, allow nothing
 * together. Duplicates, and prefixes inside another of the result, are left
 * out.
 */
export function effectiveAllow(mind: readonly string[], host: readonly string[]): string[] {
  const both = new Set<string>();
  for (const m of mind) {
    for (const h of host) {
      const narrower = within(m, h) ? m : within(h, m) ? h : null;
      if (narrower) both.add(prefixOf(narrower));
    }
  }
  return [...both].filter((p) => ![...both].some((q) => q !== p && within(p, q)));
}

export interface HostBoundNetwork {
  /** The prefixes this mind may reach on this server (effectiveAllow). */
  allow: string[];
  /** The guarded fetch of the agent's commands (lib/shell/net.ts's FetchFn); `sandbox.net` is built on it. */
  fetch: FetchFn;
  /** justBashSandbox's `network`: curl and the agent's commands, both through the guard, with the server's own refusals. */
  sandbox: SandboxNetwork;
}

/**
 * A mind's network on the server: `permissions` are the mind's,
 * `hostAllow` is parseNetworkAllow's list. Hand `sandbox` to
 * justBashSandbox as its `network`. `resolve` is the system's resolver unless
 * a test hands one.
 */
export function hostBoundNetwork(permissions: Permissions, hostAllow: readonly string[], options: { resolve?: Resolver } = {}): HostBoundNetwork {
  const allow = effectiveAllow(permissions.network.allow, hostAllow);
  const guard = networkGuard(permissions.network.allow, hostAllow, options.resolve ?? systemResolver);
  const guarded = guardedFetchFn(guard, FIXED_LIMITS.maxFetchBytes);
  const checked = allowListNet(allow, guarded);
  return {
    allow,
    fetch: guarded,
    sandbox: {
      fetch: guardedSecureFetch(guard),
      net: {
        async fetchText(url, signal) {
          const why = guard.refuseUrl(url);
          return why ? { ok: false, error: `network: ${why}: ${url}` } : checked.fetchText(url, signal);
        },
      },
    },
  };
}

/** The checks of every request: the two lists, then each address the URL's host is or resolves to. */
export function networkGuard(mind: readonly string[], host: readonly string[], resolve: Resolver): Guard {
  const allow = effectiveAllow(mind, host);
  const listed = listedAddresses(host);
  return {
    refuseUrl: (url) => urlRefusal(url, mind, host, allow),
    refuseAddress(url, address) {
      const kind = blockedKind(address);
      if (!kind || listed(address, portOf(url))) return null;
      return `${kind}, which this server's host has not listed in RUNNER_NETWORK_ALLOW`;
    },
    resolve,
  };
}

/** Why a mind may not fetch `url` on this server by its lists (before any address is looked at), or null. */
function urlRefusal(url: string, mind: readonly string[], host: readonly string[], allow: readonly string[]): string | null {
  if (host.length === 0) return "this server's host allows minds no network (RUNNER_NETWORK_ALLOW is empty)";
  if (mind.length === 0) return "the network is off for this mind (its human can allow URL prefixes in Settings)";
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) return "not an http(s) URL";
  if (!urlAllowed(url, mind)) return `URL not in this mind's allow-list (${mind.join(", ")})`;
  if (!urlAllowed(url, host)) return `URL not in what this server's host allows (on this server this mind may reach ${allow.length ? allow.join(", ") : "nothing"})`;
  const path = new URL(url).pathname;
  // As just-bash's own check: under a prefix with a path, a path a server may read another way is refused.
  if (!allow.some((p) => urlAllowed(url, [p]) && (new URL(p).pathname === "/" || !ambiguousPath(path)))) {
    return "URL path has ambiguous separators (an encoded '/', '\\', ';' or '.', or an encoding inside an encoding)";
  }
  return null;
}

const prefixOf = (p: string) => {
  const u = new URL(p);
  return `${u.origin}${u.pathname}`;
};

/** Does every URL under prefix `inner` fall under prefix `outer`? */
function within(inner: string, outer: string): boolean {
  if (!URL.canParse(inner) || !URL.canParse(outer)) return false;
  return urlAllowed(prefixOf(inner), [prefixOf(outer)]);
}

/** just-bash's rule (network/allow-list.ts): a path whose meaning can change when a proxy or server decodes it once more. */
function ambiguousPath(pathname: string): boolean {
  let candidate = pathname;
  for (let pass = 0; pass < 3; pass++) {
    if (/[\\;]|%(?![0-9a-f]{2})|%2f|%2e|%5c|%3b/i.test(candidate)) return true;
    let decoded: string;
    try {
      decoded = decodeURIComponent(candidate);
    } catch {
      return true;
    }
    if (decoded === candidate) return false;
    candidate = decoded;
  }
  return candidate.includes("%");
}
