// lib/mind/mind.ts end to end: recovery, then the responder (through the
// Dispatcher) and the inner life, wired as workers/host.ts wires them: a
// TrajectoryLog over the mind's writer (MindWriter, also its ContextPort) over
// its state (MemoryMindState, the store), steps others append handed over with
// `ingest` + `notify`, the FakeShell, scripted models, a FakeClock.
import { afterEach, describe, expect, it } from "vitest";
import { MindWriter, TrajectoryLog } from "../../../lib/mind/log/mind-log";
import { MemoryMindState } from "../../../lib/mind/state/memory-state";
import { Journal } from "../../../lib/mind/log/journal";
import { Mind } from "../../../lib/mind/mind";
import { DEFAULT_PACING } from "../../../lib/mind/pacing/pacing";
import type { ShellResult } from "../../../lib/mind/ports";
import { DEFAULT_RUN_LIMITS } from "../../../lib/mind/run/run";
import { INNER_LIFE } from "../../../lib/mind/thinkers/inner-life";
import { RESPONDER } from "../../../lib/mind/thinkers/responder";
import type { MindStatus } from "../../../lib/protocol";
import { formatTs, QuietHours, stampStep, type PacingConfig, type Step, type StepOf } from "../../../lib/trajectory/schema";
import { FakeClock, settle, until } from "../helpers/fake-clock";
import { FakeShell, finalResult } from "../helpers/fake-shell";
import { ROOT_TRAJ, sequentialIds } from "../helpers/memory-log";
import { scriptedModel, type Turn } from "../helpers/mock-model";
import { id, stepMaker } from "../helpers/steps";

const F = "```";
const SELF = "Reverie";
const T0 = Date.parse("2025-06-01T00:00:00.000Z");
const IDLE = "Nothing needs doing.\n\n" + F + "bash\nFINAL=idle\n" + F;
const INTERRUPTED = "This run was cut off (the tab closed or the mind stopped mid-thought).";

type Message = StepOf<"message">;
type Wake = StepOf<"wake">;
type Observation = StepOf<"observation">;

let running: Mind | null = null;

afterEach(async () => {
  if (running) await running.stop();
  running = null;
});

function setup(opts: { initial?: Step[]; pacing?: PacingConfig; innerTurns?: Turn[] | ((n: number) => Turn | Promise<Turn>); replies?: Turn[] | ((n: number) => Turn | Promise<Turn>); shell?: (code: string, call: number) => Promise<Partial<ShellResult> | undefined> | undefined } = {}) {
  const state = new MemoryMindState(ROOT_TRAJ);
  // The store as the tests read it (every step of the root, oldest first), and as the page writes to it.
  const store = {
    state,
    get steps() {
      return state.steps();
    },
    ofType: (type: string) => state.steps().filter((s) => s.type === type),
    append: (...steps: Step[]) => state.append({ steps: steps.map((step) => ({ trajId: ROOT_TRAJ, step })), seen: [] }),
  };
  // The steps stored before this start (a reload's): in the store before the mind first reads it.
  const seeded = store.append(...(opts.initial ?? []));
  const writer = new MindWriter(state);
  const log = new TrajectoryLog(writer, ROOT_TRAJ);
  const clock = new FakeClock(T0);
  const journal = new Journal(log, sequentialIds(), clock);
  const inner = scriptedModel(opts.innerTurns ?? [IDLE], "mock/inner");
  const responder = scriptedModel(opts.replies ?? ((n) => `Answer ${n + 1}.`), "mock/responder");
  const statuses: MindStatus[] = [];
  let messageIds = 0;
  const shell = new FakeShell(async (code, req, call) => {
    const taken = await opts.shell?.(code, call);
    if (taken) return taken;
    const final = /^FINAL=(\S*)$/m.exec(code);
    return final ? finalResult(req, final[1]!) : {};
  });
  const mind = new Mind({
    journal,
    model: inner.port,
    responderModel: responder.port,
    persona: "Calm.",
    shell,
    clock,
    selfName: SELF,
    instructions: "You are Reverie.",
    pacing: opts.pacing ?? DEFAULT_PACING,
    limits: DEFAULT_RUN_LIMITS,
    shellState: { env: {}, cwd: "/workspace" },
    emit: (e) => {
      if (e.type === "shell-state") void state.saveShellState(e.shell);
      if (e.type === "status") statuses.push(e.status);
    },
    contexts: writer,
  });
  const t = {
    store,
    log,
    clock,
    journal,
    inner,
    responder,
    shell,
    mind,
    statuses,
    async start() {
      running = mind;
      await seeded;
      return mind.start();
    },
    message(content: string, from = "ada"): Message {
      return { type: "message", step_id: id(++messageIds, "cccccccccccc"), ts: formatTs(clock.now()), from, to: SELF, content };
    },
    /** The page appends to the store; the watch hands the step to the mind (host.ts: ingest, then notify). */
    deliver(...ms: Step[]) {
      for (const m of ms) {
        if (journal.wrote(m.step_id)) continue;
        log.ingest(m);
        mind.notify(m);
      }
    },
    async post(content: string, from = "ada"): Promise<Message> {
      const m = t.message(content, from);
      await store.append(m);
      t.deliver(m);
      return m;
    },
    innerWakes: () => store.steps.filter((s): s is Wake => s.type === "wake" && s.source === INNER_LIFE),
    replies: () => store.steps.filter((s): s is Message => s.type === "message" && (s as Message).from === SELF),
    decisions: () => store.steps.filter((s): s is Observation => s.type === "observation" && (s as Observation).decision !== undefined),
  };
  return t;
}

