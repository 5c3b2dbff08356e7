// Which of the mind's messages answer whom (issue 38): the rules the scorer
// counts answers, duplicates and unprompted messages by. Pure: it reads the
// played steps in their order (time, then the order written).
//
// Per person P, over the messages between P and the mind:
// - The answer to a message m of P's is the first message from the mind to P
//   after m that replies to m (reply_to), or, if none does, the first message
//   to P after m that replies to nothing. A reply to another of P's messages
//   answers that one, not m. One plain message after two of P's answers both.
// - A duplicate is a message to P after m and before P's next message that is
//   not the answer to any of P's messages: the mind said more than once what
//   m called for. A mind that writes to P on every wake gets one answer per
//   message of P's and a duplicate for each of the rest. One exception: the
//   first message to P after someone else wrote to the mind (since its last
//   message to P, or since m) is theirs to prompt, not m's: passing on what
//   Ada asked to tell Bo is not a second answer to Bo.
// - An unprompted message is one from the mind to P that is the answer to no
//   message of P's: P had not written since the mind last answered them (or
//   ever), so nobody asked for it. Duplicates are unprompted too.
import { isKind, type Step, type StepOf } from "../trajectory/schema";

export type Message = StepOf<"message">;

const H = 3_600_000;

export interface Conversations {
  /** The mind's answer to a person's message, by the message's step id. */
  answerTo(messageId: string): Message | undefined;
  /** The duplicates after a person's message (see the head of this file), in order. */
  duplicatesOf(messageId: string): Message[];
  /** Every duplicate of the run, in order. */
  duplicates: Message[];
  /** Every message from the mind to someone that answers nothing of theirs, in order. */
  unprompted: Message[];
}

export function conversations(steps: readonly Step[], mind: string): Conversations {
  const messages = steps.filter((s): s is Message => isKind(s, "message"));
  const at = new Map(messages.map((m, i) => [m.step_id, i]));
  const pos = (m: Message) => at.get(m.step_id) ?? -1;
  const people = new Set<string>();
  for (const m of messages) {
    if (m.from === mind && m.to !== mind) people.add(m.to);
    else if (m.from !== mind && m.to === mind) people.add(m.from);
  }
  const answers = new Map<string, Message>();
  const duplicatesByMessage = new Map<string, Message[]>();
  const answered = new Set<string>();
  for (const person of people) {
    const theirs = messages.filter((m) => m.from === person && m.to === mind);
    const toThem = messages.filter((m) => m.from === mind && m.to === person);
    for (const m of theirs) {
      const after = toThem.filter((x) => pos(x) > pos(m));
      const answer = after.find((x) => x.reply_to === m.step_id) ?? after.find((x) => x.reply_to === undefined);
      if (answer) {
        answers.set(m.step_id, answer);
        answered.add(answer.step_id);
      }
    }
    // Where others wrote to the mind, in order: a message to P after one of them may be passing it on.
    const others = messages.filter((m) => m.to === mind && m.from !== mind && m.from !== person).map(pos);
    const othersBetween = (a: number, b: number) => {
      const i = firstAbove(others, a);
      return i < others.length && (others[i] ?? Infinity) < b;
    };
    theirs.forEach((m, i) => {
      const next = theirs[i + 1];
      let since = pos(m);
      const further: Message[] = [];
      for (const x of toThem) {
        if (pos(x) <= pos(m) || (next && pos(x) >= pos(next))) continue;
        if (!answered.has(x.step_id) && !othersBetween(since, pos(x))) further.push(x);
        since = pos(x);
      }
      duplicatesByMessage.set(m.step_id, further);
    });
  }
  const duplicatesOf = (id: string) => duplicatesByMessage.get(id) ?? [];
  const duplicates = [...duplicatesByMessage.values()].flat().sort((a, b) => pos(a) - pos(b));
  const unprompted = messages.filter((m) => m.from === mind && m.to !== mind && !answered.has(m.step_id));
  return { answerTo: (id) => answers.get(id), duplicatesOf, duplicates, unprompted };
}

/** The index of the first of the sorted `xs` above `a` (xs.length if none). */
function firstAbove(xs: readonly number[], a: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((xs[mid] ?? Infinity) > a) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** A person's unprompted messages on one day of the scenario (day 1 is its first 24 simulated hours). */
export interface PersonDay {
  person: string;
  day: number;
  messages: Message[];
}

/** The unprompted messages by person and scenario day, most first (ties: earliest day, then name). */
export function unpromptedByPersonDay(unprompted: readonly Message[], startMs: number): PersonDay[] {
  const groups = new Map<string, PersonDay>();
  for (const m of unprompted) {
    const day = Math.floor((Date.parse(m.ts) - startMs) / (24 * H)) + 1;
    const key = `${day}\n${m.to}`;
    const g = groups.get(key) ?? { person: m.to, day, messages: [] };
    g.messages.push(m);
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => b.messages.length - a.messages.length || a.day - b.day || a.person.localeCompare(b.person));
}
