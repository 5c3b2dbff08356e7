// lib/mind/loop.ts MindLoop under a fake clock: pacing between wakes, waking
// on messages, model failures and retries, start-up, stop, and storage
// failures. The model is MockLanguageModelV4 through the real modelPort; the
// shell is a scripted fake that understands `FINAL=…` and `chat reply`.
import { afterEach, describe, expect, it } from "vitest";
import { Journal } from "../../lib/mind/journal";
import { MindLoop } from "../../lib/mind/loop";
import { DEFAULT_PACING } from "../../lib/mind/pacing";
import type { ShellRequest, ShellResult } from "../../lib/mind/ports";
import { DEFAULT_RUN_LIMITS } from "../../lib/mind/run";
import type { MindStatus } from "../../lib/protocol";
import { formatTs, type PacingConfig, type Step, type StepOf } from "../../lib/trajectory/schema";
import { FakeClock, settle, until } from "./helpers/fake-clock";
import { FakeShell, finalResult } from "./helpers/fake-shell";
import { MemoryStepLog, sequentialIds } from "./helpers/memory-log";
import { scriptedModel, type Turn } from "./helpers/mock-model";
import { id, stepMaker } from "./helpers/steps";

const F = "```";
const SELF = "Reverie";
const T0 = Date.parse("2025-01-01T12:00:00.000Z");
const IDLE = "Nothing needs doing.\n\n" + F + "bash\nFINAL=idle\n" + F;
const jid = (n: number) => id(n, "000000000000");

type Message = StepOf<"message">;
type Extra = (code: string, req: ShellRequest, call: number) => Partial<ShellResult> | undefined | Promise<Partial<ShellResult> | undefined>;

let running: { loop: MindLoop; done: Promise<void> } | null = null;

afterEach(async () => {
  // Never leave a loop spinning into the next test.
  if (running) await running.loop.stop();
  running = null;
});

function setup(opts: { initial?: Step[]; turns?: Turn[] | ((n: number) => Turn); shell?: Extra; pacing?: PacingConfig } = {}) {
  const log = new MemoryStepLog(opts.initial);
  const clock = new FakeClock(T0);
  const journal = new Journal(log, sequentialIds(), clock);
  const model = scriptedModel(opts.turns ?? [IDLE]);
  const statuses: { at: number; status: MindStatus }[] = [];
  let messageIds = 0;

  // A tiny stand-in for the sandbox: `chat reply <id> <text>` lines reply
  // through the run's scope (as lib/shell/commands/chat.ts does), and a
  // `FINAL=value` sets FINAL. `opts.shell` may take over any call.
  const shell = new FakeShell(async (code, req, call, scope) => {
    const taken = await opts.shell?.(code, req, call);
    if (taken) return taken;
    let stdout = "";
    for (const line of code.split("\n")) {
      const m = /^chat reply (\S+) (.+)$/.exec(line);
      if (!m) continue;
      const [target] = await scope.traj.find(m[1]!, 2);
      const sent = await scope.chat.send({ to: (target!.step as Message).from, content: m[2]!, replyTo: target!.step.step_id });
      stdout += `sent ${sent.step_id.slice(0, 8)}\n`;
    }
    const final = /FINAL=(\S*)/.exec(code);
    return final ? finalResult(req, final[1]!, { stdout }) : { stdout };
  });

  const loop = new MindLoop({
    journal,
    model: model.port,
    shell,
    clock,
    selfName: SELF,
    instructions: "You are Reverie.",
    pacing: opts.pacing ?? DEFAULT_PACING,
    limits: DEFAULT_RUN_LIMITS,
    shellState: { env: {}, cwd: "/workspace" },
    onStatus: (status) => statuses.push({ at: clock.now(), status }),
  });

  const t = {
    log,
    clock,
    journal,
    model,
    shell,
    loop,
    statuses,
    done: null as Promise<void> | null,
    start() {
      t.done = loop.start();
      running = { loop, done: t.done };
      return t.done;
    },
    wakes: () => log.ofType("wake") as StepOf<"wake">[],
    /** The waiting statuses as (delay in s, level, lastError). */
    waits: () =>
      statuses.flatMap(({ at, status }) =>
        status.state === "waiting" ? [{ delay: (status.nextWakeAt - at) / 1000, level: status.level, lastError: status.lastError }] : [],
      ),
    /** Someone (the page, another tab) appends a message and the dispatcher offers it to the loop. */
    async post(content: string, from = "you"): Promise<Message> {
      const step = { type: "message", step_id: id(++messageIds, "cccccccccccc"), ts: formatTs(clock.now()), from, to: SELF, content } as Message;
      await log.append(step);
      await loop.notify(step);
      return step;
    },
    /** Wait until the loop is asleep (its `n`-th sleep, counting from 1). */
    async asleep(n: number) {
      await until(() => clock.requested.length >= n && clock.sleeping.length === 1, `sleep #${n}`);
    },
    /** The prompt step of the run that a wake started. */
    promptOf(wake: Step): string {
      const header = log.steps.find((s) => s.type === "shellm-run" && (s as { wake?: string }).wake === wake.step_id);
      const prompt = log.steps.find((s) => s.type === "prompt" && s.run_id === header?.step_id) as StepOf<"prompt"> | undefined;
      return prompt?.content ?? "(no prompt)";
    },
  };
  return t;
}

