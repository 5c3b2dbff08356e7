// One model call as the mind needs it: streamed, accumulated, and never
// throwing. Failures (refused connection, HTTP errors, a malformed stream)
// come back as data with a readable message.
//
// A model is an AI SDK language model, called through the SDK's single-call
// stream (streamLanguageModelCall), not streamText: the mind makes exactly one
// call per iteration with no tools and does its own retries, and streamText's
// multi-step machinery cost about as much per call again as the provider
// itself (bench/ mind). Or it is a chat-completions endpoint, read with no
// stream layers at all (lib/llm/chat-completions.ts).
import { APICallError, RetryError, experimental_streamLanguageModelCall as streamLanguageModelCall, type LanguageModel } from "ai";
import { pauseText } from "../mind/budget";
import { ChatCompletions, openChatStream, type CallRequest, type PartReader } from "./chat-completions";
import type { ModelPort, ModelRequest, ModelResult } from "../mind/ports";
import type { StepUsage } from "../trajectory/schema";
import type { Price } from "./price";
import { spendCapPause } from "./spend-cap";
import { stepUsage } from "./usage";

/** Longest reply accepted; a longer one is cut (the model is rambling or looping). */
const MAX_REPLY_CHARS = 200_000;

export function describeModelError(e: unknown): string {
  if (RetryError.isInstance(e)) return describeModelError(e.lastError);
  if (APICallError.isInstance(e)) {
    // A 2xx whose body then failed to arrive: the reply began and broke off.
    if (e.statusCode !== undefined && e.statusCode >= 200 && e.statusCode < 300 && e.cause instanceof Error && e.cause.name === "TypeError") {
      return `The model's reply from ${e.url} broke off before it finished (${e.cause.message}).`;
    }
    const status = e.statusCode ? `HTTP ${e.statusCode}` : "no response";
    return `${status} from ${e.url}: ${e.message}`;
  }
  if (e instanceof Error) {
    // fetch() rejects with a bare TypeError when the server cannot be reached.
    if (e.name === "TypeError" && /fetch|network|load failed/i.test(e.message)) return `Could not reach the model (${e.message}). Is the server running, and does it allow this page's origin (CORS)?`;
    return e.message || e.name;
  }
  return String(e);
}

/** Seconds a Retry-After header asks for (delta-seconds or an HTTP date), if any. */
export function retryAfterSeconds(e: unknown, now = Date.now()): number | undefined {
  const err = RetryError.isInstance(e) ? e.lastError : e;
  if (!APICallError.isInstance(err)) return undefined;
  const raw = err.responseHeaders?.["retry-after"];
  if (!raw) return undefined;
  const s = Number(raw);
  if (Number.isFinite(s) && s >= 0) return s;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.round((at - now) / 1000));
}

/** A model call that has not finished after this long is ended (a hung server must not hang the mind). */
export const MODEL_TIMEOUT_MS = 180_000;

/** The SDK's stream of one call, as parts. */
async function sdkParts(model: LanguageModel, req: CallRequest): Promise<PartReader> {
  const result = await streamLanguageModelCall({ model, instructions: req.instructions, messages: req.messages, abortSignal: req.signal });
  const reader = result.stream.getReader();
  return {
    async read() {
      for (;;) {
        const next = await reader.read();
        if (next.done) return null;
        const part = next.value;
        if (part.type === "text-delta") return { type: "text", text: part.text };
        if (part.type === "error") return { type: "error", error: part.error };
        if (part.type === "model-call-end") return { type: "usage", usage: part.usage };
      }
    },
    cancel: () => void reader.cancel().catch(() => undefined),
  };
}

export function modelPort(model: LanguageModel | ChatCompletions, name: string, opts: { timeoutMs?: number; /** Turns each call's tokens into USD on its step. */ price?: Price } = {}): ModelPort {
  const timeoutMs = opts.timeoutMs ?? MODEL_TIMEOUT_MS;
  return {
    name,
    async complete(req: ModelRequest): Promise<ModelResult> {
      let text = "";
      let failure: unknown = null;
      let inTokens: number | undefined;
      let outTokens: number | undefined;
      let usage: StepUsage | undefined;
      // The call's own signal: the run's stop, or the timeout. Both let go when the call ends: a timeout signal
      // left to run out (minutes, at a hundred calls a second) kept each call's stream, reader and request
      // alive through their abort listeners, for the collector to mark again and again.
      const call = new AbortController();
      const signal = call.signal;
      let timedOut = false;
      const stop = () => call.abort(req.signal.reason);
      const timer = setTimeout(() => {
        timedOut = true;
        call.abort(new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError"));
      }, timeoutMs);
      if (req.signal.aborted) stop();
      else req.signal.addEventListener("abort", stop, { once: true });
      try {
        // One call, no hidden retries: the loop retries with visible backoff (error step, wake "retry").
        // A provider that ignores the signal must not hang the mind: every wait races it.
        const stopped = new Promise<never>((_, reject) => {
          const end = () => reject(signal.reason);
          if (signal.aborted) end();
          else signal.addEventListener("abort", end, { once: true });
        });
        stopped.catch(() => undefined);
        const call: CallRequest = { instructions: req.instructions, messages: req.messages, signal };
        const parts = await Promise.race([model instanceof ChatCompletions ? openChatStream(model.endpoint, call) : sdkParts(model, call), stopped]);
        signal.addEventListener("abort", () => parts.cancel(), { once: true });
        for (;;) {
          const part = await Promise.race([parts.read(), stopped]);
          if (part === null) break;
          if (part.type === "text") {
            text += part.text;
            if (text.length > MAX_REPLY_CHARS) {
              parts.cancel();
              break;
            }
            req.onDelta?.(text);
          } else if (part.type === "error") {
            failure = part.error;
          } else {
            inTokens = part.usage.inputTokens;
            outTokens = part.usage.outputTokens;
            usage = stepUsage(part.usage, { price: opts.price, model: name });
          }
        }
      } catch (e) {
        failure = e;
      } finally {
        clearTimeout(timer);
        req.signal.removeEventListener("abort", stop);
      }
      if (req.signal.aborted) return { ok: false, error: "aborted", aborted: true };
      if (timedOut) return { ok: false, error: `The model did not finish within ${timeoutMs / 1000} s (timed out).`, aborted: false };
      if (failure !== null) {
        const paused = spendCapPause(failure);
        if (paused) return { ok: false, error: pauseText(paused), aborted: false, paused };
        const retryAfterS = retryAfterSeconds(failure);
        return { ok: false, error: describeModelError(failure), aborted: false, ...(retryAfterS !== undefined ? { retryAfterS } : {}) };
      }
      return { ok: true, text: text.slice(0, MAX_REPLY_CHARS), inTokens, outTokens, ...(usage ? { usage } : {}) };
    },
  };
}
