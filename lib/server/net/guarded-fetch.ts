import "server-only";
// A request to an address a user supplied, made so that what was checked is
// what is reached: the URL against the allow-lists, then its host resolved
// (all of its addresses), every address against the address policy, and the
// connection opened to the address that was checked, through a lookup that
// answers only that address (no second resolution for DNS rebinding to slip
// into), on a connection of its own (no pool that could hand over a socket
// opened under another decision). A refusal happens before any connection.
// Redirects are the callers': each hop is a request of its own, checked again.
// Here: curl's and the agent's commands' requests (a mind's, on the server);
// outbound.ts is the server's own fetch over the same check.
import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { DefenseInDepthBox, type SecureFetch } from "just-bash";
import type { FetchFn } from "../../shell/net";
import { isLocalhostName, isLoopback } from "./address-policy";

/** What just-bash's curl gets back from a fetch. */
export type FetchResult = Awaited<ReturnType<SecureFetch>>;

export type Resolver = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

/** The system's resolver (getaddrinfo: /etc/hosts, then DNS), every address in its own order. */
export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

export interface Guard {
  /** Why a mind may not fetch `url` at all (its allow-lists), or null. */
  refuseUrl(url: string): string | null;
  /** Why a mind may not connect to `address` for `url` ("a loopback address, and …"), or null. */
  refuseAddress(url: URL, address: string): string | null;
  resolve: Resolver;
}

/** A request refused before any connection. Worded as just-bash's own refusals, so curl reports it the same way (exit 7). */
export class NetworkRefused extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`Network access denied: ${reason}: ${url}`);
    this.name = "NetworkRefused";
  }
}

