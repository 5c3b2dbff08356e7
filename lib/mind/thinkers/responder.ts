// The responder: wakes on a message addressed to the mind and answers at once,
// with one model call that sees the conversation with that person and the
// recent inner life. It may decide not to answer (the model says NO_REPLY).
// Each decision is an `observation` with `decision` replied / no-reply /
// reply-failed. A message is answered at most once: the responder claims it
// before the call, and skips one the log shows handled.
import { isKind, type Step, type StepOf } from "../../trajectory/schema";
import type { Subscription } from "../dispatch";
import type { Journal } from "../journal";
import type { ChatMessage, ModelPort } from "../ports";
import { handledIn } from "../recovery";

type Message = StepOf<"message">;

export const RESPONDER = "responder";
export const NO_REPLY = "NO_REPLY";
/** Steps read to find the conversation and the inner life. */
const LOOK_BACK = 500;
const CONVERSATION = 20;
const INNER_LIFE = 6;
const INNER_KINDS = new Set(["thought", "observation", "final", "merge"]);

export interface ResponderDeps {
  journal: Journal;
  model: ModelPort;
  selfName: string;
  persona: string;
  signal: AbortSignal;
  /** Reports what the responder is doing (for the page's status line). */
  onBusy?: (messageId: string | null) => void;
}

export function responderInstructions(name: string, persona: string): string {
  return `You are ${name}, a persistent mind, answering a message from a person. Your inner life goes on separately; you see its latest steps for context.

${persona.trim() || "(No persona was given.)"}

Reply with the text of your answer only (no code, no preamble). If the message needs no answer, reply with exactly ${NO_REPLY}.`;
}

const line = (m: Message, self: string) => (m.from === self ? `[you, to ${m.to}] ${m.content}` : `[${m.from}] ${m.content}`);

export class Responder {
  readonly subscription: Subscription;
  private readonly claimed = new Set<string>();

  constructor(private readonly deps: ResponderDeps) {
    this.subscription = {
      name: RESPONDER,
      types: ["message"],
      accept: (s) => isKind(s, "message") && s.from !== deps.selfName,
    };
  }

  /**
   * A message dropped from the dispatcher's full queue will not be handled:
   * record that, so no message goes unanswered without a word in the log.
   */
  dropped(step: Step): void {
    if (!isKind(step, "message") || this.claimed.has(step.step_id)) return;
    this.claimed.add(step.step_id);
    void this.deps.journal
      .append({ type: "observation", decision: "reply-failed", content: `Too many messages at once: I could not answer ${step.from}'s message ${step.step_id.slice(0, 8)}.`, trigger_step: step.step_id, source: RESPONDER })
      .catch(() => undefined);
  }

  async handle(trigger: Step): Promise<void> {
    if (!isKind(trigger, "message") || this.claimed.has(trigger.step_id)) return;
    this.claimed.add(trigger.step_id);
    const { journal, selfName } = this.deps;
    const tail = await journal.log.tail(LOOK_BACK);
    if (handledIn(tail, trigger.step_id)) return;
    this.deps.onBusy?.(trigger.step_id);
    try {
      await journal.append({ type: "wake", reason: "message", level: 0, delay_s: 0, trigger_step: trigger.step_id, source: RESPONDER });
      const person = trigger.from;
      const conversation = tail.filter((s): s is Message => isKind(s, "message") && (s.from === person || s.to === person) && s.step_id !== trigger.step_id).slice(-CONVERSATION);
      const inner = tail.filter((s) => INNER_KINDS.has(s.type) && s.source !== RESPONDER).slice(-INNER_LIFE);
      const messages: ChatMessage[] = [
        {
          role: "user",
          content: [
            inner.length ? `Your inner life lately:\n${inner.map((s) => `- ${s.type}: ${"content" in s ? String(s.content) : ""}`).join("\n")}` : "Your inner life has no thoughts yet.",
            conversation.length ? `Your conversation with ${person} so far:\n${conversation.map((m) => line(m, selfName)).join("\n")}` : `This is the first message from ${person}.`,
            `New message from ${person} (${trigger.step_id.slice(0, 8)}):\n${trigger.content}`,
          ].join("\n\n"),
        },
      ];
      const reply = await this.deps.model.complete({ instructions: responderInstructions(selfName, this.deps.persona), messages, signal: this.deps.signal });
      // The decision is the step this call produced: it carries the call's usage.
      const usage = reply.usage ? { usage: reply.usage } : {};
      const decided = (decision: "replied" | "no-reply" | "reply-failed", content: string) =>
        journal.append({ type: "observation", decision, content, trigger_step: trigger.step_id, source: RESPONDER, ...usage });
      if (!reply.ok) {
        if (reply.aborted) return;
        await decided("reply-failed", `Could not answer ${person}: ${reply.error}`);
        return;
      }
      const text = reply.text.trim();
      if (!text || text === NO_REPLY) {
        await decided("no-reply", `I read ${person}'s message and chose not to answer.`);
        return;
      }
      await journal.append({ type: "message", from: selfName, to: person, content: text, reply_to: trigger.step_id, trigger_step: trigger.step_id, source: "chat" });
      await decided("replied", `I answered ${person}.`);
    } finally {
      this.deps.onBusy?.(null);
    }
  }
}