const messagePrompt = (...ms: Message[]) =>
  `New message${ms.length > 1 ? "s" : ""}:\n\n${ms.map((m) => `[message ${m.step_id} from ${m.from} to ${m.to}]\n${m.content}`).join("\n\n")}\n\nDecide whether and how to answer (chat reply <id> <text>).`;

describe("MindLoop: pacing between idle wakes", () => {
  it("a mind that only ever idles wakes after 0,0,0,5,5,5,10,10,10,20… s", async () => {
    const t = setup();
    void t.start();
    await t.asleep(1);
    for (let i = 2; i <= 10; i++) {
      t.clock.advanceToNextWake();
      await t.asleep(i);
    }
    // The start wake is reactive (it rests the mind); then three idle wakes per level.
    expect(t.wakes().map((w) => ({ reason: w.reason, level: w.level, delay_s: w.delay_s, at: (Date.parse(w.ts) - T0) / 1000 }))).toEqual([
      { reason: "start", level: 0, delay_s: 0, at: 0 },
      { reason: "scheduled", level: 0, delay_s: 0, at: 0 },
      { reason: "scheduled", level: 0, delay_s: 0, at: 0 },
      { reason: "scheduled", level: 0, delay_s: 0, at: 0 },
      { reason: "scheduled", level: 1, delay_s: 5, at: 5 },
      { reason: "scheduled", level: 1, delay_s: 5, at: 10 },
      { reason: "scheduled", level: 1, delay_s: 5, at: 15 },
      { reason: "scheduled", level: 2, delay_s: 10, at: 25 },
      { reason: "scheduled", level: 2, delay_s: 10, at: 35 },
      { reason: "scheduled", level: 2, delay_s: 10, at: 45 },
      { reason: "scheduled", level: 3, delay_s: 20, at: 65 },
      { reason: "scheduled", level: 3, delay_s: 20, at: 85 },
      { reason: "scheduled", level: 3, delay_s: 20, at: 105 },
    ]);
    expect(t.waits().map((w) => w.delay)).toEqual([0, 0, 0, 5, 5, 5, 10, 10, 10, 20, 20, 20, 40]);
    expect(t.waits().map((w) => w.level)).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4]);
    expect(t.clock.requested).toEqual([5000, 5000, 5000, 10000, 10000, 10000, 20000, 20000, 20000, 40000]);
    expect(t.log.ofType("final")).toHaveLength(13);
    expect(t.promptOf(t.wakes()[4]!)).toBe(
      "A spontaneous wake (idle level 1); nothing new arrived. Choose your next thought: act, think, learn, recall, or rest.",
    );
    expect(t.model.mock.doStreamCalls).toHaveLength(13);
  });

  it("a wake that did work rests the mind: the next wake follows at once", async () => {
    // Every run writes a thought (a reply without a fence): work, so level 0 forever.
    let calls = 0;
    const t = setup({ turns: () => (++calls <= 6 ? `Thought number ${calls}.` : IDLE) });
    void t.start();
    await t.asleep(1);
    expect(t.log.ofType("thought")).toHaveLength(6);
    // Six working wakes at 0 s, then the idle climb starts from rest: three idle wakes before the first 5 s pause.
    expect(t.wakes().map((w) => w.delay_s)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(t.waits().map((w) => w.delay)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 5]);
  });
});

