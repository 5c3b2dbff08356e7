import "server-only";
// Reading an upstream's OpenAI-style event stream as it passes through: cut
// into whole events (so each can be scrubbed and relayed at once), and keep
// what settlement needs: the reported usage (the final chunk, when
// stream_options.include_usage is on), the streamed text, to count the
// output of a stream that ends without usage, and whether it reasoned. Given
// the host key, every event is scrubbed of it, even of a key split across
// events (split-key.ts). An event that is JSON but not a chunk (upstream.ts)
// is relayed as an error saying what is wrong with it; one that is not JSON
// at all is relayed as it came, for the client's JSON parser to report.
import type { TokenUsage } from "../../llm/price";
import { keyScrubber } from "./http";
import { SplitKeyGuard } from "./split-key";
import { TEXT_FIELDS, checkChunk, type UpstreamChoice, type UpstreamChunk, type UpstreamPart, type UpstreamUsage } from "./upstream";

/** OpenAI's usage object, in a completion or the last chunk of a stream: settled on only with both counts, none negative. */
export function usageFrom(u: UpstreamUsage | null | undefined): TokenUsage | undefined {
  if (!u) return undefined;
  const num = (v: number | null | undefined) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);
  const input = num(u.prompt_tokens);
  const output = num(u.completion_tokens);
  if (input === undefined || output === undefined) return undefined;
  const cached = num(u.prompt_tokens_details?.cached_tokens);
  const reasoning = num(u.completion_tokens_details?.reasoning_tokens);
  return { inputTokens: input, outputTokens: output, ...(cached !== undefined && { cachedInputTokens: cached }), ...(reasoning !== undefined && { reasoningTokens: reasoning }) };
}

/** The part a choice carries: its delta in a chunk, its message in a completion. */
const partOf = (c: UpstreamChoice): UpstreamPart | null | undefined => c.delta ?? c.message;

/** The generated text of a completion or chunk: content, reasoning and tool-call arguments of every choice. */
export function generatedText(reply: UpstreamChunk): string {
  let out = "";
  for (const c of reply.choices ?? []) {
    const part = partOf(c);
    if (!part) continue;
    for (const k of TEXT_FIELDS) {
      const text = part[k];
      if (typeof text === "string") out += text;
    }
    for (const t of part.tool_calls ?? []) {
      if (typeof t.function?.name === "string") out += t.function.name;
      if (typeof t.function?.arguments === "string") out += t.function.arguments;
    }
  }
  return out;
}

/** Whether a completion or chunk shows reasoning: reasoning text in a choice, or reasoning tokens in its usage. */
export function reasoningIn(reply: UpstreamChunk): boolean {
  const tokens = reply.usage?.completion_tokens_details?.reasoning_tokens;
  if (typeof tokens === "number" && tokens > 0) return true;
  return (reply.choices ?? []).some((c) => {
    const part = partOf(c);
    return !!part && (!!part.reasoning_content || !!part.reasoning);
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
  /** Events that were JSON but not a chunk (each relayed as an error), and what was wrong with the first. */
  malformed = 0;
  firstMalformed: string | undefined;

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
    const chunk = checkChunk(json);
    if (!chunk.ok) {
      // JSON a client would misread (a count as a string, choices not a list): an error it reads as one, in its place.
      this.malformed++;
      this.firstMalformed ??= chunk.problem;
      return [this.scrub(malformedEvent(chunk.problem))];
    }
    this.text += generatedText(chunk.value);
    if (!this.reasoningSeen && reasoningIn(chunk.value)) this.reasoningSeen = true;
    const usage = usageFrom(chunk.value.usage);
    if (usage) this.usage = usage;
    // A rewritten event keeps the data line alone (comments and event names are not part of OpenAI's chunks).
    return [this.guard.apply(chunk.value) ? this.scrub(`data: ${JSON.stringify(chunk.value)}\n\n`) : this.scrub(event)];
  }
}

/** The event relayed in place of a malformed one: OpenAI's error shape, which the AI SDK and lib/llm report as a stream error. */
export function malformedEvent(problem: string): string {
  const error = { message: `the model server sent a malformed event, not relayed (${problem})`, type: "upstream_error" };
  return `data: ${JSON.stringify({ error })}\n\n`;
}
