import "server-only";
// The call to the upstream and the relay of its answer, telling the caller
// exactly once how it ended (settlement.ts turns that into money): the
// upstream's reported usage if it reported one, what was relayed, whether it
// worked at all and whether it reasoned. An upstream that stays silent for
// the configured timeout (before answering, or between two reads of a
// stream) is given up on: 504 if nothing was relayed yet, else the stream
// ends in an error. Streams are relayed event by event as they arrive (each
// scrubbed of the key, even one split across events), never buffered whole.
// A 200 whose body is not a completion, or a stream event that is not a
// chunk (upstream.ts), is answered with an error saying what is wrong with it.
import { errorResponse, keyScrubber } from "./http";
import type { CallEnd, Outcome } from "./settlement";
import { SseTally, generatedText, reasoningIn, usageFrom } from "./sse";
import { countText } from "./tokens";
import { errorMessageIn, readCompletion } from "./upstream";

export interface ForwardOptions {
  /** The upstream's base URL (…/v1). */
  upstreamUrl: string;
  body: Record<string, unknown>;
  stream: boolean;
  /** The client's request signal: when it aborts, so does the upstream call. */
  signal: AbortSignal;
  /** Called exactly once, with how the call ended. */
  settle: (end: CallEnd) => void;
  /** The host key: sent upstream, and scrubbed from everything relayed. */
  apiKey: string;
  log: (line: string) => void;
  /** Silence from the upstream longer than this ends the call. */
  timeoutMs: number;
  /** Relay the upstream's error message (the host chose to show it), else only its status. */
  showUpstreamErrors: boolean;
}

/** Upstream error bodies are relayed in part: enough to say what went wrong. */
const MAX_ERROR_CHARS = 2000;