export interface GuardedInit {
  method: "GET" | "HEAD";
  headers?: Headers | Record<string, string>;
  signal: AbortSignal;
  /** Bytes the body may have; past them the request ends with an error. */
  maxBytes: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** just-bash's own defaults for curl, which the tab's curl has too. */
export const CURL_LIMITS = { timeoutMs: 30_000, maxRedirects: 20, maxBytes: 10 * 1024 * 1024 };

/**
 * curl's fetch (just-bash's SecureFetch): GET and HEAD only, as just-bash
 * allows by default; every redirect hop checked as the first request was; one
 * deadline for them all. It runs as trusted code, as just-bash's own fetch
 * does: its defense-in-depth (no timers and more while a script runs) is for
 * the script, and none of the script's code runs in here.
 */
export function guardedSecureFetch(guard: Guard, limits = CURL_LIMITS): SecureFetch {
  return (url, options = {}) =>
    DefenseInDepthBox.runTrustedAsync(async () => {
      const listed = guard.refuseUrl(url);
      if (listed) throw new NetworkRefused(url, listed);
      const method = (options.method ?? "GET").toUpperCase();
      if (method !== "GET" && method !== "HEAD") throw new Error(`HTTP method '${method}' not allowed. Allowed methods: GET, HEAD`);
      const deadline = AbortSignal.timeout(Math.min(options.timeoutMs ?? limits.timeoutMs, limits.timeoutMs));
      const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
      const maxRedirects = Math.min(options.maxRedirects ?? limits.maxRedirects, limits.maxRedirects);
      let current = url;
      for (let hops = 0; ; hops++) {
        const result = await guardedRequest(current, { method, headers: options.headers, signal, maxBytes: limits.maxBytes }, guard);
        const location = result.headers.location;
        if (!REDIRECTS.has(result.status) || options.followRedirects === false || !location) return result;
        if (hops >= maxRedirects) throw new Error(`Too many redirects (max: ${maxRedirects})`);
        current = new URL(location, current).href;
      }
    });
}

/** The agent's commands' fetch (lib/shell/net.ts): one guarded GET; a redirect is an error, as net.ts asks (it could leave the list). */
export function guardedFetchFn(guard: Guard, maxBytes: number): FetchFn {
  return (url, init) =>
    DefenseInDepthBox.runTrustedAsync(async () => {
      let result: FetchResult;
      try {
        result = await guardedRequest(url, { method: "GET", signal: init.signal, maxBytes }, guard);
      } catch (e) {
        // net.ts names the URL that could not be fetched; the reason is what is left to say.
        throw e instanceof NetworkRefused ? new Error(`refused before connecting: ${e.reason}`) : e;
      }
      if (REDIRECTS.has(result.status)) throw new Error(`it redirects (HTTP ${result.status} to ${result.headers.location ?? "nowhere"}), and redirects are not followed`);
      const empty = [204, 205, 304].includes(result.status);
      return new Response(empty ? null : Buffer.from(result.body), { status: result.status, statusText: result.statusText, headers: Object.entries(result.headers) });
    });
}

export async function guardedRequest(url: string, init: GuardedInit, guard: Guard): Promise<FetchResult> {
  const listed = guard.refuseUrl(url);
  if (listed) throw new NetworkRefused(url, listed);
  const u = new URL(url);
  const pinned = await checkedAddress(u, guard, init.signal);
  return send(u, pinned, init);
}

export interface Pinned {
  address: string;
  family: 4 | 6;
}

/** The address to connect to: the URL's own if it is one, else the first the host resolves to, once all of them passed. */
export async function checkedAddress(u: URL, guard: Guard, signal: AbortSignal): Promise<Pinned> {
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const refuse = (reason: string): never => {
    throw new NetworkRefused(u.href, reason);
  };
  const literal = isIP(host);
  if (literal === 4 || literal === 6) {
    const why = guard.refuseAddress(u, host);
    return why ? refuse(`${host} is ${why}`) : { address: host, family: literal };
  }
  // This machine by name: refused without asking a resolver, unless the host listed it.
  const local = isLocalhostName(host);
  if (local) {
    const why = guard.refuseAddress(u, "127.0.0.1");
    if (why) refuse(`${host} is ${why}`);
  }
  let answers: readonly { address: string; family: number }[];
  try {
    answers = await guard.resolve(host);
  } catch (e) {
    signal.throwIfAborted();
    return refuse(`${host} could not be resolved (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  signal.throwIfAborted();
  for (const { address, family } of answers) {
    if (isIP(address) !== family) refuse(`${host} resolves to something that is not an IP address (${address})`);
    const why = guard.refuseAddress(u, address) ?? (local && !isLoopback(address) ? "not a loopback address" : null);
    if (why) refuse(`${host} resolves to ${address}, ${why}`);
  }
  const [first] = answers;
  if (!first) return refuse(`${host} resolves to no address`);
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** A lookup that answers only the checked address: a connection given it cannot reach another, whatever DNS says by then. */
export function pinnedLookup(pinned: Pinned): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
}

/** The request itself, on a connection of its own to the pinned address (for https, the certificate is still checked against the URL's host). */
function send(u: URL, pinned: Pinned, init: GuardedInit): Promise<FetchResult> {
  const headers = init.headers instanceof Headers ? Object.fromEntries(init.headers) : (init.headers ?? {});
  const client = u.protocol === "https:" ? https : http;
  return new Promise<FetchResult>((resolve, reject) => {
    let settled = false;
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(e);
    };
    const req = client.request(u, { method: init.method, headers, signal: init.signal, agent: false, lookup: pinnedLookup(pinned) }, (res) => {
      const tooLarge = () => new Error(`Response body too large (max: ${init.maxBytes} bytes)`);
      if (Number(res.headers["content-length"] ?? 0) > init.maxBytes) return fail(tooLarge());
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > init.maxBytes) fail(tooLarge());
        else chunks.push(chunk);
      });
      res.on("error", fail);
      res.on("end", () => {
        if (settled) return;
        settled = true;
        // A null-prototype record, as just-bash's own fetch gives: header names cannot reach Object's prototype.
        const out: Record<string, string> = Object.create(null);
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
        resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? "", headers: out, body: new Uint8Array(Buffer.concat(chunks)), url: u.href });
      });
    });
    req.on("error", fail);
    req.end();
  });
}