describe("Mind: the responder does not wait for the inner life", () => {
  it("a message that arrives during a long inner-life run is answered before that run ends", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<Partial<ShellResult>>((r) => (release = () => r({ stdout: "compiled\n" })));
    const t = setup({
      innerTurns: ["A long job.\n\n" + F + "bash\nmake everything\n" + F, IDLE],
      shell: (code) => (code === "make everything" ? gate : undefined),
    });
    void t.start();
    await until(() => t.shell.calls.length === 1, "the long command started");
    const run = t.store.ofType("shellm-run")[0]!;
    const m = await t.post("Quick question: are you there?");
    await until(() => t.decisions().length === 1, "the responder decided");
    // The inner-life run is still in its command: no final yet.
    expect(t.shell.calls).toHaveLength(1);
    expect(t.store.steps.filter((s) => s.run_id === run.step_id).map((s) => s.type)).toEqual(["prompt", "reasoning"]);
    const mine = t.store.steps.filter((s) => s.source === RESPONDER || (s.type === "message" && (s as Message).from === SELF));
    expect(mine).toEqual([
      { type: "wake", step_id: expect.any(String), ts: formatTs(T0), reason: "message", level: 0, delay_s: 0, trigger_step: m.step_id, source: RESPONDER },
      { type: "message", step_id: expect.any(String), ts: formatTs(T0), from: SELF, to: "ada", content: "Answer 1.", reply_to: m.step_id, trigger_step: m.step_id, source: "chat" },
      { type: "observation", step_id: expect.any(String), ts: formatTs(T0), decision: "replied", content: "I answered ada.", trigger_step: m.step_id, source: RESPONDER, usage: { input_tokens: 10, output_tokens: 5, model: "mock/responder" } },
    ]);
    // The run in progress has no thought, observation, final or merge yet: the responder's call shows no inner life.
    expect(t.responder.calls()[0]![1]!.text).toBe(`Your inner life has no thoughts yet.\n\nThis is the first message from ada.\n\nNew message from ada (${m.step_id.slice(0, 8)}):\nQuick question: are you there?`);

    release();
    await until(() => t.clock.sleeping.length === 1, "the mind is asleep");
    const finalAt = t.store.steps.findIndex((s) => s.type === "final" && s.run_id === run.step_id);
    const replyAt = t.store.steps.findIndex((s) => s.type === "message" && (s as Message).reply_to === m.step_id);
    expect(replyAt).toBeGreaterThan(-1);
    expect(finalAt).toBeGreaterThan(replyAt);
    // The inner life was woken by the message after its run, and did not answer it again.
    expect(t.innerWakes().map((w) => [w.reason, w.trigger_step])).toEqual([
      ["start", undefined],
      ["message", m.step_id],
      ["scheduled", undefined],
      ["scheduled", undefined],
      ["scheduled", undefined],
    ]);
    expect(t.replies()).toHaveLength(1);
    expect(t.responder.mock.doStreamCalls).toHaveLength(1);
  });
});

