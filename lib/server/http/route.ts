import "server-only";
// The sharing API's HTTP edges: ApiError bodies, request bodies read under a
// byte cap (so a huge upload is refused, not buffered whole), and the
// per-route method dispatch that answers 405 for anything else.
import type * as z from "zod";
import { readCapped } from "./body";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export function apiError(status: number, code: string, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Response {
  return Response.json({ error: { code, message, ...extra } }, { status, headers: { "Cache-Control": "no-store", ...headers } });
}

export const json = (body: unknown, status = 200): Response => Response.json(body, { status, headers: { "Cache-Control": "no-store" } });

export const noContent = (): Response => new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });

/** Unknown and revoked links answer the same, and say nothing else. */
export const notFound = (): HttpError => new HttpError(404, "not_found", "no such link, or it was revoked");

/** The body as text, refused with 413 as soon as it passes maxBytes (by Content-Length or by what actually arrives). */
export async function readBody(request: Request, maxBytes: number): Promise<string> {
  const body = await readCapped(request, maxBytes);
  if (body === "too_large") throw new HttpError(413, "too_large", `the request body is over ${maxBytes} bytes`);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw new HttpError(400, "malformed", "the request body is not UTF-8 text");
  }
}

/** Reads, parses and validates a JSON body; 413 over the cap, 400 for bad JSON or a schema miss (naming the fields). */
export async function readJson<S extends z.ZodType>(request: Request, schema: S, maxBytes: number, precheck?: (value: unknown) => void): Promise<z.infer<S>> {
  const text = await readBody(request, maxBytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, "malformed", "the request body is not JSON");
  }
  precheck?.(value);
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; ");
    throw new HttpError(400, "invalid", `the request body does not match the API: ${detail}`);
  }
  return parsed.data;
}

export type Params = Record<string, string | string[] | undefined>;
export type RouteContext = { params: Promise<Params> };
export type Handler = (request: Request, params: Params) => Promise<Response>;
export type Route = (request: Request, context: RouteContext) => Promise<Response>;

type Method = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";

/**
 * One route's handlers by method. Anything else is 405 with Allow; an
 * HttpError becomes its ApiError; `unavailable` maps errors that mean the
 * database is gone to 503.
 */
export function route(handlers: Partial<Record<Method, Handler>>, unavailable: (e: unknown) => Response | undefined = () => undefined): Route {
  const allow = Object.keys(handlers).join(", ");
  return async (request, context) => {
    const handler = handlers[request.method as Method];
    if (!handler) return apiError(405, "method_not_allowed", `${request.method} is not allowed here (allowed: ${allow})`, {}, { Allow: allow });
    try {
      return await handler(request, await context.params);
    } catch (e) {
      if (e instanceof HttpError) return apiError(e.status, e.code, e.message, e.extra, e.headers);
      const down = unavailable(e);
      if (down) return down;
      // The path may hold a link token: log it without.
      const path = new URL(request.url).pathname.replace(/[A-Za-z0-9_-]{43}/g, "<token>");
      console.error(`sharing API: ${request.method} ${path} failed: ${(e as Error).stack ?? e}`);
      return apiError(500, "internal", "the server failed to answer this request");
    }
  };
}

/** Every method a route file exports, all through the same dispatcher (so unlisted ones get our 405, not a bare one). */
export const allMethods = (r: Route) => ({ GET: r, POST: r, PUT: r, DELETE: r, PATCH: r });

export const param = (params: Params, name: string): string => {
  const v = params[name];
  return Array.isArray(v) ? v.join("/") : (v ?? "");
};
