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

type Channel = { held: string };
type Part = Record<string, unknown>;

const TEXT_FIELDS = ["content", "reasoning_content", "reasoning"] as const;

export class SplitKeyGuard {
  private readonly channels = new Map<string, Channel>();
  /** The last chunk's envelope (id, model, …), for a closing chunk that carries held text. */
  private envelope: Part = {};

  constructor(private readonly key: string) {}

  /** Scrubs one parsed chunk in place; true when it changed (the caller re-serialises it). */
  apply(chunk: unknown): boolean {
    if (!this.key || !chunk || typeof chunk !== "object") return false;
    const choices = (chunk as { choices?: unknown }).choices;
    if (!Array.isArray(choices)) return false;
    const { choices: _c, usage: _u, ...envelope } = chunk as Part;
    this.envelope = envelope;
    let changed = false;
    for (const c of choices) {
      if (!c || typeof c !== "object") continue;
      const choice = c as Part;
      const index = typeof choice.index === "number" ? choice.index : 0;
      const delta = (choice.delta ?? choice.message) as Part | undefined;
      if (!delta || typeof delta !== "object") continue;
      for (const field of TEXT_FIELDS) if (this.pass(`${index}:${field}`, delta, field)) changed = true;
      if (Array.isArray(delta.tool_calls)) {
        delta.tool_calls.forEach((t: unknown, i: number) => {
          const call = t as { index?: unknown; function?: Part } | null;
          if (call?.function && typeof call.function === "object" && this.pass(`${index}:tool:${String(call.index ?? i)}`, call.function, "arguments")) changed = true;
        });
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

  /** One channel's piece: held text in front, the key replaced, a possible start of the key held back. */
  private pass(name: string, part: Part, field: string): boolean {
    const ch = this.channels.get(name);
    const value = part[field];
    if (typeof value !== "string") {
      // The next chunk of this choice carries what the channel held, even without that field (e.g. the one with finish_reason).
      if (!ch?.held || name.includes(":tool:")) return false;
      part[field] = ch.held;
      ch.held = "";
      return true;
    }
    let text = (ch?.held ?? "") + value;
    if (text.includes(this.key)) text = text.split(this.key).join(REDACTED);
    const keep = startOfKeyAtEnd(text, this.key);
    const held = keep ? text.slice(text.length - keep) : "";
    text = keep ? text.slice(0, text.length - keep) : text;
    if (held || ch) this.channels.set(name, { held });
    if (text === value) return false;
    part[field] = text;
    return true;
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