describe("Mind: one thinker's work is not another's", () => {
  it("a reply the responder writes during an idle inner-life wake does not make that wake busy (the pacing goes on)", async () => {
    let replyNow: () => void = () => undefined;
    let idleDone: () => void = () => undefined;
    const t = setup({
      replies: () => new Promise<Turn>((r) => (replyNow = () => r("Yes."))),
      // Inner-life calls 0–3: start and three idle wakes (then a 5 s sleep); 4: the message wake; 5: the next, idle, wake.
      shell: (_code, call) => (call === 5 ? new Promise((r) => (idleDone = () => r(undefined))) : undefined),
    });
    void t.start();
    await until(() => t.clock.sleeping.length === 1, "asleep at level 1");
    const m = await t.post("Still up?");
    await until(() => t.shell.calls.length === 6, "the idle wake after the message wake is in its command");
    replyNow();
    await until(() => t.decisions().length === 1, "the responder replied");
    idleDone();
    await until(() => t.clock.sleeping.length === 1, "asleep again");
    // Message wake, then three empty wakes at level 0, then the 5 s pause: as if the responder were not there.
    expect(t.innerWakes().slice(4).map((w) => [w.reason, w.level, w.delay_s])).toEqual([
      ["message", 0, 0],
      ["scheduled", 0, 0],
      ["scheduled", 0, 0],
      ["scheduled", 0, 0],
    ]);
    expect(t.clock.sleeping).toEqual([5000]);
    expect(t.replies().map((r) => r.reply_to)).toEqual([m.step_id]);
  });
});

describe("Mind: a flood of messages", () => {
  it("20 messages at once, more than a queue holds: each still gets exactly one decision from the responder", async () => {
    const t = setup({ replies: () => "Noted." });
    void t.start();
    await until(() => t.clock.sleeping.length === 1, "asleep");
    const ms = Array.from({ length: 20 }, (_, i) => t.message(`message ${i + 1}`, i % 2 ? "ada" : "bob"));
    for (const m of ms) await t.store.append(m);
    t.deliver(...ms); // one batch from the watch
    await until(() => t.clock.sleeping.length === 1 && t.decisions().length >= 17, "the mind answered and fell asleep");
    await settle();
    const perMessage = Object.fromEntries(ms.map((m) => [m.step_id, t.decisions().filter((d) => d.trigger_step === m.step_id).length]));
    expect(perMessage).toEqual(Object.fromEntries(ms.map((m) => [m.step_id, 1])));
    // No message got two replies, and each reply has its "replied" decision.
    const replied = t.replies().map((r) => r.reply_to);
    expect(new Set(replied).size).toBe(replied.length);
    expect(t.decisions().filter((d) => d.decision === "replied").map((d) => d.trigger_step).sort()).toEqual([...replied].sort());
  });
});

