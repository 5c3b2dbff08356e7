import "server-only";
// Reading an upstream's OpenAI-style event stream as it passes through: cut
// into whole events (so each can be scrubbed and relayed at once), and keep
// what settlement needs: the reported usage (the final chunk, when
// stream_options.include_usage is on), the streamed text, to count the
// output of a stream that ends without usage, and whether it reasoned. Given
// the host key, every event is scrubbed of it, even of a key split across
// events (split-key.ts).
import type { TokenUsage } from "../../llm/price";
import { keyScrubber } from "./http";
import { SplitKeyGuard } from "./split-key";

/** OpenAI's usage object, in a completion or the last chunk of a stream. */
export function usageFrom(raw: unknown): TokenUsage | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const u = raw as {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    prompt_tokens_details?: { cached_tokens?: unknown } | null;
    completion_tokens_details?: { reasoning_tokens?: unknown } | null;
  };
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);
  const input = num(u.prompt_tokens);
  const output = num(u.completion_tokens);
  if (input === undefined || output === undefined) return undefined;
  const cached = num(u.prompt_tokens_details?.cached_tokens);
  const reasoning = num(u.completion_tokens_details?.reasoning_tokens);
  return { inputTokens: input, outputTokens: output, ...(cached !== undefined && { cachedInputTokens: cached }), ...(reasoning !== undefined && { reasoningTokens: reasoning }) };
}

/** The generated text of a completion or chunk: content, reasoning and tool-call arguments of every choice. */
export function generatedText(raw: unknown): string {
  const choices = (raw as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) return "";
  let out = "";
  for (const c of choices) {
    const part = (c?.delta ?? c?.message) as Record<string, unknown> | undefined;
    if (!part || typeof part !== "object") continue;
    for (const k of ["content", "reasoning_content", "reasoning"]) if (typeof part[k] === "string") out += part[k];
    if (Array.isArray(part.tool_calls)) {
      for (const t of part.tool_calls) {
        const fn = (t as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
        if (typeof fn?.name === "string") out += fn.name;
        if (typeof fn?.arguments === "string") out += fn.arguments;
      }
    }
  }
  return out;
}

/** Whether a completion or chunk shows reasoning: reasoning text in a choice, or reasoning tokens in its usage. */
export function reasoningIn(raw: unknown): boolean {
  const r = raw as { choices?: unknown; usage?: { completion_tokens_details?: { reasoning_tokens?: unknown } | null } } | null;
  const tokens = r?.usage?.completion_tokens_details?.reasoning_tokens;
  if (typeof tokens === "number" && tokens > 0) return true;
  if (!Array.isArray(r?.choices)) return false;
  return r.choices.some((c: unknown) => {
    const part = ((c as { delta?: unknown; message?: unknown } | null)?.delta ?? (c as { message?: unknown } | null)?.message) as Record<string, unknown> | undefined;
    return !!part && ((typeof part.reasoning_content === "string" && part.reasoning_content !== "") || (typeof part.reasoning === "string" && part.reasoning !== ""));
  });
}

/** An upstream that never ends an event must not grow the buffer without bound: past this, text is relayed unparsed. */
const MAX_PENDING_CHARS = 1 << 20;
/** Kept back when relaying unparsed, so a key cut at the boundary is still whole for the scrubber next time. */
const KEEP_CHARS = 512;

export class SseTally {
  private buffer = "";
  private readonly decoder = new TextDecoder();
  private readonly guard: SplitKeyGuard;
  private readonly scrub: (text: string) => string;
  usage: TokenUsage | undefined;
  text = "";
  reasoningSeen = false;

  /** `key`: the host key, scrubbed from what push and flush give back (none: given back as it came). */
  constructor(key = "") {
    this.guard = new SplitKeyGuard(key);
    this.scrub = keyScrubber(key);
  }

  /** Feed bytes; returns the whole events now complete (each with its blank-line terminator), to relay. */
  push(bytes: Uint8Array): string[] {
    this.buffer += this.decoder.decode(bytes, { stream: true });
    const events: string[] = [];
    for (;;) {
      const m = /\r?\n\r?\n/.exec(this.buffer);
      if (!m) break;
      const end = m.index + m[0].length;
      const event = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end);
      events.push(...this.read(event));
    }
    if (this.buffer.length > MAX_PENDING_CHARS) {
      events.push(this.scrub(this.buffer.slice(0, -KEEP_CHARS)));
      this.buffer = this.buffer.slice(-KEEP_CHARS);
    }
    return events;
  }

  /** What is left when the stream ends (an unterminated last event, and text held back in case it began the key). */
  flush(): string {
    const rest = this.buffer + this.decoder.decode();
    this.buffer = "";
    const last = rest ? this.read(rest) : [];
    return [...this.guard.release(), ...last].join("");
  }

  /** One whole event, as it is to be relayed (held text released before the end of the stream). */
  private read(event: string): string[] {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data === "[DONE]") return [...this.guard.release(), event];
    if (!data) return [this.scrub(event)];
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return [this.scrub(event)]; // relayed as it came; the client's parser reports it
    }
    this.text += generatedText(json);
    if (!this.reasoningSeen && reasoningIn(json)) this.reasoningSeen = true;
    const usage = usageFrom((json as { usage?: unknown } | null)?.usage);
    if (usage) this.usage = usage;
    // A rewritten event keeps the data line alone (comments and event names are not part of OpenAI's chunks).
    return [this.guard.apply(json) ? this.scrub(`data: ${JSON.stringify(json)}\n\n`) : this.scrub(event)];
  }
}
