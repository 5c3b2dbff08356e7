// A streamed OpenAI-style chat completion, read with no stream layers in
// between: for the two providers that speak exactly that protocol (the host's
// proxy, and any OpenAI-compatible server). The AI SDK's provider reads the
// same answer through a wrapped body stream, a text decoder stream, an SSE
// stream, a JSON-and-schema stream and its own part stream; against an
// instant model that cost about 1.1 ms per call in a bare worker, measured
// interleaved with a bare fetch (3.1 → 4.2 ms), a fifth of the mind's budget
// between calls (issue 7, bench/mind). Here the body's chunks go straight to
// eventsource-parser and JSON.parse.
//
// Failures take the AI SDK's own error types (APICallError, JSONParseError,
// StreamProviderError), built as its provider builds them, so
// lib/llm/model-errors.ts, Retry-After and the proxy's spend-cap pause read
// them the same way.
import { APICallError, JSONParseError, StreamProviderError, type LanguageModelUsage } from "ai";
import { createParser } from "eventsource-parser";
import type { ChatMessage } from "../context/project";
import { UnfinishedReply } from "./model-errors";
import { MessageJson, requestBody } from "./request-body";

export interface ChatEndpoint {
  /** Up to and without `/chat/completions`. */
  baseURL: string;
  model: string;
  apiKey?: string;
  fetch?: typeof globalThis.fetch;
}

/** A chat-completions endpoint, as a model for lib/llm/complete.ts's modelPort: called here, not through the AI SDK. */
export class ChatCompletions {
  /** Its calls' messages as JSON, kept from one call to the next (./request-body.ts). */
  readonly bodies = new MessageJson();
  constructor(readonly endpoint: ChatEndpoint) {}
}

/** What one call streams, as lib/llm/complete.ts reads it. */
export type CallPart = { type: "text"; text: string } | { type: "error"; error: unknown } | { type: "usage"; usage: Partial<LanguageModelUsage> };

/** A call's parts, one at a time (null: the answer is over); `cancel` lets the body go. */
export interface PartReader {
  read(): Promise<CallPart | null>;
  cancel(): void;
}

export interface CallRequest {
  instructions: string;
  messages: ChatMessage[];
  signal: AbortSignal;
  /** Asks the provider to sample repeatably (OpenAI's `seed`). */
  seed?: number;
}

interface Usage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** The usage the AI SDK reports for these counts (its openai-compatible provider's conversion, then its core's). */
export function chatUsage(u: Usage): Partial<LanguageModelUsage> {
  const input = u.prompt_tokens ?? 0;
  const output = u.completion_tokens ?? 0;
  const cacheRead = u.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = u.completion_tokens_details?.reasoning_tokens ?? 0;
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + output,
    inputTokenDetails: { noCacheTokens: input - cacheRead, cacheReadTokens: cacheRead, cacheWriteTokens: undefined },
    outputTokenDetails: { textTokens: Math.max(0, output - reasoning), reasoningTokens: reasoning },
  };
}

const headersOf = (r: Response) => Object.fromEntries(r.headers.entries());

/** An HTTP error's APICallError: the body's `error.message` when it has one (as the provider reads it), else the status text. */
async function httpError(response: Response, url: string, requestBodyValues: unknown): Promise<APICallError> {
  const responseBody = await response.text().catch(() => "");
  let message = response.statusText || `HTTP ${response.status}`;
  try {
    const parsed = JSON.parse(responseBody) as { error?: { message?: unknown } };
    if (typeof parsed?.error?.message === "string") message = parsed.error.message;
  } catch {
    // Not JSON: the status text stands.
  }
  return new APICallError({ message, url, requestBodyValues, statusCode: response.status, responseHeaders: headersOf(response), responseBody });
}