export async function forward(o: ForwardOptions): Promise<Response> {
  const upstream = new AbortController();
  const scrub = keyScrubber(o.apiKey);
  const tally = new SseTally(o.apiKey);
  let settled = false;
  let worked = false;
  const end = (outcome: Outcome, reported = tally.usage, text = tally.text) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    o.signal.removeEventListener("abort", onClientAbort);
    if (tally.malformed) o.log(`llm proxy: the model server sent ${tally.malformed} malformed event${tally.malformed === 1 ? "" : "s"}, each relayed as an error (the first: ${scrub(tally.firstMalformed ?? "")})`);
    o.settle({ outcome, reported, relayedTokens: text ? countText(text) : 0, worked, reasoningSeen: tally.reasoningSeen });
  };
  const onClientAbort = () => {
    end("client_aborted");
    upstream.abort();
  };
  // One timer for the upstream's silence: armed before the call, re-armed at every read.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      upstream.abort();
    }, o.timeoutMs);
  };
  const silent = `the model server sent nothing for ${o.timeoutMs / 1000} s, so the call was ended`;
  if (o.signal.aborted) {
    end("client_aborted");
    return errorResponse(499, "upstream_error", "the client went away before the call was made");
  }
  o.signal.addEventListener("abort", onClientAbort);

  let res: globalThis.Response;
  // From here the upstream may be working (a non-streamed answer is made whole before its headers).
  worked = true;
  arm();
  try {
    res = await fetch(`${o.upstreamUrl}/chat/completions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${o.apiKey}`, "Content-Type": "application/json", Accept: o.stream ? "text/event-stream" : "application/json" },
      body: JSON.stringify(o.body),
      signal: upstream.signal,
    });
    clearTimeout(timer);
  } catch (e) {
    if (timedOut) {
      // It took the call and went quiet: it may be working (and billing) all the same.
      end("timeout");
      o.log(`llm proxy: upstream timeout: no answer within ${o.timeoutMs / 1000} s`);
      return errorResponse(504, "upstream_error", silent);
    }
    const client = o.signal.aborted;
    // A client that left has been settled by onClientAbort. An upstream never reached did no work; one that took the
    // call and dropped it may have (and bills for it): that is a cut.
    const reached = !neverReached(e);
    worked = reached;
    end(reached ? "cut" : "upstream_unreachable");
    if (!client) o.log(`llm proxy: upstream ${reached ? "dropped the call" : "unreachable"}: ${scrub(describe(e))}`);
    return errorResponse(client ? 499 : 502, "upstream_error", client ? "the client went away" : reached ? "the model server dropped the call before answering" : "the model server could not be reached");
  }

  if (!res.ok) {
    arm(); // an error body that never ends is read no longer than a silent answer
    const text = await res.text().catch(() => "");
    // Providers do not bill a refused call.
    worked = false;
    end("upstream_error");
    const headers: Record<string, string> = {};
    const retry = res.headers.get("retry-after");
    if (retry && /^[\w ,:+-]{1,64}$/.test(retry)) headers["Retry-After"] = retry;
    const detail = o.showUpstreamErrors ? `: ${scrub(upstreamMessage(text))}` : "";
    return errorResponse(res.status, "upstream_error", `the model server answered ${res.status}${detail}`, { extra: { status: res.status }, headers });
  }

  if (!o.stream || !res.body) {
    let text: string;
    try {
      arm();
      text = await res.text();
      clearTimeout(timer);
    } catch {
      end(timedOut ? "timeout" : o.signal.aborted ? "client_aborted" : "cut", undefined, "");
      return errorResponse(timedOut ? 504 : 502, "upstream_error", timedOut ? silent : "the model server's answer was cut off");
    }
    const reply = readCompletion(text);
    if (!reply.ok) {
      // Settled on all it sent (it may have billed for it), counted as output: more than a reply's share, never less.
      end("malformed", undefined, text);
      o.log(`llm proxy: the model server's answer is not a chat completion (${scrub(reply.problem)})`);
      const message =
        reply.upstreamError === undefined
          ? `the model server's answer is not a chat completion (${scrub(reply.problem)})`
          : `the model server answered ${res.status} with an error${o.showUpstreamErrors ? `: ${scrub(reply.upstreamError.slice(0, MAX_ERROR_CHARS))}` : ""}`;
      return errorResponse(502, "upstream_error", message, { extra: { status: res.status } });
    }
    if (reasoningIn(reply.value)) tally.reasoningSeen = true;
    end("completed", usageFrom(reply.value.usage), generatedText(reply.value));
    // no-transform: a completion is a few kB, and gzip's per-response setup in next start costs more than it saves on loopback or LAN.
    return new Response(scrub(text), { status: res.status, headers: { "Content-Type": res.headers.get("content-type") ?? "application/json", "Cache-Control": "no-store, no-transform" } });
  }

  const reader = res.body.getReader();
  const encoder = new TextEncoder();
  const relay = new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Read until there is something to hand on: a pull that enqueues nothing would not be called again.
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          arm();
          chunk = await reader.read();
          // Only the upstream's silence counts, not a client slow to pull.
          clearTimeout(timer);
        } catch (e) {
          end(timedOut ? "timeout" : o.signal.aborted ? "client_aborted" : "cut");
          if (timedOut) o.log(`llm proxy: upstream timeout: the stream was silent for ${o.timeoutMs / 1000} s`);
          controller.error(new Error(timedOut ? silent : `the model server's stream was cut off (${scrub(describe(e))})`));
          return;
        }
        if (chunk.done) {
          const rest = tally.flush();
          if (rest) controller.enqueue(encoder.encode(rest));
          controller.close();
          end("completed");
          return;
        }
        const events = tally.push(chunk.value);
        if (events.length) {
          controller.enqueue(encoder.encode(events.join("")));
          return;
        }
      }
    },
    cancel() {
      end("client_aborted");
      upstream.abort();
    },
  });
  return new Response(relay, {
    status: res.status,
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      // no-transform: a compressing layer (next start's gzip) must not hold events back.
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}

/** Errors of a connection that carried the request and then broke: the upstream may have worked on it. */
const DROPPED = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);

/** Anything else (refused, no such host, a port fetch will not use, a connect timeout) never reached the upstream. */
function neverReached(e: unknown): boolean {
  const code = field(field(e, "cause"), "code");
  return !(typeof code === "string" && DROPPED.has(code));
}

function describe(e: unknown): string {
  const cause = field(field(e, "cause"), "code") ?? field(field(e, "cause"), "message");
  return `${String(field(e, "message") ?? e)}${cause ? ` (${String(cause)})` : ""}`;
}

/** A field of whatever was thrown (fetch says why it failed in its error's `cause`). */
function field(v: unknown, key: "cause" | "code" | "message"): unknown {
  return typeof v === "object" && v !== null && key in v ? Reflect.get(v, key) : undefined;
}

function upstreamMessage(text: string): string {
  return errorMessageIn(text)?.slice(0, MAX_ERROR_CHARS) ?? (text.slice(0, MAX_ERROR_CHARS) || "(no body)");
}
