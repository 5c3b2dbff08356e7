// lib/mind/thinkers/responder.ts: one model call per message (MockLanguageModelV4
// through the real modelPort), over a Journal on the in-memory store log. It
// sees its recent inner life and the conversation with that person only; it
// writes a wake, the reply and a decision; NO_REPLY and model errors are
// decisions too; a message is answered at most once.
import { describe, expect, it } from "vitest";
import { Dispatcher, wakes } from "../../../../lib/mind/dispatch";
import { Journal } from "../../../../lib/mind/log/journal";
import type { ContextPort } from "../../../../lib/mind/ports";
import { replay, tokenLines } from "../../../../lib/context/replay";
import { MESSAGE_OVERHEAD } from "../../../../lib/context/tokens";
import { MindWriter } from "../../../../lib/mind/log/mind-log";
import { contextOf } from "../../../../lib/store/derived/contexts";
import { indexedDbMindState } from "../../../../lib/store/state/mind-state";
import { openTestDb } from "../../helpers/db";
import { NO_REPLY, RESPONDER, Responder, responderInstructions } from "../../../../lib/mind/thinkers/responder";
import { formatTs, type Step, type StepOf } from "../../../../lib/trajectory/schema";
import { FakeClock, settle, until } from "../../helpers/fake-clock";
import { MemoryStepLog, sequentialIds } from "../../helpers/memory-log";
import { scriptedModel, type Turn } from "../../helpers/mock-model";
import { id, stepMaker } from "../../helpers/steps";

const SELF = "Reverie";
const PERSONA = "Curious and kind.";
const T0 = Date.parse("2025-02-01T10:00:00.000Z");
const jid = (n: number) => id(n, "000000000000");
type Message = StepOf<"message">;

const INSTRUCTIONS = `You are Reverie, a persistent mind, answering a message from a person. Your inner life goes on separately; you see its latest steps for context.

Curious and kind.

Reply with the text of your answer only (no code, no preamble). If the message needs no answer, reply with exactly NO_REPLY.`;

function setup(opts: { initial?: Step[]; turns?: Turn[] | ((n: number) => Turn | Promise<Turn>); signal?: AbortSignal; contexts?: ContextPort } = {}) {
  const log = new MemoryStepLog(opts.initial);
  const clock = new FakeClock(T0);
  const journal = new Journal(log, sequentialIds(), clock);
  const model = scriptedModel(opts.turns ?? ["Hello, Ada."]);
  const busy: (string | null)[] = [];
  const responder = new Responder({ journal, model: model.port, selfName: SELF, persona: PERSONA, signal: opts.signal ?? new AbortController().signal, onBusy: (m) => busy.push(m), contexts: opts.contexts });
  return { log, clock, journal, model, responder, busy, written: () => log.steps.slice(opts.initial?.length ?? 0) };
}

/** A history: earlier steps of the inner life, and messages with two people. */
function history() {
  const mk = stepMaker({ tail: "bbbbbbbbbbbb", start: T0 - 3_600_000 });
  const ada1 = mk("message", { from: "ada", to: SELF, content: "Morning!" }) as Message;
  const steps: Step[] = [
    mk("thought", { content: "old thought 1", source: "monolith" }),
    ada1,
    mk("message", { from: SELF, to: "ada", content: "Good morning, Ada.", reply_to: ada1.step_id, source: "chat" }),
    mk("observation", { content: "I answered ada.", decision: "replied", trigger_step: ada1.step_id, source: RESPONDER }),
    mk("message", { from: "bob", to: SELF, content: "Bob here: secret plans." }),
    mk("thought", { content: "old thought 2", source: "monolith" }),
    mk("wake", { reason: "scheduled", level: 0, delay_s: 0, source: "monolith" }),
    mk("observation", { content: "learn: ada likes tea", source: "monolith" }),
    mk("final", { content: "learn: ada likes tea" }),
    mk("idle", { content: "Nothing needed doing.", source: "monolith" }),
    mk("message", { from: SELF, to: "ada", content: "I found a tea shop.", source: "chat" }),
    mk("thought", { content: "tea is warm", source: "monolith" }),
    mk("merge", { content: "child says hi", from_traj: id(700), from_step: id(701), from_traj_ref: "x" }),
    mk("observation", { content: "I was away for 10 min; my last step was at …", source: "system" }),
    mk("reasoning", { thought: "look", cmd: "ls" }),
  ];
  const message = mk("message", { from: "ada", to: SELF, content: "Do you remember what I like?" }) as Message;
  return { steps: [...steps, message], message, ada1 };
}