describe("Mind: start-up", () => {
  it("closes the interrupted run, notes the absence, answers the waiting message once, and wakes the inner life for it", async () => {
    const mk = stepMaker({ tail: "bbbbbbbbbbbb", start: T0 - 2 * 3_600_000 - 5000 });
    const traj = mk("trajectory", { name: SELF });
    const run = mk("shellm-run", { model: "m", launched_by: INNER_LIFE });
    const prompt = mk("prompt", { run_id: run.step_id, content: "p" });
    const waiting = mk("message", { from: "ada", to: SELF, content: "Did you finish?" }) as Message;
    const reasoning = mk("reasoning", { run_id: run.step_id, thought: "", cmd: "sleep 1000" });
    const initial = [traj, run, prompt, waiting, reasoning];
    const t = setup({ initial });
    void t.start();
    await until(() => t.clock.sleeping.length === 1 && t.decisions().length === 1, "the mind is asleep and the message answered");
    expect(t.store.steps.slice(initial.length, initial.length + 2)).toEqual([
      { type: "error", step_id: id(1, "000000000000"), ts: formatTs(T0), reason: "interrupted", content: INTERRUPTED, run_id: run.step_id, source: "system" },
      { type: "observation", step_id: id(2, "000000000000"), ts: formatTs(T0), content: `I was away for 2 h; my last step was at ${reasoning.ts}.`, source: "system" },
    ]);
    expect(t.replies()).toEqual([
      { type: "message", step_id: expect.any(String), ts: formatTs(T0), from: SELF, to: "ada", content: "Answer 1.", reply_to: waiting.step_id, trigger_step: waiting.step_id, source: "chat" },
    ]);
    expect(t.decisions().map((d) => [d.decision, d.trigger_step])).toEqual([["replied", waiting.step_id]]);
    // The responder's call saw the absence note as its inner life.
    expect(t.responder.calls()[0]![1]!.text).toBe(
      `Your inner life lately:\n- observation: I was away for 2 h; my last step was at ${reasoning.ts}.\n\nThis is the first message from ada.\n\nNew message from ada (${waiting.step_id.slice(0, 8)}):\nDid you finish?`,
    );
    expect(t.innerWakes().map((w) => [w.reason, w.trigger_step])).toEqual([
      ["message", waiting.step_id],
      ["scheduled", undefined],
      ["scheduled", undefined],
      ["scheduled", undefined],
    ]);
    expect(t.store.ofType("error")).toHaveLength(1);

    // Stopped and started again (a reload): nothing to recover, nothing to answer.
    await t.mind.stop();
    running = null;
    const again = setup({ initial: t.store.steps });
    void again.start();
    await until(() => again.clock.sleeping.length === 1, "the second mind is asleep");
    const added = again.store.steps.slice(t.store.steps.length);
    const idleWake = ["wake", "shellm-run", "prompt", "reasoning", "shell-output", "final", "idle"];
    expect(added.map((s) => s.type)).toEqual([...idleWake, ...idleWake, ...idleWake, ...idleWake]);
    expect(again.innerWakes().slice(-4).map((w) => w.reason)).toEqual(["start", "scheduled", "scheduled", "scheduled"]);
    expect(again.responder.mock.doStreamCalls).toHaveLength(0);
  });

  it("when the trajectory cannot be read, it stops with the reason and runs nothing", async () => {
    const t = setup();
    t.store.state.tail = () => Promise.reject(new Error("database closed"));
    await t.start();
    expect(t.statuses).toEqual([{ state: "stopped", lastError: "Could not start (reading or writing the trajectory failed): database closed" }]);
    expect(t.inner.mock.doStreamCalls).toHaveLength(0);
  });
});

describe("Mind: quiet hours that hold messages, across a restart", () => {
  // T0 is midnight UTC: inside 22:00-07:00, seven hours before its end.
  const pacing: PacingConfig = { ...DEFAULT_PACING, quiet: QuietHours.parse({ tz: "UTC", ranges: ["22:00-07:00"], messages: "hold" }) };
  const END = T0 + 7 * 3_600_000;

  it("a message held at night, still unanswered when the mind starts again inside the quiet, waits for their end; then it is answered once and wakes the inner life", async () => {
    const mk = stepMaker({ tail: "bbbbbbbbbbbb", start: T0 });
    const first = setup({ initial: [mk("trajectory", { name: SELF })], pacing });
    void first.start();
    await until(() => first.clock.sleeping.length === 1, "the first mind is asleep");
    first.clock.advance(3_600_000);
    const m = await first.post("Are you up?");
    await settle();
    // Held: no reply, no decision, no wake for it (the inner life's one wake is its start).
    expect([first.replies(), first.decisions(), first.responder.mock.doStreamCalls]).toEqual([[], [], []]);
    expect(first.innerWakes().map((w) => w.reason)).toEqual(["start"]);
    // The tab closes at 01:00 and opens again at 02:00, still inside the quiet.
    await first.mind.stop();
    running = null;
    const again = setup({ initial: first.store.steps, pacing });
    again.clock.advance(2 * 3_600_000);
    void again.start();
    await until(() => again.innerWakes().length === 2 && again.clock.sleeping.length > 0, "the second mind is asleep");
    await settle();
    expect([again.replies(), again.decisions(), again.responder.mock.doStreamCalls]).toEqual([[], [], []]);
    // Asleep until 07:00: the inner life's wait and the held message's, both to the stretch's end.
    expect(again.clock.sleeping).toEqual([5 * 3_600_000, 5 * 3_600_000]);
    // Each mind's start, nothing more.
    expect(again.innerWakes().map((w) => [w.reason, w.trigger_step, w.ts])).toEqual([
      ["start", undefined, formatTs(T0)],
      ["start", undefined, formatTs(T0 + 2 * 3_600_000)],
    ]);

    again.clock.advance(END - again.clock.now());
    await until(() => again.decisions().length === 1 && again.clock.sleeping.length === 1, "the message is answered and the mind asleep again");
    expect(again.replies()).toEqual([
      { type: "message", step_id: expect.any(String), ts: formatTs(END), from: SELF, to: "ada", content: "Answer 1.", reply_to: m.step_id, trigger_step: m.step_id, source: "chat" },
    ]);
    expect(again.decisions().map((d) => [d.decision, d.trigger_step, d.ts])).toEqual([["replied", m.step_id, formatTs(END)]]);
    // The inner life's first wake of the morning is for the message.
    expect(again.innerWakes()[2]).toMatchObject({ reason: "message", trigger_step: m.step_id, ts: formatTs(END) });
    expect(again.responder.mock.doStreamCalls).toHaveLength(1);
  });
});

