// conversations(): each person's messages with their status and one reply,
// from hand-written step lists, asserted whole.
import { describe, expect, it } from "vitest";
import { conversations } from "@/lib/trajectory/chat";
import type { Step, StepOf } from "@/lib/trajectory/schema";
import { id } from "../helpers/steps";

const SELF = "Ada";
const ts = (n: number) => new Date(Date.parse("2026-01-01T00:00:00.000Z") + n * 1000).toISOString();

type Message = StepOf<"message">;

function message(n: number, from: string, to: string, content: string, reply_to?: number): Message {
  return { type: "message", step_id: id(n), ts: ts(n), source: "chat", from, to, content, ...(reply_to === undefined ? {} : { reply_to: id(reply_to), trigger_step: id(reply_to) }) };
}

function wake(n: number, trigger: number): Step {
  return { type: "wake", step_id: id(n), ts: ts(n), reason: "message", level: 0, delay_s: 0, trigger_step: id(trigger), source: "responder" };
}

function decision(n: number, trigger: number, d: "replied" | "no-reply" | "reply-failed", content: string): Step {
  return { type: "observation", step_id: id(n), ts: ts(n), decision: d, content, trigger_step: id(trigger), source: "responder" };
}

describe("conversations", () => {
  it("gives each of a person's messages its status: replied, no-reply, failed, thinking", () => {
    const hello = message(1, "bo", SELF, "hello");
    const reply = message(3, SELF, "bo", "Hello bo.", 1);
    const ok = message(5, "bo", SELF, "ok");
    const why = message(8, "bo", SELF, "why?");
    const later = message(11, "bo", SELF, "still there?");
    const steps: Step[] = [
      hello,
      wake(2, 1),
      reply,
      decision(4, 1, "replied", "I answered bo."),
      ok,
      wake(6, 5),
      decision(7, 5, "no-reply", "I read bo's message and chose not to answer."),
      why,
      wake(9, 8),
      decision(10, 8, "reply-failed", "Could not answer bo: HTTP 500: down"),
      later,
      wake(12, 11),
    ];
    expect(conversations(steps, SELF)).toEqual([
      {
        person: "bo",
        duplicates: 0,
        lastTs: ts(11),
        entries: [
          { kind: "received", message: hello, status: "replied", reply },
          { kind: "received", message: ok, status: "no-reply" },
          { kind: "received", message: why, status: "failed", reason: "HTTP 500: down" },
          { kind: "received", message: later, status: "thinking" },
        ],
      },
    ]);
  });

  it("a message whose answer failed and which was answered later counts as replied", () => {
    const q = message(1, "bo", SELF, "are you there?");
    const reply = message(4, SELF, "bo", "Yes, now I am.", 1);
    const steps: Step[] = [q, wake(2, 1), decision(3, 1, "reply-failed", "Could not answer bo: timeout"), reply];
    expect(conversations(steps, SELF)).toEqual([{ person: "bo", duplicates: 0, lastTs: ts(4), entries: [{ kind: "received", message: q, status: "replied", reply }] }]);
  });

  it("shows a reply once when two thinkers answered the same message, and counts the other", () => {
    const q = message(1, "bo", SELF, "hi");
    const first = message(2, SELF, "bo", "Hi from the responder.", 1);
    const second = message(4, SELF, "bo", "Hi from the inner life.", 1);
    const steps: Step[] = [q, first, decision(3, 1, "replied", "I answered bo."), second];
    expect(conversations(steps, SELF)).toEqual([{ person: "bo", duplicates: 1, lastTs: ts(4), entries: [{ kind: "received", message: q, status: "replied", reply: first }] }]);
  });

  it("the same step seen twice (two reads merged) is one entry", () => {
    const q = message(1, "bo", SELF, "hi");
    const reply = message(2, SELF, "bo", "Hi.", 1);
    expect(conversations([q, q, reply, reply], SELF)).toEqual([{ person: "bo", duplicates: 0, lastTs: ts(2), entries: [{ kind: "received", message: q, status: "replied", reply }] }]);
  });

  it("messages the mind started have no status, in order among the person's", () => {
    const opener = message(1, SELF, "cy", "I found something you may like.");
    const answer = message(2, "cy", SELF, "show me");
    const reply = message(3, SELF, "cy", "Here it is.", 2);
    const aside = message(4, SELF, "cy", "And one more thing.");
    // A reply to a message out of view (older than the steps read) stands on its own.
    const orphan = message(5, SELF, "cy", "About that old question: yes.", 99);
    expect(conversations([opener, answer, reply, aside, orphan], SELF)).toEqual([
      {
        person: "cy",
        duplicates: 0,
        lastTs: ts(5),
        entries: [
          { kind: "sent", message: opener },
          { kind: "received", message: answer, status: "replied", reply },
          { kind: "sent", message: aside },
          { kind: "sent", message: orphan },
        ],
      },
    ]);
  });

  it("keeps several people apart, in the order they first appear", () => {
    const fromBo = message(1, "bo", SELF, "hi, I'm bo");
    const fromCy = message(2, "cy", SELF, "hi, I'm cy");
    const toCy = message(3, SELF, "cy", "Hello cy.", 2);
    const toDi = message(4, SELF, "di", "Hello di, we have not met.");
    const thought: Step = { type: "thought", step_id: id(5), ts: ts(5), content: "Two people wrote.", source: "monolith" };
    const steps: Step[] = [fromBo, fromCy, toCy, decision(6, 2, "replied", "I answered cy."), toDi, thought];
    expect(conversations(steps, SELF)).toEqual([
      { person: "bo", duplicates: 0, lastTs: ts(1), entries: [{ kind: "received", message: fromBo, status: "thinking" }] },
      { person: "cy", duplicates: 0, lastTs: ts(3), entries: [{ kind: "received", message: fromCy, status: "replied", reply: toCy }] },
      { person: "di", duplicates: 0, lastTs: ts(4), entries: [{ kind: "sent", message: toDi }] },
    ]);
  });

  it("is empty when nobody has written", () => {
    expect(conversations([wake(1, 2)], SELF)).toEqual([]);
  });
});
