// How a failed model call reads: the message an error step shows, how long
// the server asked to wait, whether the key was refused. The providers'
// errors arrive as the AI SDK's types (APICallError for an HTTP error or a
// body that broke off, StreamProviderError for an error event inside a
// stream that had begun, JSONParseError for an event that is not JSON), and
// lib/llm/chat-completions.ts builds the same ones.
import { APICallError, RetryError, StreamProviderError } from "ai";
import * as z from "zod";

/**
 * A stream that closed cleanly without the provider's last event (no
 * finish reason, no message_stop): a proxy or load balancer gave up on it.
 * What had arrived is half a reply, and half a bash block must not run.
 */
export class UnfinishedReply extends Error {
  constructor() {
    super("The model's reply ended before it finished: the stream closed without the provider's last event.");
    this.name = "UnfinishedReply";
  }
}

const unwrap = (e: unknown) => (RetryError.isInstance(e) ? e.lastError : e);

export function describeModelError(e: unknown): string {
  const err = unwrap(e);
  if (APICallError.isInstance(err)) {
    // A 2xx whose body then failed to arrive: the reply began and broke off.
    if (err.statusCode !== undefined && err.statusCode >= 200 && err.statusCode < 300 && err.cause instanceof Error && err.cause.name === "TypeError") {
      return `The model's reply from ${err.url} broke off before it finished (${err.cause.message}).`;
    }
    const status = err.statusCode ? `HTTP ${err.statusCode}` : "no response";
    return `${status} from ${err.url}: ${err.message}`;
  }
  // Alone, its message is a provider's word ("Overloaded") with nothing to say where it came from.
  if (StreamProviderError.isInstance(err)) {
    const kind = typeof err.type === "string" ? err.type : typeof err.code === "string" || typeof err.code === "number" ? String(err.code) : undefined;
    return `The model's provider reported an error partway through its reply${kind ? ` (${kind})` : ""}: ${err.message}`;
  }
  if (err instanceof Error) {
    // fetch() rejects with a bare TypeError when the server cannot be reached.
    if (err.name === "TypeError" && /fetch|network|load failed/i.test(err.message)) return `Could not reach the model (${err.message}). Is the server running, and does it allow this page's origin (CORS)?`;
    return err.message || err.name;
  }
  return String(err);
}

// Gemini never sends Retry-After: a 429 says how long to wait in a
// google.rpc.RetryInfo detail of its JSON error, as a Duration ("37s").
const GoogleRetryInfo = z.object({
  error: z.object({ details: z.array(z.looseObject({ "@type": z.string().optional(), retryDelay: z.string().optional() })) }),
});

function googleRetryDelay(body: string | undefined): number | undefined {
  if (!body) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const parsed = GoogleRetryInfo.safeParse(json);
  const delay = parsed.success ? parsed.data.error.details.find((d) => d["@type"]?.endsWith("google.rpc.RetryInfo"))?.retryDelay : undefined;
  const m = delay ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
  return m ? Math.ceil(Number(m[1])) : undefined;
}

/** Seconds the server asks to wait: a Retry-After header (delta-seconds or an HTTP date), or Gemini's RetryInfo; undefined when it says nothing. */
export function retryAfterSeconds(e: unknown, now = Date.now()): number | undefined {
  const err = unwrap(e);
  if (!APICallError.isInstance(err)) return undefined;
  const raw = err.responseHeaders?.["retry-after"];
  if (!raw) return googleRetryDelay(err.responseBody);
  const s = Number(raw);
  if (Number.isFinite(s) && s >= 0) return s;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.round((at - now) / 1000));
}

/** The provider refused the API key: a 401, or Gemini's 400 whose reason is API_KEY_INVALID (it never answers 401). */
export function keyRefused(e: unknown): boolean {
  const err = unwrap(e);
  if (!APICallError.isInstance(err)) return false;
  return err.statusCode === 401 || (err.statusCode === 400 && (err.responseBody ?? "").includes('"API_KEY_INVALID"'));
}

/** The error step's text for a failed call: what happened and, for a refused key, what to do. */
export function modelErrorText(e: unknown): string {
  const said = describeModelError(e);
  if (!keyRefused(e)) return said;
  // Providers word a bad key as they like ("User not found.", "invalid x-api-key"): say what it means and where to fix it.
  return `${said}${/[.!?]$/.test(said) ? "" : "."} The provider refused the API key: fix it in Settings.`;
}