/** One event's data as parts: text, usage, or the error it carries or is. Returns whether it gave the finish reason. */
function partsOf(data: string, out: CallPart[]): boolean {
  let chunk: {
    error?: { message?: unknown; type?: unknown; code?: unknown };
    usage?: Usage | null;
    choices?: { delta?: { content?: unknown } | null; finish_reason?: unknown }[];
  };
  try {
    chunk = JSON.parse(data);
  } catch (cause) {
    out.push({ type: "error", error: new JSONParseError({ text: data, cause }) });
    return false;
  }
  if (chunk === null || typeof chunk !== "object") {
    out.push({ type: "error", error: new Error(`The model sent an event that is not a JSON object: ${data.slice(0, 100)}`) });
    return false;
  }
  if (chunk.error) {
    // An error after the stream began, on an HTTP 200 (OpenAI's, or an upstream's relayed by the proxy): as the SDK reports one.
    const { message, type, code } = chunk.error;
    out.push({
      type: "error",
      error: new StreamProviderError({
        message: typeof message === "string" ? message : JSON.stringify(chunk.error),
        type: typeof type === "string" ? type : undefined,
        code: typeof code === "string" || typeof code === "number" ? code : undefined,
      }),
    });
    return false;
  }
  const choice = chunk.choices?.[0];
  const content = choice?.delta?.content;
  if (typeof content === "string" && content) out.push({ type: "text", text: content });
  if (chunk.usage) out.push({ type: "usage", usage: chatUsage(chunk.usage) });
  return choice?.finish_reason !== undefined && choice.finish_reason !== null;
}

/**
 * Send the call and hand back its parts. Rejects as fetch() does when the
 * server cannot be reached, and with an APICallError on an HTTP error; a body
 * that breaks off or a malformed event comes as an `error` part.
 */
export async function openChatStream(endpoint: ChatEndpoint, req: CallRequest, bodies?: MessageJson): Promise<PartReader> {
  const url = `${endpoint.baseURL.replace(/\/+$/, "")}/chat/completions`;
  const options = { stream: true, stream_options: { include_usage: true }, ...(req.seed !== undefined ? { seed: req.seed } : {}) };
  const values = { model: endpoint.model, messages: [{ role: "system", content: req.instructions }, ...req.messages], ...options };
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const doFetch = endpoint.fetch ?? globalThis.fetch;
  // A failed fetch() (refused, CORS, aborted) rejects as it is: describeModelError (lib/llm/model-errors.ts) tells its TypeError apart.
  const response = await doFetch(url, { method: "POST", headers, body: bodies ? requestBody(values.model, values.messages, options, bodies) : JSON.stringify(values), signal: req.signal });
  if (!response.ok) throw await httpError(response, url, values);
  if (!response.body) throw new APICallError({ message: "The response has no body", url, requestBodyValues: values, statusCode: response.status, responseHeaders: headersOf(response) });

  const body = response.body.getReader();
  const decoder = new TextDecoder();
  const queue: CallPart[] = [];
  // `done`: [DONE] came (later events are ignored; the body is still read to its end, so the connection is kept). `over`: the body ended.
  // `finished`: an event gave the finish reason; a body that ends without one ended short (as the SDK reads it: "interrupted").
  let done = false;
  let over = false;
  let finished = false;
  let usage: Partial<LanguageModelUsage> | null = null;
  const parser = createParser({
    onEvent: (event) => {
      if (done) return;
      if (event.data === "[DONE]") done = true;
      else if (partsOf(event.data, queue)) finished = true;
    },
  });
  let ended = false;
  return {
    async read() {
      for (;;) {
        const next = queue.shift();
        if (next) {
          if (next.type !== "usage") return next;
          usage = next.usage; // held for the end, as the SDK reports it: a server may send usage more than once
          continue;
        }
        if (ended) return null;
        if (over) {
          ended = true;
          // Empty when the server sent none, as the SDK's is.
          return { type: "usage", usage: usage ?? {} };
        }
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await body.read();
        } catch (e) {
          if (req.signal.aborted) throw e;
          // The answer began and broke off (as the SDK's wrapped body reports it).
          over = true;
          return { type: "error", error: new APICallError({ message: "The response body broke off", cause: e, url, requestBodyValues: values, statusCode: response.status, responseHeaders: headersOf(response) }) };
        }
        if (chunk.done) {
          parser.feed(decoder.decode());
          parser.reset({ consume: true });
          over = true;
          // [DONE] ends a stream as surely as a finish reason: some servers send one without the other.
          if (!finished && !done) queue.push({ type: "error", error: new UnfinishedReply() });
        } else parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
    },
    cancel() {
      void body.cancel().catch(() => undefined);
    },
  };
}
