// Calls to the server as a browser makes them: over a fetch port, every
// answer parsed with its schema. A refused request is an ApiRequestError with
// the server's code; a request that never got an answer is an OfflineError.
import type * as z from "zod";
import { ApiError } from "../wire";

export type FetchPort = (input: string, init?: RequestInit) => Promise<Response>;

export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds, from Retry-After (429). */
    readonly retryAfter?: number,
    /** The parsed error body, for codes that carry more (a gap's last_seq). */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/** The server could not be reached (offline, DNS, connection refused). */
export class OfflineError extends Error {}

export async function call(fetch: FetchPort, url: string, init?: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (e) {
    throw new OfflineError(`The server could not be reached: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (res.ok) return res;
  const text = await res.text().catch(() => "");
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: reported by status below
  }
  const parsed = ApiError.safeParse(body);
  const retry = Number(res.headers.get("retry-after"));
  throw new ApiRequestError(
    res.status,
    parsed.success ? parsed.data.error.code : `http_${res.status}`,
    parsed.success ? parsed.data.error.message : `The server answered ${res.status}${text ? `: ${text.slice(0, 200)}` : ""}`,
    Number.isFinite(retry) && retry > 0 ? retry : undefined,
    body,
  );
}

export const json = async <T>(res: Response, schema: z.ZodType<T>): Promise<T> => schema.parse(await res.json());

/** Blob names may hold slashes (`<dir>/blobs/<file>`): each segment is encoded, the slashes kept. */
export const blobPath = (name: string) => name.split("/").map(encodeURIComponent).join("/");