describe("Mind: an alert inside quiet hours", () => {
  const alertAt = (t: ReturnType<typeof setup>) =>
    stampStep({ type: "observation", source: "alert", content: "Alert (error) from an alert link: build 42 failed" }, { id: crypto.randomUUID(), now: t.clock.now() });

  for (const alarms of [true, false]) {
    it(`${alarms ? "rings through them (alarms allowed)" : "waits for their end (alarms false)"}: the inner life wakes ${alarms ? "at once" : "at 07:00"}`, async () => {
      const pacing: PacingConfig = { ...DEFAULT_PACING, quiet: QuietHours.parse({ tz: "UTC", ranges: ["22:00-07:00"], alarms }) };
      const mk = stepMaker({ tail: "dddddddddddd", start: T0 });
      const t = setup({ initial: [mk("trajectory", { name: SELF })], pacing });
      void t.start();
      await until(() => t.clock.sleeping.length === 1, "asleep");
      t.clock.advance(3_600_000);
      const alert = alertAt(t);
      await t.store.append(alert);
      t.deliver(alert);
      await settle();
      const woke = () => t.innerWakes().map((w) => w.ts);
      if (alarms) {
        await until(() => t.innerWakes().length === 2, "the alert's wake");
        expect(woke()).toEqual([formatTs(T0), formatTs(T0 + 3_600_000)]);
      } else {
        expect(woke()).toEqual([formatTs(T0)]);
        // Asleep until 07:00: the inner life's own wait and the held alert's.
        expect(t.clock.sleeping).toEqual([7 * 3_600_000, 6 * 3_600_000]);
        t.clock.advance(T0 + 7 * 3_600_000 - t.clock.now());
        await until(() => t.innerWakes().length >= 2, "the morning's wake");
        expect(woke().slice(0, 2)).toEqual([formatTs(T0), formatTs(T0 + 7 * 3_600_000)]);
      }
    });
  }
});

// ─── A simulated day ─────────────────────────────────────────────────────────

/** The pacing rules, written out independently of lib/mind/pacing/pacing.ts. */
const BASE_S = 5;
const CAP_S = 300;
const TICKS = 3;
const delayOf = (level: number) => (level === 0 ? 0 : Math.min(BASE_S * 2 ** (level - 1), CAP_S));

interface Burst {
  /** ms after T0 */
  at: number;
  messages: { from: string; content: string }[];
}

interface ExpectedWake {
  at: number;
  reason: string;
  level: number;
  delay_s: number;
}

/** Where the inner life should wake, for a mind whose every wake is idle, given the messages and when they come. */
function expectedWakes(bursts: readonly Burst[], endMs: number): ExpectedWake[] {
  const out: ExpectedWake[] = [{ at: 0, reason: "start", level: 0, delay_s: 0 }];
  let t = 0;
  let level = 0;
  let ticks = 0; // the start wake is reactive: rested
  let next = 0;
  for (;;) {
    const d = delayOf(level) * 1000;
    const burst = bursts[next];
    // Messages arrive only while the mind sleeps (a pause longer than 0); the wake comes at once.
    if (d > 0 && burst && burst.at <= t + d) {
      if (burst.at > endMs) break;
      out.push({ at: burst.at, reason: "message", level: 0, delay_s: (burst.at - t) / 1000 });
      t = burst.at;
      level = 0;
      ticks = 0;
      next++;
      continue;
    }
    if (t + d > endMs) break;
    t += d;
    out.push({ at: t, reason: "scheduled", level, delay_s: d / 1000 });
    ticks++;
    if (ticks >= TICKS) {
      if (delayOf(level) < CAP_S) level++;
      ticks = 0;
    }
  }
  return out;
}

const MIN = 60_000;
const HOUR = 60 * MIN;

