// A chat-completions request's body, as JSON.stringify writes it, made of
// each message's JSON kept from the call before. A mind's calls are a step
// or two apart: all but the newest few of their ~200 messages (and the
// instructions, the same text every call) are the last call's, rendered by
// lib/context as the same strings. Writing the whole ~22 KB body again for
// every call was 0.3 ms of the worker's thread per model call (bench/mind,
// profiled at 10k steps); looking each message up by its text is a hash the
// string keeps once it has been computed.

export interface BodyMessage {
  role: string;
  content: string;
}

/**
 * Messages' JSON by role and text, in two generations: those the current
 * call used and the call before's (what neither used is let go), so a cache
 * shared by a mind's runs holds about two calls' worth.
 */
export class MessageJson {
  private now = new Map<string, Map<string, string>>();
  private before = new Map<string, Map<string, string>>();

  /** `{"role":…,"content":…}`, as JSON.stringify writes a message of those two fields. */
  of(m: BodyMessage): string {
    let now = this.now.get(m.role);
    if (!now) this.now.set(m.role, (now = new Map()));
    let json = now.get(m.content);
    if (json === undefined) {
      json = this.before.get(m.role)?.get(m.content) ?? JSON.stringify({ role: m.role, content: m.content });
      now.set(m.content, json);
    }
    return json;
  }

  /** A call's body is made: what it used is kept for the next call, what the one before used and it did not is let go. */
  next(): void {
    this.before = this.now;
    this.now = new Map();
  }
}

/**
 * `{"model":…,"messages":[…],…options}`: the same text as JSON.stringify of
 * that object (its keys in that order), with each message's JSON taken from
 * `cache` when it has it. The options are JSON values (no undefined fields).
 */
export function requestBody(model: string, messages: readonly BodyMessage[], options: Record<string, unknown>, cache: MessageJson): string {
  let out = `{"model":${JSON.stringify(model)},"messages":[`;
  for (let i = 0; i < messages.length; i++) out += (i > 0 ? "," : "") + cache.of(messages[i] as BodyMessage);
  cache.next();
  const rest = JSON.stringify(options);
  return `${out}]${rest === "{}" ? "}" : `,${rest.slice(1)}`}`;
}
