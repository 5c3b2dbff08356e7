// The responder's one message to its model: the mind's recent inner life, the
// conversation with the person so far, and the new message. One place, so the
// inspector's replay (replay.ts) rebuilds it byte for byte from the steps the
// call's record names. Pure.
import { isKind, type Step, type StepOf } from "../trajectory/schema";
import type { ChatMessage } from "./project";

export type MessageStep = StepOf<"message">;

export interface ConversationView {
  person: string;
  selfName: string;
  /** The inner life's latest steps, oldest first. */
  inner: readonly Step[];
  /** Earlier messages between the mind and the person, oldest first. */
  conversation: readonly MessageStep[];
  /** The message being answered. */
  message: MessageStep;
}

const line = (m: MessageStep, self: string) => (m.from === self ? `[you, to ${m.to}] ${m.content}` : `[${m.from}] ${m.content}`);

export function conversationMessages(v: ConversationView): ChatMessage[] {
  const { person } = v;
  return [
    {
      role: "user",
      content: [
        v.inner.length ? `Your inner life lately:\n${v.inner.map((s) => `- ${s.type}: ${"content" in s ? String(s.content) : ""}`).join("\n")}` : "Your inner life has no thoughts yet.",
        v.conversation.length ? `Your conversation with ${person} so far:\n${v.conversation.map((m) => line(m, v.selfName)).join("\n")}` : `This is the first message from ${person}.`,
        `New message from ${person} (${v.message.step_id.slice(0, 8)}):\n${v.message.content}`,
      ].join("\n\n"),
    },
  ];
}

export const isMessage = (s: Step): s is MessageStep => isKind(s, "message");