describe("Responder: a reply", () => {
  it("one model call with its instructions, the inner life lately, the conversation with that person only, and the new message", async () => {
    const h = history();
    const t = setup({ initial: h.steps, turns: ["  Tea, of course.  "] });
    await t.responder.handle(h.message);
    expect(t.model.mock.doStreamCalls).toHaveLength(1);
    expect(t.model.calls()).toEqual([
      [
        { role: "system", text: INSTRUCTIONS },
        {
          role: "user",
          text: `Your inner life lately:
- thought: old thought 2
- observation: learn: ada likes tea
- final: learn: ada likes tea
- thought: tea is warm
- merge: child says hi
- observation: I was away for 10 min; my last step was at …

Your conversation with ada so far:
[ada] Morning!
[you, to ada] Good morning, Ada.
[you, to ada] I found a tea shop.

New message from ada (${h.message.step_id.slice(0, 8)}):
Do you remember what I like?`,
        },
      ],
    ]);
    expect(responderInstructions(SELF, PERSONA)).toBe(INSTRUCTIONS);
    // A wake, the reply, the decision: nothing else.
    expect(t.written()).toEqual([
      { type: "wake", step_id: jid(1), ts: formatTs(T0), reason: "message", level: 0, delay_s: 0, trigger_step: h.message.step_id, source: RESPONDER },
      { type: "message", step_id: jid(2), ts: formatTs(T0), from: SELF, to: "ada", content: "Tea, of course.", reply_to: h.message.step_id, trigger_step: h.message.step_id, source: "chat" },
      { type: "observation", step_id: jid(3), ts: formatTs(T0), decision: "replied", content: "I answered ada.", trigger_step: h.message.step_id, source: RESPONDER, usage: { input_tokens: 10, output_tokens: 5, model: "mock/scripted" } },
    ]);
    expect(t.busy).toEqual([h.message.step_id, null]);
  });

  it("a first message, with no inner life yet", async () => {
    const mk = stepMaker({ tail: "bbbbbbbbbbbb", start: T0 - 1000 });
    const m = mk("message", { from: "carol", to: SELF, content: "Hi, who are you?" }) as Message;
    const t = setup({ initial: [m], turns: ["I am Reverie."] });
    await t.responder.handle(m);
    expect(t.model.calls()[0]![1]).toEqual({
      role: "user",
      text: `Your inner life has no thoughts yet.\n\nThis is the first message from carol.\n\nNew message from carol (${m.step_id.slice(0, 8)}):\nHi, who are you?`,
    });
    expect(t.written().map((s) => [s.type, (s as { content?: string }).content])).toEqual([
      ["wake", undefined],
      ["message", "I am Reverie."],
      ["observation", "I answered carol."],
    ]);
  });

  it("an empty persona reads as such", () => {
    expect(responderInstructions("Nova", "  ")).toBe(INSTRUCTIONS.replace("You are Reverie", "You are Nova").replace(PERSONA, "(No persona was given.)"));
  });
});

