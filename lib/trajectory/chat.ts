// The mind's conversations, as a pure function over its steps: per person,
// the messages in order, each of theirs with what became of it (the
// responder's decision, or a reply) and at most one reply. Two thinkers can
// race to answer the same message; the first reply is the one shown, a later
// one is left out and counted, so a reply never shows twice.
import { isKind, type Step, type StepOf } from "./schema";

type Message = StepOf<"message">;

export type ChatStatus = "thinking" | "replied" | "no-reply" | "failed";

/** A message from the person, with what became of it. */
export interface Received {
  kind: "received";
  message: Message;
  status: ChatStatus;
  /** Why answering failed (status "failed"), as the responder recorded it. */
  reason?: string;
  /** The mind's answer: the first message with `reply_to` this message. */
  reply?: Message;
}

/** A message the mind started (no `reply_to`, or one to a message not in view). */
export interface Sent {
  kind: "sent";
  message: Message;
}

export type ChatEntry = Received | Sent;

export interface Conversation {
  person: string;
  entries: ChatEntry[];
  /** Replies left out because the message already had one. */
  duplicates: number;
  /** Time of the newest message either way. */
  lastTs: string;
}

type Decision = NonNullable<StepOf<"observation">["decision"]>;

const STATUS: Record<Decision, ChatStatus> = { replied: "replied", "no-reply": "no-reply", "reply-failed": "failed" };

/** "Could not answer ada: HTTP 500 …" → "HTTP 500 …". */
function failureReason(content: string): string {
  const m = /^Could not answer .+?: ([\s\S]+)$/.exec(content);
  return (m?.[1] ?? content).trim();
}

/** Conversations in the order each person first appears in the steps. */
export function conversations(steps: readonly Step[], selfName: string): Conversation[] {
  const byPerson = new Map<string, Conversation>();
  const received = new Map<string, Received>();
  const seen = new Set<string>();
  const messages: Message[] = [];
  const decisions = new Map<string, { decision: Decision; content: string }>();

  const conversation = (person: string): Conversation => {
    let c = byPerson.get(person);
    if (!c) byPerson.set(person, (c = { person, entries: [], duplicates: 0, lastTs: "" }));
    return c;
  };

  for (const s of steps) {
    if (seen.has(s.step_id)) continue;
    seen.add(s.step_id);
    if (isKind(s, "message")) messages.push(s);
    // The latest decision about a message counts (a retry may follow a failure).
    else if (isKind(s, "observation") && s.decision && s.trigger_step) decisions.set(s.trigger_step, { decision: s.decision, content: s.content });
  }
  for (const m of messages) if (m.from !== selfName) received.set(m.step_id, { kind: "received", message: m, status: "thinking" });

  for (const m of messages) {
    const mine = m.from === selfName;
    const answered = mine && m.reply_to !== undefined ? received.get(m.reply_to) : undefined;
    if (answered) {
      if (answered.reply) conversation(answered.message.from).duplicates++;
      else answered.reply = m;
      const c = conversation(answered.message.from);
      if (m.ts > c.lastTs) c.lastTs = m.ts;
      continue;
    }
    const c = conversation(mine ? m.to : m.from);
    c.entries.push(received.get(m.step_id) ?? { kind: "sent", message: m });
    if (m.ts > c.lastTs) c.lastTs = m.ts;
  }

  for (const r of received.values()) {
    if (r.reply) {
      r.status = "replied";
      continue;
    }
    const d = decisions.get(r.message.step_id);
    if (!d) continue;
    r.status = STATUS[d.decision];
    if (r.status === "failed") r.reason = failureReason(d.content);
  }
  return [...byPerson.values()];
}
