import "server-only";
// The host key, split across streamed events. A model that has seen the key
// (echoed in a system prompt, say) can stream it a few characters per chunk:
// no one event contains it, so scrubbing each event misses it, and the client
// joins the pieces. This watches each text channel of the stream (a choice's
// content, reasoning, a tool call's arguments) as one string: the key found
// anywhere in it is replaced, and a channel's text that ends with the start
// of the key is held back until the next piece shows whether it continues,
// then relayed in front of it (or at the end of the stream).
import { REDACTED } from "./http";
import { TEXT_FIELDS, type UpstreamChunk } from "./upstream";

type Channel = { held: string };

export class SplitKeyGuard {
  private readonly channels = new Map<string, Channel>();
  /** The last chunk's envelope (id, model, …), for a closing chunk that carries held text. */
  private envelope: Omit<UpstreamChunk, "choices" | "usage"> = {};

  constructor(private readonly key: string) {}

  /** Scrubs one checked chunk in place; true when it changed (the caller re-serialises it). */
  apply(chunk: UpstreamChunk): boolean {
    if (!this.key || !chunk.choices) return false;
    const { choices, usage: _u, ...envelope } = chunk;
    this.envelope = envelope;
    let changed = false;
    for (const choice of choices) {
      const index = typeof choice.index === "number" ? choice.index : 0;
      const delta = choice.delta ?? choice.message;
      if (!delta) continue;
      for (const field of TEXT_FIELDS) {
        const text = this.pass(`${index}:${field}`, delta[field], false);
        if (text !== undefined) {
          delta[field] = text;
          changed = true;
        }
      }
      for (const [i, call] of (delta.tool_calls ?? []).entries()) {
        if (!call.function) continue;
        const text = this.pass(`${index}:tool:${call.index ?? i}`, call.function.arguments, true);
        if (text !== undefined) {
          call.function.arguments = text;
          changed = true;
        }
      }
    }
    return changed;
  }

  /** Text still held when the stream ends: one closing chunk per channel that holds any, to relay before the end. */
  release(): string[] {
    const out: string[] = [];
    for (const [name, ch] of this.channels) {
      if (!ch.held) continue;
      const [index, field, tool] = name.split(":");
      const delta = field === "tool" ? { tool_calls: [{ index: Number(tool), function: { arguments: ch.held } }] } : { [field!]: ch.held };
      out.push(`data: ${JSON.stringify({ ...this.envelope, choices: [{ index: Number(index), delta }] })}\n\n`);
      ch.held = "";
    }
    return out;
  }

  /**
   * One channel's piece: held text in front, the key replaced, a possible
   * start of the key held back. Returns the text to put in its place, or
   * undefined to leave the field as it came.
   */
  private pass(name: string, value: unknown, isTool: boolean): string | undefined {
    const ch = this.channels.get(name);
    if (typeof value !== "string") {
      // The next chunk of this choice carries what the channel held, even without that field (e.g. the one with finish_reason).
      if (!ch?.held || isTool) return undefined;
      const held = ch.held;
      ch.held = "";
      return held;
    }
    let text = (ch?.held ?? "") + value;
    if (text.includes(this.key)) text = text.split(this.key).join(REDACTED);
    const keep = startOfKeyAtEnd(text, this.key);
    const held = keep ? text.slice(text.length - keep) : "";
    text = keep ? text.slice(0, text.length - keep) : text;
    if (held || ch) this.channels.set(name, { held });
    return text === value ? undefined : text;
  }
}

/** The length of the longest end of `text` that is a proper start of `key` (0 when none). */
function startOfKeyAtEnd(text: string, key: string): number {
  const first = key.charCodeAt(0);
  for (let n = Math.min(text.length, key.length - 1); n > 0; n--) {
    const at = text.length - n;
    if (text.charCodeAt(at) === first && key.startsWith(text.slice(at))) return n;
  }
  return 0;
}
