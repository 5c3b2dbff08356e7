import "server-only";
// The server's own fetch to an address a user supplied (an own-key mind's
// model base URL; later webhooks and push), and the guard it goes through:
// no loopback, private, link-local or unspecified address unless the host
// listed it in OUTBOUND_ALLOW. Addresses the host configured itself (the
// proxy's LLM_PROXY_UPSTREAM_URL, and the channels' API addresses to come)
// are trusted and need none of this.
//
// It has fetch's shape, so a provider's SDK takes it as its `fetch`, and the
// check of a mind's curl (guarded-fetch.ts): the host resolved once, every
// address checked, the connection opened to the checked one, on a connection
// of its own. A refusal throws OutboundRefused before any connection, saying
// what was refused and why. A redirect is returned as it is, never followed:
// its next hop would be a request the check never saw. The body streams as it
// arrives. Failures look as fetch's do (a TypeError "fetch failed" with its
// cause; "terminated" for a body cut off), so lib/llm/model-errors.ts words
// them as it words the global fetch's.
import http from "node:http";
import https from "node:https";
import { blockedKind, listedPorts, portOf, type ListedPort } from "./address-policy";
import { checkedAddress, NetworkRefused, pinnedLookup, systemResolver, type Guard, type Pinned, type Resolver } from "./guarded-fetch";

/** A request refused before any connection. */
export class OutboundRefused extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`refused to connect to ${url}: ${reason}`);
    this.name = "OutboundRefused";
  }
}

export type OutboundFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

interface Outgoing {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  signal: AbortSignal | undefined;
}

/** Statuses whose response has no body, as fetch reads them. */
const NO_BODY = new Set([204, 205, 304]);

/**
 * The checks of the server's own requests to an address a user supplied:
 * http or https only, and no loopback, private, link-local or unspecified
 * address unless OUTBOUND_ALLOW lists it with the port. `resolve` is the
 * system's resolver unless a test hands one.
 */
export function outboundGuard(allow: readonly ListedPort[], resolve: Resolver = systemResolver): Guard {
  const listed = listedPorts(allow);
  return {
    refuseUrl(url) {
      if (!URL.canParse(url)) return "not a URL";
      const u = new URL(url);
      if (u.protocol !== "http:" && u.protocol !== "https:") return `not an http or https URL (it is ${u.protocol})`;
      if (u.username || u.password) return "it has a user name or password in it";
      return null;
    },
    refuseAddress(url, address) {
      const kind = blockedKind(address);
      if (!kind || listed(address, portOf(url))) return null;
      return `${kind}, which this server's host has not listed in OUTBOUND_ALLOW`;
    },
    resolve,
  };
}

/** The server's fetch under `guard` (outboundGuard's, with the host's OUTBOUND_ALLOW): hand it to whatever calls an address a user supplied. */
export function outboundFetch(guard: Guard): OutboundFetch {
  return async (input, init = {}) => {
    const out = await outgoing(input, init);
    out.signal?.throwIfAborted();
    // Its origin and path only: a query may carry a key, and the message reaches an error step.
    const shown = `${out.url.protocol}//${out.url.host}${out.url.pathname}`;
    const why = guard.refuseUrl(out.url.href);
    if (why) throw new OutboundRefused(shown, why);
    let pinned: Pinned;
    try {
      pinned = await checkedAddress(out.url, guard, out.signal ?? new AbortController().signal);
    } catch (e) {
      throw e instanceof NetworkRefused ? new OutboundRefused(shown, e.reason) : e;
    }
    return send(out, pinned);
  };
}

async function outgoing(input: string | URL | Request, init: RequestInit): Promise<Outgoing> {
  const from = input instanceof Request ? input : undefined;
  const url = new URL(input instanceof Request ? input.url : input);
  const method = (init.method ?? from?.method ?? "GET").toUpperCase();
  const headers = new Headers(init.headers ?? from?.headers);
  const body = init.body != null ? bytesOf(init.body, headers) : from?.body ? Buffer.from(await from.arrayBuffer()) : undefined;
  if (body && (method === "GET" || method === "HEAD")) throw new TypeError(`a ${method} request cannot have a body`);
  if (body) headers.set("content-length", String(body.length));
  return { url, method, headers: Object.fromEntries(headers), body, signal: init.signal ?? from?.signal ?? undefined };
}

/** The body as bytes: the server sends text and bytes (JSON, form fields), not files or streams. */
function bytesOf(body: BodyInit, headers: Headers): Buffer {
  const typed = (type: string, text: string) => {
    if (!headers.has("content-type")) headers.set("content-type", type);
    return Buffer.from(text, "utf8");
  };
  if (typeof body === "string") return typed("text/plain;charset=UTF-8", body);
  if (body instanceof URLSearchParams) return typed("application/x-www-form-urlencoded;charset=UTF-8", body.toString());
  if (body instanceof ArrayBuffer) return Buffer.from(new Uint8Array(body));
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError("the server's outbound fetch sends a string, bytes or form fields as a body, not a stream, blob or form data");
}

/** The request, on a connection of its own to the pinned address (for https, the certificate is still checked against the URL's host). */
function send(out: Outgoing, pinned: Pinned): Promise<Response> {
  const client = out.url.protocol === "https:" ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const options = { method: out.method, headers: out.headers, agent: false, lookup: pinnedLookup(pinned), ...(out.signal ? { signal: out.signal } : {}) };
    const req = client.request(out.url, options, (res) => {
      const status = res.statusCode ?? 0;
      // A web Response holds 200 to 599 only (node:http hands on no 1xx here).
      if (status < 200 || status > 599) {
        res.destroy();
        return reject(new TypeError("fetch failed", { cause: new Error(`the server answered with HTTP status ${status}`) }));
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(res.headers)) for (const v of typeof value === "string" ? [value] : (value ?? [])) headers.append(name, v);
      const empty = out.method === "HEAD" || NO_BODY.has(status);
      if (empty) res.resume();
      const response = new Response(empty ? null : bodyOf(res, out.signal), { status, statusText: res.statusMessage ?? "", headers });
      // fetch's Response says where it came from; the constructor cannot.
      Object.defineProperty(response, "url", { value: out.url.href });
      resolve(response);
    });
    req.on("error", (e) => reject(out.signal?.aborted ? out.signal.reason : new TypeError("fetch failed", { cause: e })));
    req.end(out.body);
  });
}

/** The response's body as a web stream, read as the caller reads it (paused while its queue is full). */
function bodyOf(res: http.IncomingMessage, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  let over = false;
  // As fetch's body: the caller's abort errors it with the abort's reason; a body cut off is a TypeError "terminated".
  const broken = (cause?: unknown) => (signal?.aborted ? signal.reason : new TypeError("terminated", cause === undefined ? {} : { cause }));
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const end = (error?: unknown) => {
        if (over) return;
        over = true;
        if (error === undefined) controller.close();
        else controller.error(error);
      };
      res.on("data", (chunk: Buffer) => {
        if (over) return;
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 0) <= 0) res.pause();
      });
      res.on("end", () => end());
      res.on("error", (e) => end(broken(e)));
      // Closed before its end: the connection went.
      res.on("close", () => end(broken()));
    },
    pull() {
      res.resume();
    },
    cancel() {
      over = true;
      res.destroy();
    },
  });
}
