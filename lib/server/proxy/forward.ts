import "server-only";
// The call to the upstream and the relay of its answer, settling the
// reservation exactly once on what was used:
// - the upstream's reported usage, when it reports one;
// - it could not be reached, or answered with an error status: 0 (nothing was
//   generated, and providers do not bill a refused request);
// - it accepted the call and the answer was then cut, or the client went
//   away: the input estimate plus the output tokens counted from what had
//   streamed (for a non-streaming call, the input alone), since the upstream
//   had started working and bills for it.
// Streams are relayed event by event as they arrive (each event scrubbed of
// the key), never buffered whole.
import type { TokenUsage } from "../../llm/price";
import { errorResponse } from "./http";
import { SseTally, generatedText, usageFrom } from "./sse";
import { countText } from "./tokens";

export interface ForwardOptions {
  /** The upstream's base URL (…/v1). */
  upstreamUrl: string;
  apiKey: string;
  body: Record<string, unknown>;
  stream: boolean;
  /** The client's request signal: when it aborts, so does the upstream call. */
  signal: AbortSignal;
  /** The input tokens as counted here (no margin): what a cut call is settled on. */
  inputTokens: number;
  /** Called exactly once, with what the call used. */
  settle: (usage: TokenUsage, outcome: Outcome) => void;
  scrub: (text: string) => string;
  log: (line: string) => void;
}

export type Outcome = "completed" | "upstream_unreachable" | "upstream_error" | "cut" | "client_aborted";

/** Upstream error bodies are relayed in part: enough to say what went wrong. */
const MAX_ERROR_CHARS = 2000;
const NOTHING: TokenUsage = { inputTokens: 0, outputTokens: 0 };

export async function forward(o: ForwardOptions): Promise<Response> {
  const upstream = new AbortController();
  let settled = false;
  const settleOnce = (usage: TokenUsage, outcome: Outcome) => {
    if (settled) return;
    settled = true;
    o.signal.removeEventListener("abort", onClientAbort);
    o.settle(usage, outcome);
  };
  const used = (text: string): TokenUsage => ({ inputTokens: o.inputTokens, outputTokens: countText(text) });
  const tally = new SseTally();
  const soFar = () => tally.usage ?? used(tally.text);
  const onClientAbort = () => {
    settleOnce(soFar(), "client_aborted");
    upstream.abort();
  };
  if (o.signal.aborted) {
    settleOnce(NOTHING, "client_aborted");
    return errorResponse(499, "upstream_error", "the client went away before the call was made");
  }
  o.signal.addEventListener("abort", onClientAbort);

  let res: globalThis.Response;
  try {
    res = await fetch(`${o.upstreamUrl}/chat/completions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${o.apiKey}`, "Content-Type": "application/json", Accept: o.stream ? "text/event-stream" : "application/json" },
      body: JSON.stringify(o.body),
      signal: upstream.signal,
    });
  } catch (e) {
    const client = o.signal.aborted;
    // A client that left has been settled by onClientAbort; an upstream never reached did no work.
    settleOnce(NOTHING, "upstream_unreachable");
    if (!client) o.log(`llm proxy: upstream unreachable: ${o.scrub(describe(e))}`);
    return errorResponse(client ? 499 : 502, "upstream_error", client ? "the client went away" : "the model server could not be reached");
  }

  if (!res.ok) {
    const text = await res.text().catch(() => "");
    settleOnce(NOTHING, "upstream_error");
    const headers: Record<string, string> = {};
    const retry = res.headers.get("retry-after");
    if (retry && /^[\w ,:+-]{1,64}$/.test(retry)) headers["Retry-After"] = retry;
    return errorResponse(res.status, "upstream_error", `the model server answered ${res.status}: ${o.scrub(upstreamMessage(text))}`, {
      extra: { status: res.status },
      headers,
    });
  }

  if (!o.stream || !res.body) {
    let text: string;
    try {
      text = await res.text();
    } catch {
      settleOnce(used(""), o.signal.aborted ? "client_aborted" : "cut");
      return errorResponse(502, "upstream_error", "the model server's answer was cut off");
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const usage = usageFrom((json as { usage?: unknown } | undefined)?.usage);
    settleOnce(usage ?? used(json === undefined ? text : generatedText(json)), "completed");
    // no-transform: a completion is a few kB, and gzip's per-response setup in next start costs more than it saves on loopback or LAN.
    return new Response(o.scrub(text), { status: res.status, headers: { "Content-Type": res.headers.get("content-type") ?? "application/json", "Cache-Control": "no-store, no-transform" } });
  }

  const reader = res.body.getReader();
  const encoder = new TextEncoder();
  const finish = (outcome: Outcome) => settleOnce(soFar(), outcome);
  const relay = new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Read until there is something to hand on: a pull that enqueues nothing would not be called again.
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (e) {
          finish(o.signal.aborted ? "client_aborted" : "cut");
          controller.error(new Error(`the model server's stream was cut off (${o.scrub(describe(e))})`));
          return;
        }
        if (chunk.done) {
          const rest = tally.flush();
          if (rest) controller.enqueue(encoder.encode(o.scrub(rest)));
          controller.close();
          finish("completed");
          return;
        }
        const events = tally.push(chunk.value);
        if (events.length) {
          controller.enqueue(encoder.encode(o.scrub(events.join(""))));
          return;
        }
      }
    },
    cancel() {
      finish("client_aborted");
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

function describe(e: unknown): string {
  const err = e as { message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const cause = err?.cause?.code ?? err?.cause?.message;
  return `${String(err?.message ?? e)}${cause ? ` (${String(cause)})` : ""}`;
}

function upstreamMessage(text: string): string {
  try {
    const m = (JSON.parse(text) as { error?: { message?: unknown } | string })?.error;
    const msg = typeof m === "string" ? m : m?.message;
    if (typeof msg === "string") return msg.slice(0, MAX_ERROR_CHARS);
  } catch {
    // not JSON: relay the start of the text
  }
  return text.slice(0, MAX_ERROR_CHARS) || "(no body)";
}
