// One model call as the mind needs it: streamed, accumulated, and never
// throwing. Failures (refused connection, HTTP errors, a stream that broke
// off, ended short or sent a malformed event) come back as data with a
// readable message (lib/llm/model-errors.ts), and a reply that did not
// finish is never handed on as one.
//
// A model is an AI SDK language model, called through the SDK's single-call
// stream (streamLanguageModelCall), not streamText: the mind makes exactly one
// call per iteration with no tools and does its own retries, and streamText's
// multi-step machinery cost about as much per call again as the provider
// itself (bench/ mind). Or it is a chat-completions endpoint, read with no
// stream layers at all (lib/llm/chat-completions.ts).
import { experimental_streamLanguageModelCall as streamLanguageModelCall, type LanguageModel } from "ai";
import { pauseText } from "../mind/budget/budget";
import { ChatCompletions, openChatStream, type CallPart, type CallRequest, type PartReader } from "./chat-completions";
import type { ModelPort, ModelRequest, ModelResult } from "../mind/ports";
import type { StepUsage } from "../trajectory/schema";
import { modelErrorText, retryAfterSeconds, UnfinishedReply } from "./model-errors";
import type { Price } from "../mind/settings/model";
import { spendCapPause } from "./spend-cap";
import { stepUsage } from "./usage";

/** Longest reply accepted; a longer one is cut (the model is rambling or looping). */
const MAX_REPLY_CHARS = 200_000;

/** A model call that has not finished after this long is ended (a hung server must not hang the mind). */
export const MODEL_TIMEOUT_MS = 180_000;

/** The SDK's stream of one call, as parts. */
async function sdkParts(model: LanguageModel, req: CallRequest): Promise<PartReader> {
  const result = await streamLanguageModelCall({ model, instructions: req.instructions, messages: req.messages, abortSignal: req.signal, ...(req.seed !== undefined ? { seed: req.seed } : {}) });
  const reader = result.stream.getReader();
  const held: CallPart[] = [];
  let finished = false;
  let over = false;
  return {
    async read() {
      for (;;) {
        const waiting = held.shift();
        if (waiting) return waiting;
        if (over) return null;
        const next = await reader.read();
        if (next.done) {
          over = true;
          // No end of call at all (a provider that stops short says nothing): the reply did not finish either.
          if (!finished) return { type: "error", error: new UnfinishedReply() };
          continue;
        }
        const part = next.value;
        // OpenAI's first chunk has an empty content: no news for onDelta (whose "" clears the page's partial).
        if (part.type === "text-delta" && part.text) return { type: "text", text: part.text };
        if (part.type === "error") return { type: "error", error: part.error };
        if (part.type === "model-call-end") {
          finished = true;
          // The SDK's word for a stream that closed before the provider said why it stopped; OpenRouter's
          // provider says "other" with no reason of the provider's own.
          if (part.finishReason === "interrupted" || (part.finishReason === "other" && part.rawFinishReason === undefined)) held.push({ type: "error", error: new UnfinishedReply() });
          return { type: "usage", usage: part.usage };
        }
      }
    },
    cancel: () => void reader.cancel().catch(() => undefined),
  };
}

export function modelPort(
  model: LanguageModel | ChatCompletions,
  name: string,
  opts: {
    timeoutMs?: number;
    /** Turns each call's tokens into USD on its step. */
    price?: Price;
    /** Sent with every call, for providers that sample repeatably from a seed (`reverie eval --seed`). */
    seed?: number;
  } = {},
): ModelPort {
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
        const call: CallRequest = { instructions: req.instructions, messages: req.messages, signal, ...(opts.seed !== undefined ? { seed: opts.seed } : {}) };
        const parts = await Promise.race([model instanceof ChatCompletions ? openChatStream(model.endpoint, call, model.bodies) : sdkParts(model, call), stopped]);
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
            // The first error is the cause; what follows it (the stream ending short) is its consequence.
            if (failure === null) failure = part.error;
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
        return { ok: false, error: modelErrorText(failure), aborted: false, ...(retryAfterS !== undefined ? { retryAfterS } : {}) };
      }
      return { ok: true, text: text.slice(0, MAX_REPLY_CHARS), inTokens, outTokens, ...(usage ? { usage } : {}) };
    },
  };
}
