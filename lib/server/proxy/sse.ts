import "server-only";
// Reading an upstream's OpenAI-style event stream as it passes through: cut
// into whole events (so each can be scrubbed and relayed at once), and keep
// what settlement needs: the reported usage (the final chunk, when
// stream_options.include_usage is on) and the streamed text, to count the
// output of a stream that ends without usage.
import type { TokenUsage } from "../../llm/price";

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

/** An upstream that never ends an event must not grow the buffer without bound: past this, text is relayed unparsed. */
const MAX_PENDING_CHARS = 1 << 20;
/** Kept back when relaying unparsed, so a key cut at the boundary is still whole for the scrubber next time. */
const KEEP_CHARS = 512;

export class SseTally {
  private buffer = "";
  private readonly decoder = new TextDecoder();
  usage: TokenUsage | undefined;
  text = "";

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
      this.read(event);
      events.push(event);
    }
    if (this.buffer.length > MAX_PENDING_CHARS) {
      events.push(this.buffer.slice(0, -KEEP_CHARS));
      this.buffer = this.buffer.slice(-KEEP_CHARS);
    }
    return events;
  }

  /** What is left when the stream ends (an unterminated last event). */
  flush(): string {
    const rest = this.buffer + this.decoder.decode();
    this.buffer = "";
    if (rest) this.read(rest);
    return rest;
  }

  private read(event: string) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, ""))
      .join("\n");
    if (!data || data === "[DONE]") return;
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return; // relayed as it came; the client's parser reports it
    }
    this.text += generatedText(json);
    const usage = usageFrom((json as { usage?: unknown } | null)?.usage);
    if (usage) this.usage = usage;
  }
}