describe("Responder: what its call saw", () => {
  it("is recorded under the reply, through the contexts store; its replay is the request the model was sent, byte for byte", async () => {
    const db = await openTestDb("responder-seen");
    try {
      const h = history();
      // The mind's writer over its IndexedDB state is its ContextPort: the record is written by it (here alone: the steps are in the memory log).
      const recorder = new MindWriter(indexedDbMindState(db, "mind-1"));
      const t = setup({ initial: h.steps, turns: ["Tea, of course."], contexts: recorder });
      await t.responder.handle(h.message);
      await recorder.flushed();
      const [wake, reply] = t.written();
      const stored = await contextOf(db, "mind-1", reply!.step_id);
      expect(stored?.missing).toEqual([]);
      const call = stored!.call;
      expect([call.run_id, call.iteration, call.budget]).toEqual([wake!.step_id, 1, 0]);
      const replayed = replay(call, { step: (sid) => t.log.steps.find((s) => s.step_id === sid), summary: () => undefined });
      const [system, ...messages] = t.model.calls()[0]!;
      expect(replayed.missing).toEqual([]);
      expect(replayed.system).toBe(system!.text);
      expect(replayed.messages.map((m) => ({ role: m.role, text: m.content }))).toEqual(messages);
      // Its token table adds up: the instructions, the conversation, the two messages' framing.
      const { lines, total } = tokenLines(call);
      expect(lines.map((l) => l.kind)).toEqual(["instructions", "conversation", "framing"]);
      expect(lines[1]!.label).toBe("conversation with ada (3 earlier messages, 6 inner-life steps)");
      expect(lines[2]!.tokens).toBe(2 * MESSAGE_OVERHEAD);
      expect(total).toBe(call.system[0]!.tokens + call.tokens + MESSAGE_OVERHEAD);
    } finally {
      await db.delete();
    }
  });

  it("a decision without a reply is the step its call led to: the record is kept under it", async () => {
    const seen: string[] = [];
    const contexts: ContextPort = { record: (c) => void seen.push(c.step_id) };
    const h = history();
    const t = setup({ initial: h.steps, turns: [NO_REPLY], contexts });
    await t.responder.handle(h.message);
    expect(seen).toEqual([t.written()[1]!.step_id]);
    expect(t.written()[1]).toMatchObject({ type: "observation", decision: "no-reply" });
  });
});

describe("Responder: decisions without a reply", () => {
  for (const text of [NO_REPLY, `  ${NO_REPLY}\n`, "   "]) {
    it(`the model answers ${JSON.stringify(text)}: a no-reply decision and no message`, async () => {
      const h = history();
      const t = setup({ initial: h.steps, turns: [text] });
      await t.responder.handle(h.message);
      expect(t.written()).toEqual([
        { type: "wake", step_id: jid(1), ts: formatTs(T0), reason: "message", level: 0, delay_s: 0, trigger_step: h.message.step_id, source: RESPONDER },
        { type: "observation", step_id: jid(2), ts: formatTs(T0), decision: "no-reply", content: "I read ada's message and chose not to answer.", trigger_step: h.message.step_id, source: RESPONDER, usage: { input_tokens: 10, output_tokens: 5, model: "mock/scripted" } },
      ]);
    });
  }

  it("a model error: a reply-failed decision with the error, and no message", async () => {
    const h = history();
    const t = setup({ initial: h.steps, turns: [{ throws: new Error("model down") }] });
    await t.responder.handle(h.message);
    expect(t.written()).toEqual([
      { type: "wake", step_id: jid(1), ts: formatTs(T0), reason: "message", level: 0, delay_s: 0, trigger_step: h.message.step_id, source: RESPONDER },
      { type: "observation", step_id: jid(2), ts: formatTs(T0), decision: "reply-failed", content: "Could not answer ada: model down", trigger_step: h.message.step_id, source: RESPONDER },
    ]);
    expect(t.busy).toEqual([h.message.step_id, null]);
  });

  it("stopped mid-call: no decision is written (start-up will find the message unanswered)", async () => {
    const h = history();
    const controller = new AbortController();
    const t = setup({
      initial: h.steps,
      signal: controller.signal,
      turns: () => {
        controller.abort();
        return "too late";
      },
    });
    await t.responder.handle(h.message);
    expect(t.written().map((s) => s.type)).toEqual(["wake"]);
    expect(t.busy).toEqual([h.message.step_id, null]);
  });
});