describe("Mind: a simulated day", () => {
  it("idling all day, with bursts of messages and long silences: the wakes follow the pacing exactly, every message is answered once", async () => {
    const bursts: Burst[] = [
      { at: 1 * MIN, messages: [{ from: "ada", content: "Good morning!" }] },
      { at: 1 * MIN + 2000, messages: [{ from: "ada", content: "Are you there?" }] },
      { at: 1 * MIN + 3000, messages: [{ from: "bob", content: "Hi from bob." }] },
      { at: 2 * HOUR, messages: [{ from: "ada", content: "Three at once: one" }, { from: "bob", content: "two" }, { from: "ada", content: "three" }] },
      { at: 2 * HOUR + 4 * MIN, messages: [{ from: "carol", content: "Hello, I am new." }] },
      { at: 9 * HOUR + 17 * MIN + 13_500, messages: [{ from: "ada", content: "An odd moment." }] },
      { at: 9 * HOUR + 17 * MIN + 14_000, messages: [{ from: "ada", content: "Half a second later." }] },
      { at: 15 * HOUR, messages: [{ from: "bob", content: "Afternoon." }, { from: "bob", content: "Anyone?" }] },
      { at: 23 * HOUR + 59 * MIN, messages: [{ from: "ada", content: "Good night." }] },
    ];
    const END = 24 * HOUR;
    const t = setup();
    const posted: Message[] = [];
    void t.start();

    // Drive the day: wait until the mind sleeps and the responder is done; then
    // move the clock to the next message or the end of the pause, whichever comes first.
    let requested = 0;
    const quiet = async (what: string) => {
      await until(() => t.clock.requested.length > requested && t.clock.sleeping.length === 1 && t.decisions().length === posted.length, what);
      requested = t.clock.requested.length;
    };
    await quiet("the first sleep");
    let next = 0;
    for (;;) {
      // Times relative to T0, as in the bursts.
      const now = t.clock.now() - T0;
      const deadline = now + t.clock.sleeping[0]!;
      const burst = bursts[next];
      if (burst && burst.at <= deadline) {
        if (burst.at > END) break;
        expect(burst.at).toBeGreaterThanOrEqual(now);
        const ms = burst.messages.map((m) => ({ ...t.message(m.content, m.from), ts: formatTs(T0 + burst.at) }));
        for (const m of ms) await t.store.append(m); // the page writes while the mind sleeps
        t.clock.advance(burst.at - now);
        t.deliver(...ms); // the watch hands the batch over at once
        posted.push(...ms);
        next++;
        await quiet(`the mind answered the burst at ${burst.at} ms`);
        continue;
      }
      if (deadline > END) break;
      t.clock.advanceToNextWake();
      await quiet(`the wake at ${deadline - T0} ms`);
    }
    expect(next).toBe(bursts.length);

    const got = t.innerWakes().map((w) => ({ at: Date.parse(w.ts) - T0, reason: w.reason, level: w.level, delay_s: w.delay_s }));
    const want = expectedWakes(bursts, END);
    expect(got.length).toBe(want.length);
    expect(got).toEqual(want);
    // A sanity check on the expectation itself: it reaches the cap and spends most of the day there.
    expect(want.filter((w) => w.delay_s === CAP_S).length).toBeGreaterThan(200);

    // Every message answered exactly once: one reply and one decision per message id.
    const ids = posted.map((m) => m.step_id);
    expect(ids).toHaveLength(12);
    const count = (xs: (string | undefined)[]) => Object.fromEntries(ids.map((i) => [i, xs.filter((x) => x === i).length]));
    const once = Object.fromEntries(ids.map((i) => [i, 1]));
    expect(count(t.replies().map((r) => r.reply_to))).toEqual(once);
    expect(count(t.decisions().map((d) => d.trigger_step))).toEqual(once);
    expect(t.replies()).toHaveLength(12);
    expect(t.decisions().map((d) => d.decision)).toEqual(Array(12).fill("replied"));
    // In the order they came, each to the one who wrote, each triggered by its message.
    expect(t.replies().map((r) => [r.reply_to, r.to, r.trigger_step])).toEqual(posted.map((m) => [m.step_id, m.from, m.step_id]));
    // The inner life never answered: every reply has no run (it is the responder's).
    expect(t.replies().filter((r) => r.run_id !== undefined)).toEqual([]);
    expect(t.responder.mock.doStreamCalls).toHaveLength(12);
  }, 60_000);
});