describe("MindLoop: messages", () => {
  it("a message during a long sleep wakes the mind at once and rests it", async () => {
    const t = setup({ pacing: { base_s: 600, cap_s: 3600, ticks_per_level: 1 } });
    void t.start();
    await t.asleep(1);
    expect(t.clock.sleeping).toEqual([600_000]);
    const at = t.clock.now();
    const m = await t.post("Are you awake?");
    await t.asleep(2);
    expect(t.clock.now()).toBe(at); // no time had to pass
    const wakes = t.wakes();
    expect(wakes.map((w) => [w.reason, w.level, w.delay_s])).toEqual([
      ["start", 0, 0],
      ["scheduled", 0, 0],
      ["message", 1, 0],
      ["scheduled", 0, 0],
    ]);
    expect(wakes[2]).toMatchObject({ trigger_step: m.step_id, ts: formatTs(at), source: "monolith" });
    expect(t.promptOf(wakes[2]!)).toBe(messagePrompt(m));
    const header = t.log.steps.find((s) => s.type === "shellm-run" && (s as { wake?: string }).wake === wakes[2]!.step_id);
    expect(header).toMatchObject({ trigger_step: m.step_id });
    // After the message wake the level is back to 0.
    expect(t.waits().map((w) => [w.delay, w.level])).toEqual([
      [0, 0],
      [600, 1],
      [0, 0],
      [600, 1],
    ]);
  });

  it("a message mid-run: a feedback step in that run, then a message wake since the run did not reply", async () => {
    let message: Message | undefined;
    const t = setup({
      turns: [F + "bash\nwork\n" + F, IDLE],
      shell: async (code) => {
        if (code !== "work") return undefined;
        message = await t.post("hello?");
        return { stdout: "working\n" };
      },
    });
    void t.start();
    await t.asleep(1);
    const m = message!;
    const firstRun = t.log.ofType("shellm-run")[0]!;
    const feedback = t.log.ofType("feedback");
    expect(feedback).toEqual([
      {
        type: "feedback",
        step_id: expect.any(String),
        ts: formatTs(T0),
        run_id: firstRun.step_id,
        trigger_step: t.wakes()[0]!.step_id,
        content: `A message arrived while you were busy:\n[message ${m.step_id} from you to ${SELF}]\nhello?`,
      },
    ]);
    // The run's next model call saw the message and the feedback (both appended while the command ran).
    expect(t.model.calls()[1]!.at(-1)).toEqual({
      role: "user",
      text: `[message ${m.step_id} from you to ${SELF}]\nhello?\n\n[feedback] A message arrived while you were busy:\n[message ${m.step_id} from you to ${SELF}]\nhello?\n\n[output exit=0]\nworking\n`,
    });
    const wakes = t.wakes();
    expect(wakes.map((w) => w.reason)).toEqual(["start", "message", "scheduled", "scheduled", "scheduled"]);
    expect(wakes[1]).toMatchObject({ trigger_step: m.step_id, delay_s: 0 });
    expect(t.promptOf(wakes[1]!)).toBe(messagePrompt(m));
  });

  it("a run that replies to a message that arrived mid-run is not woken again for it", async () => {
    let message: Message | undefined;
    const t = setup({
      turns: (n) => (n === 0 ? F + "bash\nwork\n" + F : n === 1 ? "I answer.\n" + F + `bash\nchat reply ${message!.step_id} Yes, here.\nFINAL=replied\n` + F : IDLE),
      shell: async (code) => {
        if (code !== "work") return undefined;
        message = await t.post("hello?");
        return { stdout: "working\n" };
      },
    });
    void t.start();
    await t.asleep(1);
    const replies = t.log.ofType("message").filter((s) => (s as Message).from === SELF);
    expect(replies).toEqual([
      {
        type: "message",
        step_id: expect.any(String),
        ts: formatTs(T0),
        run_id: t.log.ofType("shellm-run")[0]!.step_id,
        trigger_step: t.wakes()[0]!.step_id,
        from: SELF,
        to: "you",
        content: "Yes, here.",
        reply_to: message!.step_id,
        source: "chat",
      },
    ]);
    // No message wake: the next wakes are spontaneous, and the reply was work, so they start from rest.
    expect(t.wakes().map((w) => w.reason)).toEqual(["start", "scheduled", "scheduled", "scheduled"]);
  });

  it("a message wake whose run replies is followed by spontaneous wakes only", async () => {
    const t = setup({
      turns: (n) => {
        const call = t.model.mock.doStreamCalls[n]!;
        const last = JSON.stringify(call.prompt.at(-1));
        const m = /\[message ([0-9a-f-]{36}) from you/.exec(last);
        return m ? F + `bash\nchat reply ${m[1]} Hi!\nFINAL=replied\n` + F : IDLE;
      },
    });
    void t.start();
    await t.asleep(1);
    const m = await t.post("hi");
    await t.asleep(2);
    expect(t.wakes().map((w) => w.reason)).toEqual(["start", "scheduled", "scheduled", "scheduled", "message", "scheduled", "scheduled", "scheduled"]);
    expect(t.log.ofType("message").filter((s) => (s as Message).reply_to === m.step_id)).toHaveLength(1);
  });

  it("ignores the mind's own messages and steps that are not messages", async () => {
    const t = setup({ pacing: { base_s: 600, cap_s: 3600, ticks_per_level: 1 } });
    void t.start();
    await t.asleep(1);
    const mk = stepMaker({ tail: "dddddddddddd" });
    await t.loop.notify(mk("message", { from: SELF, to: "you", content: "hello from me" }));
    await t.loop.notify(mk("observation", { content: "something" }));
    await settle();
    expect(t.clock.sleeping).toEqual([600_000]);
    expect(t.wakes()).toHaveLength(2);
  });
});

describe("MindLoop: model failures", () => {
  it("model errors: error steps, statuses with lastError, retries after 5, 10, 20 s; recovery clears the error", async () => {
    const t = setup({ turns: [{ throws: new Error("model down") }, { throws: new Error("model down") }, { throws: new Error("model down") }, IDLE] });
    void t.start();
    await t.asleep(1);
    t.clock.advanceToNextWake();
    await t.asleep(2);
    t.clock.advanceToNextWake();
    await t.asleep(3);
    t.clock.advanceToNextWake();
    await t.asleep(4);
    expect(t.log.ofType("error").map((e) => [(e as StepOf<"error">).reason, (e as StepOf<"error">).content])).toEqual([
      ["model", "model down"],
      ["model", "model down"],
      ["model", "model down"],
    ]);
    expect(t.wakes().slice(0, 4).map((w) => [w.reason, w.level, w.delay_s])).toEqual([
      ["start", 0, 0],
      ["retry", 0, 5],
      ["retry", 0, 10],
      ["retry", 0, 20],
    ]);
    expect(t.promptOf(t.wakes()[2]!)).toBe("Trying again after 2 failed attempt(s) to reach your model. Carry on where you were.");
    // Recovery clears the error and the failure backoff. The failed wakes did
    // not count as idle ticks, so the successful retry is the first tick at
    // level 0: two more idle wakes follow at once, and the third lifts the
    // level to 1 (a 5 s pause).
    expect(t.waits()).toEqual([
      { delay: 5, level: 0, lastError: "model down" },
      { delay: 10, level: 0, lastError: "model down" },
      { delay: 20, level: 0, lastError: "model down" },
      { delay: 0, level: 0, lastError: undefined },
      { delay: 0, level: 0, lastError: undefined },
      { delay: 5, level: 1, lastError: undefined },
    ]);
    expect(t.wakes().slice(4).map((w) => [w.reason, w.level, w.delay_s])).toEqual([
      ["scheduled", 0, 0],
      ["scheduled", 0, 0],
    ]);
    expect(t.clock.requested).toEqual([5000, 10000, 20000, 5000]);
    expect(t.statuses.filter((s) => s.status.state === "thinking" && s.status.runId).map((s) => s.status)).toHaveLength(6);
  });

  it("a failed wake leaves the pacing level (and its ticks) unchanged", async () => {
    // Start + three idle wakes reach level 1; the next two wakes fail; then it idles.
    const t = setup({
      turns: (n) => (n === 4 || n === 5 ? { throws: new Error("model down") } : IDLE),
    });
    void t.start();
    for (let i = 1; i <= 6; i++) {
      await t.asleep(i);
      if (i < 6) t.clock.advanceToNextWake();
    }
    expect(t.wakes().map((w) => [w.reason, w.level, w.delay_s])).toEqual([
      ["start", 0, 0],
      ["scheduled", 0, 0],
      ["scheduled", 0, 0],
      ["scheduled", 0, 0],
      ["scheduled", 1, 5], // fails
      ["retry", 1, 5], // fails
      ["retry", 1, 10], // succeeds: the first idle tick at level 1
      ["scheduled", 1, 5],
      ["scheduled", 1, 5], // the third idle tick at level 1 lifts it to 2
    ]);
    expect(t.waits()).toEqual([
      { delay: 0, level: 0, lastError: undefined },
      { delay: 0, level: 0, lastError: undefined },
      { delay: 0, level: 0, lastError: undefined },
      { delay: 5, level: 1, lastError: undefined },
      { delay: 5, level: 1, lastError: "model down" },
      { delay: 10, level: 1, lastError: "model down" },
      { delay: 5, level: 1, lastError: undefined },
      { delay: 5, level: 1, lastError: undefined },
      { delay: 10, level: 2, lastError: undefined },
    ]);
    expect(t.clock.requested).toEqual([5000, 5000, 10000, 5000, 5000, 10000]);
  });

  it("a message wake whose model call fails is retried as a message wake after 5 s, still showing the message", async () => {
    let failed = 0;
    const t = setup({
      turns: (n) => {
        const last = JSON.stringify(t.model.mock.doStreamCalls[n]!.prompt.at(-1));
        const m = /\[message ([0-9a-f-]{36}) from you/.exec(last);
        if (!m) return IDLE;
        if (failed++ === 0) return { throws: new Error("model down") };
        return F + `bash\nchat reply ${m[1]} Hi!\nFINAL=replied\n` + F;
      },
    });
    void t.start();
    await t.asleep(1); // level 1, 5 s
    const at = t.clock.now();
    const m = await t.post("hi");
    await t.asleep(2);
    // The failed message wake: the level stays 1, the backoff is 5 s.
    expect(t.clock.now()).toBe(at);
    expect(t.clock.sleeping).toEqual([5000]);
    expect(t.waits().at(-1)).toEqual({ delay: 5, level: 1, lastError: "model down" });
    expect(t.wakes().filter((w) => w.reason === "message")).toHaveLength(1);
    t.clock.advanceToNextWake();
    await t.asleep(3);
    const wakes = t.wakes();
    expect(wakes.map((w) => w.reason)).toEqual(["start", "scheduled", "scheduled", "scheduled", "message", "message", "scheduled", "scheduled", "scheduled"]);
    expect(wakes[4]).toMatchObject({ trigger_step: m.step_id, level: 1, ts: formatTs(at) });
    expect(wakes[5]).toMatchObject({ trigger_step: m.step_id, level: 1, ts: formatTs(at + 5000) });
    expect(t.promptOf(wakes[4]!)).toBe(messagePrompt(m));
    expect(t.promptOf(wakes[5]!)).toBe(messagePrompt(m));
    expect(t.log.ofType("message").filter((s) => (s as Message).reply_to === m.step_id)).toHaveLength(1);
    // The reply succeeded: the error is cleared and the mind is rested.
    expect(t.waits().slice(-4)).toEqual([
      { delay: 0, level: 0, lastError: undefined },
      { delay: 0, level: 0, lastError: undefined },
      { delay: 0, level: 0, lastError: undefined },
      { delay: 5, level: 1, lastError: undefined },
    ]);
  });

  it("a new message during a retry backoff wakes the loop at once", async () => {
    const t = setup({ turns: [{ throws: new Error("model down") }, IDLE], pacing: { base_s: 600, cap_s: 3600, ticks_per_level: 1 } });
    void t.start();
    await t.asleep(1);
    expect(t.clock.sleeping).toEqual([600_000]);
    expect(t.waits()).toEqual([{ delay: 600, level: 0, lastError: "model down" }]);
    const m = await t.post("still there?");
    await t.asleep(2);
    expect(t.clock.now()).toBe(T0); // no time had to pass
    const wakes = t.wakes();
    expect(wakes.map((w) => [w.reason, w.level, w.delay_s])).toEqual([
      ["start", 0, 0],
      ["message", 0, 0],
      ["scheduled", 0, 0],
    ]);
    expect(wakes[1]).toMatchObject({ trigger_step: m.step_id, ts: formatTs(T0) });
    expect(t.promptOf(wakes[1]!)).toBe(messagePrompt(m));
    // The message wake succeeded: the failures are forgotten and the idle pacing takes over.
    expect(t.waits()).toEqual([
      { delay: 600, level: 0, lastError: "model down" },
      { delay: 0, level: 0, lastError: undefined },
      { delay: 600, level: 1, lastError: undefined },
    ]);
  });

  it("a message that arrives during a failing run waits out the backoff, then wakes the mind", async () => {
    let message: Message | undefined;
    const t = setup({
      turns: [F + "bash\nwork\n" + F, { throws: new Error("model down") }, IDLE],
      shell: async (code) => {
        if (code !== "work") return undefined;
        message = await t.post("hello?");
        return { stdout: "working\n" };
      },
    });
    void t.start();
    await t.asleep(1);
    // The run saw the message (as feedback) but failed without replying: the backoff still applies.
    expect(t.log.ofType("feedback")).toHaveLength(1);
    expect(t.clock.sleeping).toEqual([5000]);
    expect(t.waits()).toEqual([{ delay: 5, level: 0, lastError: "model down" }]);
    expect(t.wakes().map((w) => w.reason)).toEqual(["start"]);
    t.clock.advanceToNextWake();
    await t.asleep(2);
    const wakes = t.wakes();
    expect(wakes.map((w) => w.reason)).toEqual(["start", "message", "scheduled", "scheduled", "scheduled"]);
    expect(wakes[1]).toMatchObject({ trigger_step: message!.step_id, ts: formatTs(T0 + 5000) });
    expect(t.promptOf(wakes[1]!)).toBe(messagePrompt(message!));
  });
});

describe("MindLoop: start-up", () => {
  it("closes a run cut off by a closed tab, notes a long absence, then wakes with reason start", async () => {
    const mk = stepMaker({ tail: "bbbbbbbbbbbb", start: T0 - 10 * 60_000 - 4000 });
    const traj = mk("trajectory", { name: SELF });
    const run = mk("shellm-run", { model: "m", launched_by: "monolith" });
    const prompt = mk("prompt", { run_id: run.step_id, content: "p" });
    const reasoning = mk("reasoning", { run_id: run.step_id, thought: "", cmd: "sleep 1000" }); // at T0 − 10 min
    const t = setup({ initial: [traj, run, prompt, reasoning] });
    void t.start();
    await t.asleep(1);
    expect(t.log.steps.slice(4, 7)).toEqual([
      {
        type: "error",
        step_id: jid(1),
        ts: formatTs(T0),
        reason: "interrupted",
        content: "This run was cut off (the tab closed or the mind stopped mid-thought).",
        run_id: run.step_id,
        source: "system",
      },
      {
        type: "observation",
        step_id: jid(2),
        ts: formatTs(T0),
        content: `I was away for 10 min; my last step was at ${reasoning.ts}.`,
        source: "system",
      },
      { type: "wake", step_id: jid(3), ts: formatTs(T0), reason: "start", level: 0, delay_s: 0, source: "monolith" },
    ]);
    expect(t.promptOf(t.wakes()[0]!)).toBe("You are starting up. Look around (your workspace, your recent trajectory) and choose your first thought.");
  });

  it("a finished run is not marked interrupted, and 299 s away is not an absence", async () => {
    const mk = stepMaker({ tail: "bbbbbbbbbbbb", start: T0 - 299_000 - 2000 });
    const run = mk("shellm-run", {});
    const fin = mk("final", { run_id: run.step_id, content: "ok" });
    const t = setup({ initial: [run, fin] });
    void t.start();
    await t.asleep(1);
    expect(t.log.steps[2]).toMatchObject({ type: "wake", reason: "start" });
    expect(t.log.ofType("observation")).toEqual([]);
    expect(t.log.ofType("error")).toEqual([]);
  });

  it("exactly 300 s away is noted", async () => {
    const mk = stepMaker({ tail: "bbbbbbbbbbbb", start: T0 - 300_000 - 1000 });
    const t = setup({ initial: [mk("thought", { content: "hm" })] });
    void t.start();
    await t.asleep(1);
    expect(t.log.ofType("observation").map((o) => (o as StepOf<"observation">).content)).toEqual([
      `I was away for 5 min; my last step was at ${formatTs(T0 - 300_000)}.`,
    ]);
  });

  it("takes the messages left unanswered since the last run as its first wake", async () => {
    const mk = stepMaker({ tail: "bbbbbbbbbbbb", start: T0 - 60_000 });
    const before = mk("message", { from: "you", to: SELF, content: "old news" });
    const run = mk("shellm-run", {});
    const fin = mk("final", { run_id: run.step_id, content: "ok" });
    const m1 = mk("message", { from: "you", to: SELF, content: "first" }) as Message;
    const m2 = mk("message", { from: "you", to: SELF, content: "second" });
    const reply = mk("message", { from: SELF, to: "you", content: "got it", reply_to: m2.step_id });
    const own = mk("message", { from: SELF, to: "alice", content: "hi alice" });
    const m3 = mk("message", { from: "alice", to: SELF, content: "third" }) as Message;
    const t = setup({ initial: [before, run, fin, m1, m2, reply, own, m3] });
    void t.start();
    await t.asleep(1);
    const first = t.wakes()[0]!;
    expect(first).toMatchObject({ reason: "message", trigger_step: m3.step_id, delay_s: 0, level: 0 });
    expect(t.promptOf(first)).toBe(messagePrompt(m1, m3));
    // Not taken again: the run did not reply, but the messages were offered once.
    expect(t.wakes().filter((w) => w.reason === "message")).toHaveLength(1);
  });
});

describe("MindLoop: stop", () => {
  it("stop() during a run cuts the command, writes error reason stopped, and ends with status stopped", async () => {
    const t = setup({
      turns: ["Long job.\n" + F + "bash\nsleep 3600\n" + F],
      shell: (_code, req) =>
        new Promise<Partial<ShellResult>>((resolve) =>
          req.signal.addEventListener("abort", () => resolve({ exit: 143, stderr: "Terminated\n" }), { once: true }),
        ),
    });
    const done = t.start();
    await until(() => t.shell.calls.length === 1, "the command started");
    await t.loop.stop();
    await done;
    expect(t.log.steps.map((s) => s.type)).toEqual(["wake", "shellm-run", "prompt", "reasoning", "shell-output", "error"]);
    expect(t.log.steps.at(-1)).toMatchObject({ type: "error", reason: "stopped", run_id: t.log.steps[1]!.step_id });
    expect(t.log.steps[4]).toMatchObject({ exit: 143, stderr: "Terminated\n" });
    expect(t.statuses.at(-1)!.status).toEqual({ state: "stopped" });
    expect(t.statuses.some((s) => s.status.state === "waiting")).toBe(false);
  });

  it("stop() while asleep ends the loop at once, writing nothing", async () => {
    const t = setup();
    const done = t.start();
    await t.asleep(1);
    const count = t.log.steps.length;
    await t.loop.stop();
    await done;
    expect(t.log.steps).toHaveLength(count);
    expect(t.clock.sleeping).toEqual([]);
    expect(t.statuses.at(-1)!.status).toEqual({ state: "stopped" });
  });
});

describe("MindLoop: storage failures", () => {
  it("when appends reject, it reports lastError, backs off, and recovers when storage does", async () => {
    const t = setup();
    t.log.failAppends = new Error("QuotaExceededError: the disk is full");
    const done = t.start();
    await t.asleep(1);
    t.clock.advanceToNextWake();
    await t.asleep(2);
    expect(t.log.steps).toEqual([]);
    t.log.failAppends = null;
    t.clock.advanceToNextWake();
    await t.asleep(3);
    // One status per failed wake, carrying the storage error; the failures
    // leave the pacing alone, so the recovered retry is the first idle tick.
    expect(t.waits()).toEqual([
      { delay: 5, level: 0, lastError: "Storage failed: QuotaExceededError: the disk is full" },
      { delay: 10, level: 0, lastError: "Storage failed: QuotaExceededError: the disk is full" },
      { delay: 0, level: 0, lastError: undefined },
      { delay: 0, level: 0, lastError: undefined },
      { delay: 5, level: 1, lastError: undefined },
    ]);
    expect(t.clock.requested).toEqual([5000, 10000, 5000]);
    expect(t.wakes()[0]).toMatchObject({ reason: "retry", delay_s: 10, ts: formatTs(T0 + 15_000) });
    await t.loop.stop();
    await expect(done).resolves.toBeUndefined();
  });

  it("storage failing in the middle of a run: the run is dropped, the loop goes on", async () => {
    const t = setup({
      turns: [F + "bash\nwrite\n" + F, IDLE],
      shell: (code) => {
        if (code !== "write") return undefined;
        t.log.failAppends = new Error("disk full");
        return { stdout: "wrote\n" };
      },
    });
    void t.start();
    await t.asleep(1);
    expect(t.waits()).toEqual([{ delay: 5, level: 0, lastError: "Storage failed: disk full" }]);
    t.log.failAppends = null;
    t.clock.advanceToNextWake();
    await t.asleep(2);
    expect(t.log.ofType("shellm-run")).toHaveLength(1 + 3); // the cut run, the retry, two idle wakes
    expect(t.wakes()[1]).toMatchObject({ reason: "retry", delay_s: 5 });
    expect(t.waits().at(-1)).toEqual({ delay: 5, level: 1, lastError: undefined });
  });

  it("a message arriving mid-run while storage is full does not make notify reject", async () => {
    let notified: Promise<void> | undefined;
    const t = setup({
      turns: [F + "bash\nwork\n" + F, IDLE],
      shell: async (code) => {
        if (code !== "work") return undefined;
        const step = { type: "message", step_id: id(77, "cccccccccccc"), ts: formatTs(t.clock.now()), from: "you", to: SELF, content: "hi" } as Message;
        await t.log.append(step);
        t.log.failAppends = new Error("disk full");
        notified = t.loop.notify(step);
        await notified.catch(() => undefined);
        t.log.failAppends = null;
        return { stdout: "done\n" };
      },
    });
    void t.start();
    await until(() => notified !== undefined, "notify called");
    await expect(notified).resolves.toBeUndefined();
    await t.asleep(1);
    // The message was not lost: it woke the mind after the run.
    expect(t.wakes().map((w) => w.reason).slice(0, 2)).toEqual(["start", "message"]);
  });
});