describe("Responder: each message once", () => {
  it("the same message offered twice, one after the other, is answered once", async () => {
    const h = history();
    const t = setup({ initial: h.steps });
    await t.responder.handle(h.message);
    await t.responder.handle(h.message);
    expect(t.model.mock.doStreamCalls).toHaveLength(1);
    expect(t.written().map((s) => s.type)).toEqual(["wake", "message", "observation"]);
  });

  it("offered again while its answer is still being written, it is answered once", async () => {
    const h = history();
    let release: () => void = () => undefined;
    const t = setup({ initial: h.steps, turns: () => new Promise<Turn>((r) => (release = () => r("Tea."))) });
    const first = t.responder.handle(h.message);
    await until(() => t.model.mock.doStreamCalls.length === 1, "the first call started");
    await t.responder.handle(h.message); // returns at once: the message is claimed
    release();
    await first;
    expect(t.model.mock.doStreamCalls).toHaveLength(1);
    expect(t.log.ofType("message").filter((s) => (s as Message).reply_to === h.message.step_id)).toHaveLength(1);
  });

  it("through the dispatcher: a message offered twice while the responder is busy is answered once", async () => {
    const h = history();
    const t = setup({ initial: h.steps });
    const d = new Dispatcher([t.responder]);
    d.offer(h.message);
    d.offer(h.message);
    d.offer(h.message);
    await d.settled();
    expect(t.model.mock.doStreamCalls).toHaveLength(1);
    expect(t.written().map((s) => s.type)).toEqual(["wake", "message", "observation"]);
  });

  it("a message the log shows answered (a reply, or a decision) is not answered again, and nothing is written", async () => {
    const h = history();
    const mk = stepMaker({ tail: "dddddddddddd", start: T0 - 500 });
    const decided = mk("message", { from: "bob", to: SELF, content: "ping" }) as Message;
    const t = setup({
      initial: [...h.steps, decided, mk("observation", { content: "I read bob's message and chose not to answer.", decision: "no-reply", trigger_step: decided.step_id, source: RESPONDER })],
    });
    await t.responder.handle(h.ada1); // answered long ago (a reply with reply_to)
    await t.responder.handle(decided);
    expect(t.model.mock.doStreamCalls).toHaveLength(0);
    expect(t.written()).toEqual([]);
    expect(t.busy).toEqual([]);
  });

  it("a step that is not a message is ignored", async () => {
    const t = setup();
    await t.responder.handle(stepMaker()("thought", { content: "not for me" }));
    expect(t.log.steps).toEqual([]);
    expect(t.model.mock.doStreamCalls).toHaveLength(0);
  });

  it("its subscription: messages from others, never the mind's own, and no other kinds", () => {
    const t = setup();
    const mk = stepMaker();
    const steps = [
      mk("message", { from: "ada", to: SELF, content: "hi" }),
      mk("message", { from: SELF, to: "ada", content: "hello", source: "chat" }),
      mk("message", { from: SELF, to: "ada", content: "sent from a run", source: "monolith" }),
      mk("observation", { content: "x" }),
      mk("message", { from: "bob", to: SELF, content: "written by the responder's name", source: RESPONDER }),
    ];
    expect(steps.map((s) => wakes(t.responder.subscription, s))).toEqual([true, false, false, false, false]);
    expect(t.responder.subscription.name).toBe(RESPONDER);
  });

  it("two messages from different people are both answered, each with their own conversation", async () => {
    const mk = stepMaker({ tail: "bbbbbbbbbbbb", start: T0 - 1000 });
    const a = mk("message", { from: "ada", to: SELF, content: "hi from ada" }) as Message;
    const b = mk("message", { from: "bob", to: SELF, content: "hi from bob" }) as Message;
    const t = setup({ initial: [a, b], turns: (n) => `answer ${n}` });
    const d = new Dispatcher([t.responder]);
    d.offer(a);
    d.offer(b);
    await d.settled();
    await settle(5);
    expect(t.log.ofType("message").slice(2).map((s) => [(s as Message).to, (s as Message).content, (s as Message).reply_to])).toEqual([
      ["ada", "answer 0", a.step_id],
      ["bob", "answer 1", b.step_id],
    ]);
    // Bob's call does not show Ada's messages, nor the answer to her.
    expect(t.model.calls()[1]![1]!.text).toBe(`Your inner life has no thoughts yet.\n\nThis is the first message from bob.\n\nNew message from bob (${b.step_id.slice(0, 8)}):\nhi from bob`);
  });
});
