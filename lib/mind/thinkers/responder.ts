// The responder: wakes on a message addressed to the mind and answers at once,
// with one model call that sees the conversation with that person and the
// recent inner life. It may decide not to answer (the model says NO_REPLY).
// Each decision is an `observation` with `decision` replied / no-reply /
// reply-failed. A message is answered at most once: the responder claims it
// before the call, and skips one the log shows handled.
import { conversationMessages, type ConversationView, type MessageStep } from "../../context/conversation";
import { conversationCall, type SystemPart } from "../../context/replay";
import { TokenCounter } from "../../context/tokens";
import { isKind, type Step } from "../../trajectory/schema";
import type { Subscription } from "../dispatch";
import type { Journal } from "../log/journal";
import type { ContextPort, ModelPort } from "../ports";
import { handledIn } from "../recovery";
import { personaText, renderSelf, type SelfTexts } from "../self/self";
import { defaultSelfTexts } from "../self/defaults";
import { wakeWhere, type WakeWhere } from "../where";

type Message = MessageStep;

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
  /** Its persona, when it has no texts of its own (a test's mind): the shipped responder.md speaks with it. */
  persona: string;
  /** Its own texts (responder.md, persona.md) as recorded, read at each message. */
  self?: () => SelfTexts;
  signal: AbortSignal;
  /** Reports what the responder is doing (for the page's status line). */
  onBusy?: (messageId: string | null) => void;
  /** Where what its call saw is kept, under the step the call led to (the reply, or the decision). */
  contexts?: ContextPort;
  /** Where the mind runs, and its lease epoch: written on its wake steps as on the inner life's. */
  where?: WakeWhere;
}

/** How the responder is told to answer (responder.md, which spells NO_REPLY out as text). */
export function responderInstructions(name: string, persona: string): string {
  return responderPart(defaultSelfTexts(persona), name).text;
}

/** The responder's instructions rendered from the mind's own responder.md and persona.md: one part, naming its file. */
export function responderPart(self: SelfTexts, name: string): SystemPart {
  const file = self["responder.md"];
  return { kind: "instructions", text: renderSelf(file.text, { name, persona: personaText(self["persona.md"].text) }), file: "responder.md", ...(file.sha ? { sha: file.sha } : {}) };
}

export class Responder {
  readonly subscription: Subscription;
  private readonly claimed = new Set<string>();
  /** Counts what each call saw, for its record (the instructions, the same every call, counted once). */
  private readonly counter = new TokenCounter();

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
      const wake = await journal.append({ type: "wake", reason: "message", level: 0, delay_s: 0, trigger_step: trigger.step_id, ...wakeWhere(this.deps.where), source: RESPONDER });
      const person = trigger.from;
      const conversation = tail.filter((s): s is Message => isKind(s, "message") && (s.from === person || s.to === person) && s.step_id !== trigger.step_id).slice(-CONVERSATION);
      const inner = tail.filter((s) => INNER_KINDS.has(s.type) && s.source !== RESPONDER).slice(-INNER_LIFE);
      const view: ConversationView = { person, selfName, inner, conversation, message: trigger };
      const messages = conversationMessages(view);
      const system = responderPart(this.deps.self?.() ?? defaultSelfTexts(this.deps.persona), selfName);
      const instructions = system.text;
      const reply = await this.deps.model.complete({ instructions, messages, signal: this.deps.signal });
      // What the call saw, kept under the step it led to (the inspector's "what the model saw"); a call a spend cap refused saw nothing.
      const saw = (led: Step) => {
        if (this.deps.contexts && !(!reply.ok && reply.paused)) this.deps.contexts.record(conversationCall(view, { step_id: led.step_id, run_id: wake.step_id, traj_id: journal.log.trajId, system, counter: this.counter }));
        return led;
      };
      // The decision is the step this call produced: it carries the call's usage.
      const usage = reply.usage ? { usage: reply.usage } : {};
      const decided = (decision: "replied" | "no-reply" | "reply-failed", content: string) =>
        journal.append({ type: "observation", decision, content, trigger_step: trigger.step_id, source: RESPONDER, ...usage });
      if (!reply.ok) {
        if (reply.aborted) return;
        saw(await decided("reply-failed", `Could not answer ${person}: ${reply.error}`));
        return;
      }
      const text = reply.text.trim();
      if (!text || text === NO_REPLY) {
        saw(await decided("no-reply", `I read ${person}'s message and chose not to answer.`));
        return;
      }
      saw(await journal.append({ type: "message", from: selfName, to: person, content: text, reply_to: trigger.step_id, trigger_step: trigger.step_id, source: "chat" }));
      await decided("replied", `I answered ${person}.`);
    } finally {
      this.deps.onBusy?.(null);
    }
  }
}
