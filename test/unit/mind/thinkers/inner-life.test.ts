// lib/mind/thinkers/inner-life.ts InnerLife under a fake clock: pacing between
// wakes, one function per wake (FINAL="<function>: …"), the cross-wake
// loop-breaker, waking on messages (it never answers them: the responder
// does), model failures and Retry-After, stop, and storage failures. The
// model is MockLanguageModelV4 through the real modelPort; the shell is a
// scripted fake that understands `FINAL=…` and `chat send`.
import { APICallError } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { wakes } from "../../../../lib/mind/dispatch";
import { Journal } from "../../../../lib/mind/log/journal";
import { DEFAULT_PACING } from "../../../../lib/mind/pacing/pacing";
import type { ShellRequest, ShellResult, ShellState } from "../../../../lib/mind/ports";
import { DEFAULT_RUN_LIMITS } from "../../../../lib/mind/run/run";
import { functionStep, INNER_LIFE, InnerLife, REPEAT_WAKES, type InnerLifeDeps } from "../../../../lib/mind/thinkers/inner-life";
import type { MindStatus } from "../../../../lib/protocol";
import { formatTs, stampStep, type PacingConfig, type Step, type StepOf } from "../../../../lib/trajectory/schema";
import { FakeClock, settle, until } from "../../helpers/fake-clock";
import { FakeShell, finalResult } from "../../helpers/fake-shell";
import { MemoryStepLog, sequentialIds } from "../../helpers/memory-log";
import { scriptedModel, type Turn } from "../../helpers/mock-model";
import { id, stepMaker } from "../../helpers/steps";
import type { Emit } from "@/lib/mind/events";

const F = "```";
const SELF = "Reverie";
const T0 = Date.parse("2025-01-01T12:00:00.000Z");
const jid = (n: number) => id(n, "000000000000");
/** A reply that ends the run with FINAL set to `value`. */
const finalReply = (value: string) => `Done for now.\n\n${F}bash\nFINAL="${value}"\n${F}`;
const IDLE = "Nothing needs doing.\n\n" + F + "bash\nFINAL=idle\n" + F;
const REFUSAL = "replies to messages are the responder's: it answers each message once. Use chat send --to <name> to start a conversation of your own.";

// The task texts, written out here (not taken from lib/mind/run/prompt.ts).
const FUNCTIONS = `Choose ONE function for this wake and end with FINAL="<function>: <one line>":
- think: one new thought that moves you forward (or reply with the thought and no code)
- act: real work in your shell
- learn: store a lesson (mem add)
- recall: bring back a memory (mem search) and use it
- goals: tend your goals (focus)
- idle: nothing needs doing; say so honestly (FINAL="idle")`;
const START_PROMPT = `You are starting up. Look around (your workspace, your recent trajectory, your goals) and choose your first thought.\n\n${FUNCTIONS}`;
// Short: an idle wake's first look glosses the functions in its instructions (lib/mind/thinkers/first-look.ts).
const scheduledPrompt = (level: number) =>
  `A spontaneous wake (idle level ${level}); nothing new arrived. Choose ONE function (think, act, learn, recall, goals, idle) and end with FINAL="<function>: <one line>"; nothing to do: FINAL="idle".`;
const retryPrompt = (failures: number) => `Trying again after ${failures} failed attempt(s) to reach your model. Carry on where you were.\n\n${FUNCTIONS}`;
const messagePrompt = (...ms: Message[]) =>
  `New message${ms.length > 1 ? "s" : ""} (above): ${ms.map((m) => `${m.step_id.slice(0, 8)} from ${m.from}`).join(", ")}.\n\nYour responder answers people, once per message; you do not reply here. Let what they said feed your inner life (you may write to someone first with chat send when you have a reason).\n\n${FUNCTIONS}`;

type Message = StepOf<"message">;
type Wake = StepOf<"wake">;
type Extra = (code: string, req: ShellRequest, call: number) => Partial<ShellResult> | undefined | Promise<Partial<ShellResult> | undefined>;

let running: InnerLife | null = null;

afterEach(async () => {
  // Never leave a loop spinning into the next test.
  if (running) await running.stop();
  running = null;
});

function setup(
  opts: { initial?: Step[]; turns?: Turn[] | ((n: number) => Turn); shell?: Extra; pacing?: PacingConfig; where?: InnerLifeDeps["where"] } & Pick<InnerLifeDeps, "pacingState" | "keepsWaits"> & { onEvent?: Emit } = {},
) {
  const log = new MemoryStepLog(opts.initial);
  const clock = new FakeClock(T0);
  const journal = new Journal(log, sequentialIds(), clock);
  const model = scriptedModel(opts.turns ?? [IDLE]);
  const statuses: { at: number; status: MindStatus }[] = [];
  /** Every shell state the inner life handed its home to keep (onShellState). */
  const shellSaves: ShellState[] = [];
  let messageIds = 0;

  // A tiny stand-in for the sandbox: `chat send --to <name> <text>` lines go
  // through the run's chat port (as lib/shell/commands/chat.ts does), and
  // `FINAL=value` or `FINAL="value"` sets FINAL. `opts.shell` may take over any call.
  const shell = new FakeShell(async (code, req, call, scope) => {
    const taken = await opts.shell?.(code, req, call);
    if (taken) return taken;
    let stdout = "";
    for (const line of code.split("\n")) {
      const m = /^chat send --to (\S+) (.+)$/.exec(line);
      if (!m) continue;
      const sent = await scope.chat.send({ to: m[1]!, content: m[2]! });
      stdout += `sent ${sent.step_id.slice(0, 8)} to ${m[1]}\n`;
    }
    const final = /^FINAL=(?:"([^"]*)"|(\S*))$/m.exec(code);
    return final ? finalResult(req, final[1] ?? final[2] ?? "", { stdout }) : { stdout };
  });

  const life = new InnerLife({
    journal,
    model: model.port,
    shell,
    clock,
    selfName: SELF,
    instructions: "You are Reverie.",
    pacing: opts.pacing ?? DEFAULT_PACING,
    limits: DEFAULT_RUN_LIMITS,
    shellState: { env: {}, cwd: "/workspace" },
    emit: (e) => {
      if (e.type === "shell-state") shellSaves.push(structuredClone(e.shell));
      if (e.type === "status") statuses.push({ at: clock.now(), status: e.status });
      opts.onEvent?.(e);
    },
    ...(opts.where ? { where: opts.where } : {}),
    pacingState: opts.pacingState,
    ...(opts.keepsWaits ? { keepsWaits: true } : {}),
  });

  const t = {
    log,
    clock,
    journal,
    model,
    shell,
    life,
    statuses,
    shellSaves,
    start(first?: Parameters<InnerLife["start"]>[0]) {
      running = life;
      return life.start(first);
    },
    wakes: () => log.ofType("wake") as Wake[],
    /** The wakes as [reason, level, delay_s]. */
    wakeRows: () => t.wakes().map((w) => [w.reason, w.level, w.delay_s]),
    /** The waiting statuses as (delay in s, level, lastError). */
    waits: () =>
      statuses.flatMap(({ at, status }) =>
        status.state === "waiting" ? [{ delay: (status.nextWakeAt - at) / 1000, level: status.level, lastError: status.lastError }] : [],
      ),
    message(content: string, from = "you"): Message {
      return { type: "message", step_id: id(++messageIds, "cccccccccccc"), ts: formatTs(clock.now()), from, to: SELF, content };
    },
    /** Someone (the page, another tab) appends a step; it is offered to the inner life if its subscription wakes it (as Mind.notify does). */
    async post(step: Step | string): Promise<Message> {
      const s = typeof step === "string" ? t.message(step) : step;
      await log.append(s);
      if (wakes(life.subscription, s)) life.offer(s);
      return s as Message;
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
    /** The steps the inner life wrote outside its runs (function records, loop-breaker notes, queue notes). */
    outsideRuns: () => log.steps.filter((s) => !s.run_id && s.type !== "wake" && s.type !== "shellm-run"),
  };
  return t;
}

describe("functionStep: what a wake's FINAL says it did", () => {
  it("maps think, act, learn, recall, goals and idle; anything else is left alone", () => {
    const src = { source: INNER_LIFE };
    expect(
      [
        "think: the notes need a structure",
        "Act: tidied notes/ into three files",
        "learn — ada likes tea",
        "recall - what ada said about tea",
        "GOALS: moved 'tea shop' to done",
        "idle: nothing new",
        "idle",
        "  Idle  ",
        "think",
        "act-now",
      ].map(functionStep),
    ).toEqual([
      { type: "thought", content: "the notes need a structure", ...src },
      { type: "observation", content: "act: tidied notes/ into three files", ...src },
      { type: "observation", content: "learn: ada likes tea", ...src },
      { type: "observation", content: "recall: what ada said about tea", ...src },
      { type: "observation", content: "goals: moved 'tea shop' to done", ...src },
      { type: "idle", content: "nothing new", ...src },
      { type: "idle", content: "Nothing needed doing.", ...src },
      { type: "idle", content: "Nothing needed doing.", ...src },
      { type: "thought", content: "think", ...src },
      { type: "observation", content: "act: now", ...src },
    ]);
    expect(["done", "replied to ada", "actually, nothing", "idleness is fine", "thinking about tea", "", "values: honesty"].map(functionStep)).toEqual([null, null, null, null, null, null, null]);
  });
});

describe("InnerLife: pacing between idle wakes", () => {
  it("a mind that only ever idles wakes after 0,0,0,5,5,5,10,10,10,20… s, and each wake writes an idle step", async () => {
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
    expect(t.promptOf(t.wakes()[0]!)).toBe(START_PROMPT);
    expect(t.promptOf(t.wakes()[4]!)).toBe(scheduledPrompt(1));
    expect(t.model.mock.doStreamCalls).toHaveLength(13);
    // One wake, whole: the marker, the run, and the record of the function it chose.
    const wake = t.wakes()[0]!.step_id;
    const run = jid(2);
    const inRun = { run_id: run, trigger_step: wake };
    const at = formatTs(T0);
    expect(t.log.steps.slice(0, 7)).toEqual([
      { type: "wake", step_id: wake, ts: at, reason: "start", level: 0, delay_s: 0, source: INNER_LIFE },
      { type: "shellm-run", step_id: run, ts: at, model: "mock/scripted", trigger_step: wake, wake, launched_by: INNER_LIFE },
      { type: "prompt", step_id: jid(3), ts: at, ...inRun, content: START_PROMPT },
      { type: "reasoning", step_id: jid(4), ts: at, ...inRun, thought: "Nothing needs doing.", cmd: "FINAL=idle", in_tok: 10, out_tok: 5, usage: { input_tokens: 10, output_tokens: 5, model: "mock/scripted" } },
      { type: "shell-output", step_id: jid(5), ts: at, ...inRun, stdout: "", stderr: "", exit: 0, exec_s: 0.01, timed_out: false },
      { type: "final", step_id: jid(6), ts: at, ...inRun, content: "idle" },
      { type: "idle", step_id: jid(7), ts: at, content: "Nothing needed doing.", source: INNER_LIFE },
    ]);
    expect(t.log.ofType("idle")).toHaveLength(13);
    expect(t.outsideRuns().map((s) => s.type)).toEqual(Array(13).fill("idle"));
  });

  it("climbs to the cap (300 s) three empty wakes per level, and stays there", async () => {
    const t = setup();
    void t.start();
    await t.asleep(1);
    for (let i = 2; i <= 24; i++) {
      t.clock.advanceToNextWake();
      await t.asleep(i);
    }
    const per3 = (s: number) => [s, s, s];
    expect(t.clock.requested.map((ms) => ms / 1000)).toEqual([...per3(5), ...per3(10), ...per3(20), ...per3(40), ...per3(80), ...per3(160), 300, 300, 300, 300, 300, 300]);
    // At the cap the level stops rising (7: 5 × 2⁶ = 320 → 300).
    expect(t.waits().slice(-6).map((w) => w.level)).toEqual([7, 7, 7, 7, 7, 7]);
    expect(t.wakes().at(-1)).toMatchObject({ reason: "scheduled", level: 7, delay_s: 300 });
  });

  it("a wake that did work rests the mind: the next wake follows at once", async () => {
    // Every run writes a thought (a reply without a fence): work, so level 0 forever.
    let calls = 0;
    const t = setup({ turns: () => (++calls <= 6 ? `Thought number ${calls}.` : IDLE) });
    void t.start();
    await t.asleep(1);
    expect(t.log.ofType("thought").map((s) => (s as StepOf<"thought">).content)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `Thought number ${n}.`));
    // Six working wakes at 0 s, then the idle climb starts from rest: three idle wakes before the first 5 s pause.
    expect(t.wakes().map((w) => w.delay_s)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(t.waits().map((w) => w.delay)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 5]);
  });

  it('FINAL="idle: …" writes an idle step with the reason and counts as empty', async () => {
    const t = setup({ turns: [finalReply("idle: the notes are tidy")], pacing: { base_s: 5, cap_s: 300, ticks_per_level: 1 } });
    void t.start();
    await t.asleep(1);
    expect(t.wakeRows()).toEqual([
      ["start", 0, 0],
      ["scheduled", 0, 0],
    ]);
    expect(t.waits()).toEqual([
      { delay: 0, level: 0, lastError: undefined },
      { delay: 5, level: 1, lastError: undefined },
    ]);
    expect(t.outsideRuns()).toEqual([
      { type: "idle", step_id: jid(7), ts: formatTs(T0), content: "the notes are tidy", source: INNER_LIFE },
      { type: "idle", step_id: jid(14), ts: formatTs(T0), content: "the notes are tidy", source: INNER_LIFE },
    ]);
  });

  it('FINAL="learn: …" writes an observation and rests the mind', async () => {
    // Idle up to level 1 (a 5 s pause), then one wake learns something, then idle again.
    const t = setup({ turns: (n) => (n === 4 ? finalReply("learn: ada likes tea") : IDLE) });
    void t.start();
    await t.asleep(1);
    t.clock.advanceToNextWake();
    await t.asleep(2);
    expect(t.wakeRows()).toEqual([
      ["start", 0, 0],
      ["scheduled", 0, 0],
      ["scheduled", 0, 0],
      ["scheduled", 0, 0],
      ["scheduled", 1, 5], // learns
      ["scheduled", 0, 0],
      ["scheduled", 0, 0],
      ["scheduled", 0, 0],
    ]);
    expect(t.waits().map((w) => [w.delay, w.level])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
      [5, 1],
      [0, 0],
      [0, 0],
      [0, 0],
      [5, 1],
    ]);
    expect(t.log.ofType("observation")).toEqual([{ type: "observation", step_id: expect.any(String), ts: formatTs(T0 + 5000), content: "learn: ada likes tea", source: INNER_LIFE }]);
    // The observation is recorded right after that run's final.
    const i = t.log.steps.findIndex((s) => s.type === "observation");
    expect(t.log.steps[i - 1]).toMatchObject({ type: "final", content: "learn: ada likes tea" });
  });

  it("keeps the shell's env and cwd from run to run", async () => {
    const t = setup({
      shell: (code, req, call) => (call === 0 ? finalResult(req, "act: cd notes", { env: { ...req.env, TOPIC: "tea" }, cwd: "/workspace/notes" }) : undefined),
    });
    void t.start();
    await t.asleep(1);
    expect(t.shell.calls.slice(0, 2)).toEqual([
      { code: "FINAL=idle", env: {}, cwd: "/workspace" },
      { code: "FINAL=idle", env: { TOPIC: "tea" }, cwd: "/workspace/notes" },
    ]);
    expect(t.life.shellState()).toEqual({ env: { TOPIC: "tea" }, cwd: "/workspace/notes" });
  });

  it("hands its home the shell's state once for each run that changed its env or cwd (onShellState), never for one that left them as they were", async () => {
    const t = setup({
      shell: (code, req, call) =>
        call === 0
          ? finalResult(req, "act: cd notes", { env: { ...req.env, TOPIC: "tea" }, cwd: "/workspace/notes" })
          : call === 2
            ? finalResult(req, "act: back home", { cwd: "/workspace" })
            : undefined,
    });
    void t.start();
    await t.asleep(1);
    // Before the first pause: wake 1 changed env and cwd, wake 2 left them, wake 3 went back to the workspace (a cwd change, the env as it was), then three idle wakes left them.
    expect(t.shell.calls.map((c) => [c.code, c.cwd])).toEqual([
      ["FINAL=idle", "/workspace"],
      ["FINAL=idle", "/workspace/notes"],
      ["FINAL=idle", "/workspace/notes"],
      ["FINAL=idle", "/workspace"],
      ["FINAL=idle", "/workspace"],
      ["FINAL=idle", "/workspace"],
    ]);
    expect(t.shellSaves).toEqual([
      { env: { TOPIC: "tea" }, cwd: "/workspace/notes" },
      { env: { TOPIC: "tea" }, cwd: "/workspace" },
    ]);
    expect(t.life.shellState()).toEqual({ env: { TOPIC: "tea" }, cwd: "/workspace" });
  });
});

describe("InnerLife: a wait far longer than meant", () => {
  it("a frozen tab or a sleeping computer: the next wake follows a note saying how long the mind was away", async () => {
    const t = setup();
    void t.start();
    await t.asleep(1); // the first real wait: 5 s, after three idle wakes at level 0
    // The tab is frozen for an hour: the 5 s timer fires an hour late.
    t.clock.advance(3_600_000);
    await t.asleep(2);
    const note = t.outsideRuns().find((s) => s.type === "observation");
    expect(note).toEqual({ type: "observation", step_id: expect.any(String), ts: formatTs(T0 + 3_600_000), content: "I was away for 60 min (my tab was frozen or the computer slept).", source: "system" });
    expect(t.wakes().at(-1)).toMatchObject({ reason: "scheduled", delay_s: 3600 });
    // An ordinary wait writes no such note.
    t.clock.advanceToNextWake();
    await t.asleep(3);
    expect(t.outsideRuns().filter((s) => s.type === "observation")).toHaveLength(1);
  });
});

describe("InnerLife: the loop-breaker", () => {
  it(`the same non-idle FINAL ${REPEAT_WAKES} wakes in a row: an error step (reason repeat), and the wake counts as idle`, async () => {
    const t = setup({ turns: (n) => (n < 4 ? finalReply(n % 2 ? "act: Tidy the notes" : "act: tidy the notes ") : IDLE), pacing: { base_s: 5, cap_s: 300, ticks_per_level: 1 } });
    void t.start();
    await t.asleep(1);
    t.clock.advanceToNextWake();
    await t.asleep(2);
    t.clock.advanceToNextWake();
    await t.asleep(3);
    expect(REPEAT_WAKES).toBe(3);
    const note = (n: number) => ({
      type: "error",
      step_id: expect.any(String),
      reason: "repeat",
      content: `The same outcome ${n} wakes in a row ("act: tidy the notes"): treated as idle, so the mind slows down. Try something new.`,
      source: "system",
    });
    // Each act wake records an observation (work); from the third on, the loop-breaker also speaks.
    expect(t.outsideRuns().map(({ ts: _ts, ...s }) => s)).toEqual([
      // Case and surrounding space do not make an outcome new.
      { type: "observation", step_id: expect.any(String), content: "act: tidy the notes", source: INNER_LIFE },
      { type: "observation", step_id: expect.any(String), content: "act: Tidy the notes", source: INNER_LIFE },
      { type: "observation", step_id: expect.any(String), content: "act: tidy the notes", source: INNER_LIFE },
      note(3),
      { type: "observation", step_id: expect.any(String), content: "act: Tidy the notes", source: INNER_LIFE },
      note(4),
      { type: "idle", step_id: expect.any(String), content: "Nothing needed doing.", source: INNER_LIFE },
    ]);
    // The third wake, though it did "work", counted as idle: the mind slowed down (5 s, then 10 s).
    expect(t.wakeRows()).toEqual([
      ["start", 0, 0],
      ["scheduled", 0, 0],
      ["scheduled", 0, 0], // tripped
      ["scheduled", 1, 5], // tripped again
      ["scheduled", 2, 10],
    ]);
    // The idle wake after them lifts it once more (to level 3, 20 s).
    expect(t.clock.requested).toEqual([5000, 10000, 20000]);
  });

  it("a different outcome, or an idle wake, breaks the streak", async () => {
    const finals = ["act: a", "act: a", "act: b", "act: b", "idle", "act: b", "act: b", "act: a"];
    const t = setup({ turns: (n) => (n < finals.length ? finalReply(finals[n]!) : IDLE) });
    void t.start();
    await t.asleep(1);
    expect(t.log.ofType("error")).toEqual([]);
    // Every act wake did work: the mind stayed rested until the idle wakes at the end.
    expect(t.wakes().map((w) => w.delay_s)).toEqual(Array(finals.length + 3).fill(0));
  });
});

describe("InnerLife: messages", () => {
  it("a message during a long sleep wakes it at once (reason message, trigger_step, level 0) and rests it", async () => {
    const t = setup({ pacing: { base_s: 600, cap_s: 3600, ticks_per_level: 1 } });
    void t.start();
    await t.asleep(1);
    expect(t.clock.sleeping).toEqual([600_000]);
    t.clock.advance(123_400); // part of the way
    const at = t.clock.now();
    const m = await t.post("Are you awake?");
    await t.asleep(2);
    expect(t.clock.now()).toBe(at); // no more time had to pass
    const wakes = t.wakes();
    expect(wakes.map((w) => [w.reason, w.level, w.delay_s])).toEqual([
      ["start", 0, 0],
      ["scheduled", 0, 0],
      ["message", 0, 123.4], // how long it actually slept
      ["scheduled", 0, 0],
    ]);
    expect(wakes[2]).toEqual({ type: "wake", step_id: wakes[2]!.step_id, ts: formatTs(at), reason: "message", level: 0, delay_s: 123.4, trigger_step: m.step_id, source: INNER_LIFE });
    expect(t.promptOf(wakes[2]!)).toBe(messagePrompt(m));
    const header = t.log.steps.find((s) => s.type === "shellm-run" && (s as { wake?: string }).wake === wakes[2]!.step_id);
    expect(header).toEqual({ type: "shellm-run", step_id: header!.step_id, ts: formatTs(at), model: "mock/scripted", trigger_step: m.step_id, wake: wakes[2]!.step_id, launched_by: INNER_LIFE });
    // After the message wake the level is back to 0.
    expect(t.waits().map((w) => [w.delay, w.level])).toEqual([
      [0, 0],
      [600, 1],
      [0, 0],
      [600, 1],
    ]);
    // It does not answer: no message from the mind.
    expect(t.log.ofType("message")).toEqual([m]);
  });

  it("an alert from an alert link cuts a long sleep short (a scheduled wake at its level); another observation does not", async () => {
    const t = setup({ pacing: { base_s: 600, cap_s: 3600, ticks_per_level: 1 } });
    void t.start();
    await t.asleep(1);
    t.clock.advance(60_000);
    await t.post(stampStep({ type: "observation", source: "system", content: "a note" }, { id: crypto.randomUUID(), now: t.clock.now() }));
    await t.asleep(1);
    expect(t.wakes()).toHaveLength(2);
    const at = t.clock.now();
    await t.post(stampStep({ type: "observation", source: "alert", content: "Alert (error) from an alert link: build 42 failed" }, { id: crypto.randomUUID(), now: at }));
    await t.asleep(2);
    expect(t.clock.now()).toBe(at);
    expect(t.wakes().map((w) => [w.reason, w.delay_s])).toEqual([
      ["start", 0],
      ["scheduled", 0],
      ["scheduled", 60],
    ]);
    // And it sleeps again after it: an alert does not keep waking the mind.
    expect(t.clock.sleeping).toHaveLength(1);
  });

  it("a person's change to its memory cuts a long sleep short too, and does not keep it awake", async () => {
    const t = setup({ pacing: { base_s: 600, cap_s: 3600, ticks_per_level: 1 } });
    void t.start();
    await t.asleep(1);
    t.clock.advance(30_000);
    const at = t.clock.now();
    await t.post(stampStep({ type: "observation", source: "curation", by: "Ada", role: "owner", what: "memory", op: "edit", target: "garden", content: "Ada (owner) edited your memory garden." }, { id: crypto.randomUUID(), now: at }));
    await t.asleep(2);
    expect(t.clock.now()).toBe(at);
    // The wake it cut short is a scheduled one at its level, 30 s after the one before (not the 600 s its pacing said).
    expect(t.wakes().map((w) => [w.reason, w.delay_s])).toEqual([
      ["start", 0],
      ["scheduled", 0],
      ["scheduled", 30],
    ]);
    expect(t.clock.sleeping).toHaveLength(1);
  });

  it("a message at level 3 resets the pacing to level 0", async () => {
    const t = setup();
    void t.start();
    for (let i = 1; i <= 7; i++) {
      await t.asleep(i);
      if (i < 7) t.clock.advanceToNextWake();
    }
    expect(t.waits().at(-1)).toEqual({ delay: 20, level: 3, lastError: undefined });
    const m = await t.post("hi");
    await t.asleep(8);
    expect(t.wakeRows().slice(-4)).toEqual([
      ["message", 0, 0],
      ["scheduled", 0, 0],
      ["scheduled", 0, 0],
      ["scheduled", 0, 0],
    ]);
    expect(t.wakes().at(-4)).toMatchObject({ trigger_step: m.step_id });
    expect(t.waits().slice(-4).map((w) => [w.delay, w.level])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
      [5, 1],
    ]);
  });

  it("a message mid-run: no feedback step; the run's next call shows it once; then a message wake", async () => {
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
    expect(t.log.ofType("feedback")).toEqual([]);
    // The run's next model call saw the message once, where it was appended (before the command's output).
    const second = t.model.calls()[1]!;
    expect(second.at(-1)).toEqual({ role: "user", text: `[message ${m.step_id} from you to ${SELF}]\nhello?\n\n[output exit=0]\nworking\n` });
    expect(second.map((c) => c.text.split("hello?").length - 1).reduce((a, b) => a + b)).toBe(1);
    const wakes = t.wakes();
    expect(wakes.map((w) => w.reason)).toEqual(["start", "message", "scheduled", "scheduled", "scheduled"]);
    expect(wakes[1]).toMatchObject({ trigger_step: m.step_id, level: 0, delay_s: 0 });
    expect(t.promptOf(wakes[1]!)).toBe(messagePrompt(m));
    expect(t.log.ofType("message")).toEqual([m]);
  });

  it("several messages during a sleep make one wake that lists them all; the trigger is the newest", async () => {
    const t = setup({ pacing: { base_s: 600, cap_s: 3600, ticks_per_level: 1 } });
    void t.start();
    await t.asleep(1);
    // Appended and offered before the loop gets a turn (as one batch from the watch).
    const ms = [t.message("one"), t.message("two", "ada"), t.message("three")];
    for (const m of ms) await t.log.append(m);
    for (const m of ms) t.life.offer(m);
    await t.asleep(2);
    const wakes = t.wakes();
    expect(wakes.map((w) => w.reason)).toEqual(["start", "scheduled", "message", "scheduled"]);
    expect(wakes[2]).toMatchObject({ trigger_step: ms[2]!.step_id });
    expect(t.promptOf(wakes[2]!)).toBe(messagePrompt(...ms));
  });

  it("its runs may start a conversation (chat send) but their chat port refuses replies", async () => {
    const t = setup({ turns: [F + "bash\nchat send --to ada I found a tea shop.\nFINAL=\"act: wrote to ada\"\n" + F, IDLE] });
    void t.start();
    await t.asleep(1);
    expect(t.shell.scopes.map((s) => [s.chat.selfName, s.chat.replyRefusal, s.depth])).toEqual(Array(4).fill([SELF, REFUSAL, 0]));
    const run = t.log.ofType("shellm-run")[0]!;
    expect(t.log.ofType("message")).toEqual([
      { type: "message", step_id: expect.any(String), ts: formatTs(T0), run_id: run.step_id, trigger_step: t.wakes()[0]!.step_id, from: SELF, to: "ada", content: "I found a tea shop.", source: "chat" },
    ]);
  });

  it("its subscription: messages from others only (not the mind's own, not other kinds)", async () => {
    const t = setup({ pacing: { base_s: 600, cap_s: 3600, ticks_per_level: 1 } });
    void t.start();
    await t.asleep(1);
    const mk = stepMaker({ tail: "dddddddddddd" });
    const own = mk("message", { from: SELF, to: "you", content: "hello from me", source: "chat" });
    const other = mk("observation", { content: "something" });
    expect([own, other, t.message("x")].map((s) => wakes(t.life.subscription, s))).toEqual([false, false, true]);
    await t.post(own);
    await t.post(other);
    await settle();
    expect(t.clock.sleeping).toEqual([600_000]);
    expect(t.wakes()).toHaveLength(2);
  });

  it("more than 16 messages during a run: a feedback note names the dropped one; one wake takes the other 16", async () => {
    const posted: Message[] = [];
    const t = setup({
      turns: [F + "bash\nwork\n" + F, IDLE],
      shell: async (code) => {
        if (code !== "work") return undefined;
        for (let i = 1; i <= 17; i++) posted.push(await t.post(`message ${i}`));
        await settle(5);
        return { stdout: "working\n" };
      },
    });
    void t.start();
    await t.asleep(1);
    expect(t.log.ofType("feedback")).toEqual([
      {
        type: "feedback",
        step_id: expect.any(String),
        ts: formatTs(T0),
        content: `Too many messages at once: message ${posted[0]!.step_id.slice(0, 8)} was dropped from the inner life's queue (the responder still sees it).`,
        source: "system",
      },
    ]);
    const wakes = t.wakes();
    expect(wakes.map((w) => w.reason)).toEqual(["start", "message", "scheduled", "scheduled", "scheduled"]);
    expect(wakes[1]).toMatchObject({ trigger_step: posted[16]!.step_id, level: 0 });
    expect(t.promptOf(wakes[1]!)).toBe(messagePrompt(...posted.slice(1)));
  });
});

describe("InnerLife: start", () => {
  it("start() with no task wakes with reason start", async () => {
    const t = setup();
    void t.start();
    await t.asleep(1);
    expect(t.wakes()[0]).toEqual({ type: "wake", step_id: jid(1), ts: formatTs(T0), reason: "start", level: 0, delay_s: 0, source: INNER_LIFE });
    expect(t.promptOf(t.wakes()[0]!)).toBe(START_PROMPT);
  });

  it("a wake says where the mind ran, and under which lease epoch, when its home says so", async () => {
    const server = setup({ where: { home: "server", epoch: 7 } });
    void server.start();
    await server.asleep(1);
    expect(server.wakes()[0]).toMatchObject({ type: "wake", reason: "start", home: "server", epoch: 7 });
    await server.life.stop();
    const tab = setup({ where: { home: "tab" } });
    void tab.start();
    await tab.asleep(1);
    expect(tab.wakes()[0]).toMatchObject({ home: "tab" });
    expect(tab.wakes()[0]).not.toHaveProperty("epoch");
    await tab.life.stop();
  });

  it("start() with messages waiting (handed over by recovery) makes them the first wake", async () => {
    const mk = stepMaker({ tail: "bbbbbbbbbbbb", start: T0 - 60_000 });
    const m1 = mk("message", { from: "you", to: SELF, content: "first" }) as Message;
    const m2 = mk("message", { from: "alice", to: SELF, content: "second" }) as Message;
    const t = setup({ initial: [m1, m2] });
    void t.start({ reason: "message", messages: [m1, m2] });
    await t.asleep(1);
    const first = t.wakes()[0]!;
    expect(first).toEqual({ type: "wake", step_id: jid(1), ts: formatTs(T0), reason: "message", level: 0, delay_s: 0, trigger_step: m2.step_id, source: INNER_LIFE });
    expect(t.promptOf(first)).toBe(messagePrompt(m1, m2));
    expect(t.wakes().map((w) => w.reason)).toEqual(["message", "scheduled", "scheduled", "scheduled"]);
  });

  it("the wake step reads its home's where at each wake (a tab's epoch changes while it runs)", async () => {
    let epoch: number | undefined = undefined;
    const t = setup({ pacing: { base_s: 5, cap_s: 300, ticks_per_level: 1 }, where: () => ({ home: "tab", ...(epoch !== undefined ? { epoch } : {}) }) });
    void t.start();
    await t.asleep(1);
    epoch = 4;
    t.clock.advance(5000);
    await t.asleep(2);
    const [first, second, third] = t.wakes();
    expect(first).toMatchObject({ reason: "start", home: "tab" });
    expect(first).not.toHaveProperty("epoch");
    expect(second).not.toHaveProperty("epoch");
    expect(third).toMatchObject({ reason: "scheduled", home: "tab", epoch: 4 });
  });

  it("resume: goes on at its kept pacing (a scheduled wake at its level, the wait it had), or a retry after failures", async () => {
    const kept = setup({ pacingState: { level: 3, ticks: 1, failures: 0 } });
    void kept.life.start({ reason: "resume", waitedS: 20 });
    await kept.asleep(1);
    expect(kept.wakeRows()[0]).toEqual(["scheduled", 3, 20]);
    expect(kept.promptOf(kept.wakes()[0]!)).toBe(scheduledPrompt(3));
    // An idle wake at level 3, ticks 1 → ticks 2: the next wait is level 3's, 20 s.
    expect(kept.waits()[0]).toMatchObject({ delay: 20, level: 3 });
    await kept.life.stop();
    const failing = setup({ pacingState: { level: 2, ticks: 0, failures: 2 } });
    void failing.life.start({ reason: "resume", waitedS: 10 });
    await failing.asleep(1);
    expect(failing.wakeRows()[0]).toEqual(["retry", 2, 10]);
    expect(failing.promptOf(failing.wakes()[0]!)).toBe(retryPrompt(2));
  });

  it("keepsWaits: a home that keeps the wait ends the loop there (no sleep), told when the next wake is due; the pacing is reported only when it changes", async () => {
    const handed: { wakeAt: number; paused: boolean }[] = [];
    const reported: unknown[] = [];
    const t = setup({
      pacingState: { level: 1, ticks: 0, failures: 0 },
      keepsWaits: true,
      onEvent: (e) => {
        if (e.type === "handed-off") handed.push({ wakeAt: e.wakeAt, paused: e.paused });
        if (e.type === "pacing") reported.push(e.pacing);
      },
    });
    await t.life.start({ reason: "resume", waitedS: 5 });
    expect(t.clock.requested).toEqual([]);
    expect(t.wakeRows()).toEqual([["scheduled", 1, 5]]);
    // Idle at level 1: ticks 1 of 3, so the next wait is level 1's 5 s.
    expect(handed).toEqual([{ wakeAt: T0 + 5000, paused: false }]);
    expect(reported).toEqual([{ level: 1, ticks: 1, failures: 0 }]);
    expect(t.statuses.at(-1)?.status).toMatchObject({ state: "waiting", level: 1 });
    // A home that does not keep waits leaves the loop sleeping as before; the start wake left the pacing
    // rested, as it began, so it was not reported: only the three idle wakes' changes are.
    const again: unknown[] = [];
    const u = setup({ onEvent: (e) => void (e.type === "pacing" && again.push(e.pacing)) });
    void u.start();
    await u.asleep(1);
    expect(u.wakeRows()).toEqual([["start", 0, 0], ["scheduled", 0, 0], ["scheduled", 0, 0], ["scheduled", 0, 0]]);
    expect(again).toEqual([
      { level: 0, ticks: 1, failures: 0 },
      { level: 0, ticks: 2, failures: 0 },
      { level: 1, ticks: 0, failures: 0 },
    ]);
  });

  it("start() twice runs one loop", async () => {
    const t = setup();
    const a = t.start();
    const b = t.start();
    expect(a).toBe(b);
    await t.asleep(1);
    expect(t.wakes().filter((w) => w.reason === "start")).toHaveLength(1);
  });
});

describe("InnerLife: model failures", () => {
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
    expect(t.wakeRows().slice(0, 4)).toEqual([
      ["start", 0, 0],
      ["retry", 0, 5],
      ["retry", 0, 10],
      ["retry", 0, 20],
    ]);
    expect(t.promptOf(t.wakes()[2]!)).toBe(retryPrompt(2));
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
    expect(t.wakeRows().slice(4)).toEqual([
      ["scheduled", 0, 0],
      ["scheduled", 0, 0],
    ]);
    expect(t.clock.requested).toEqual([5000, 10000, 20000, 5000]);
    // No function record for a failed wake.
    expect(t.outsideRuns().map((s) => s.type)).toEqual(["idle", "idle", "idle"]);
  });

  it("a failed wake leaves the pacing level (and its ticks) unchanged", async () => {
    // Start + three idle wakes reach level 1; the next two wakes fail; then it idles.
    const t = setup({ turns: (n) => (n === 4 || n === 5 ? { throws: new Error("model down") } : IDLE) });
    void t.start();
    for (let i = 1; i <= 6; i++) {
      await t.asleep(i);
      if (i < 6) t.clock.advanceToNextWake();
    }
    expect(t.wakeRows()).toEqual([
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

  const tooMany = (retryAfter: string) =>
    new APICallError({
      message: "Too many requests",
      url: "https://api.example.com/v1/chat/completions",
      requestBodyValues: {},
      statusCode: 429,
      responseHeaders: { "retry-after": retryAfter },
      isRetryable: true,
    });
  const HTTP_429 = "HTTP 429 from https://api.example.com/v1/chat/completions: Too many requests";

  it("a 429 with Retry-After: 30 makes the next wait max(backoff, 30 s) = 30 s", async () => {
    const t = setup({ turns: [{ throws: tooMany("30") }, IDLE] });
    void t.start();
    await t.asleep(1);
    expect(t.clock.sleeping).toEqual([30_000]);
    expect(t.waits()).toEqual([{ delay: 30, level: 0, lastError: HTTP_429 }]);
    expect(t.log.ofType("error")).toEqual([
      { type: "error", step_id: jid(4), ts: formatTs(T0), run_id: jid(2), trigger_step: jid(1), reason: "model", content: `${HTTP_429} (the server asks to wait 30 s)` },
    ]);
    t.clock.advanceToNextWake();
    await t.asleep(2);
    expect(t.wakeRows().slice(0, 2)).toEqual([
      ["start", 0, 0],
      ["retry", 0, 30],
    ]);
  });

  it("a Retry-After shorter than the backoff leaves the backoff; a very long one is held to an hour", async () => {
    const t = setup({ turns: [{ throws: tooMany("2") }, { throws: tooMany("99999") }, IDLE] });
    void t.start();
    await t.asleep(1);
    t.clock.advanceToNextWake();
    await t.asleep(2);
    expect(t.clock.requested).toEqual([5000, 3_600_000]);
    expect(t.waits().map((w) => w.delay)).toEqual([5, 3600]);
  });

  it("a message wake whose model call fails: level 0 (the message rested it), then a retry after 5 s", async () => {
    const t = setup({
      // Calls 0–3: the start wake and three idle wakes; call 4: the message wake.
      turns: (n) => (n === 4 ? { throws: new Error("model down") } : IDLE),
    });
    void t.start();
    await t.asleep(1); // level 1, 5 s
    const at = t.clock.now();
    const m = await t.post("hi");
    await t.asleep(2);
    expect(t.clock.now()).toBe(at);
    expect(t.clock.sleeping).toEqual([5000]);
    expect(t.waits().at(-1)).toEqual({ delay: 5, level: 0, lastError: "model down" });
    t.clock.advanceToNextWake();
    await t.asleep(3);
    const wakes = t.wakes();
    expect(wakes.map((w) => w.reason)).toEqual(["start", "scheduled", "scheduled", "scheduled", "message", "retry", "scheduled", "scheduled"]);
    expect(wakes[4]).toMatchObject({ trigger_step: m.step_id, level: 0, ts: formatTs(at) });
    expect(t.promptOf(wakes[4]!)).toBe(messagePrompt(m));
    expect(wakes[5]).toMatchObject({ level: 0, delay_s: 5, ts: formatTs(at + 5000) });
    expect(t.promptOf(wakes[5]!)).toBe(retryPrompt(1));
    // The retry succeeded: the error is cleared; it was the first idle tick at level 0.
    expect(t.waits().slice(-3)).toEqual([
      { delay: 0, level: 0, lastError: undefined },
      { delay: 0, level: 0, lastError: undefined },
      { delay: 5, level: 1, lastError: undefined },
    ]);
  });

  it("a new message during a retry backoff wakes it at once", async () => {
    const t = setup({ turns: [{ throws: new Error("model down") }, IDLE], pacing: { base_s: 600, cap_s: 3600, ticks_per_level: 1 } });
    void t.start();
    await t.asleep(1);
    expect(t.clock.sleeping).toEqual([600_000]);
    expect(t.waits()).toEqual([{ delay: 600, level: 0, lastError: "model down" }]);
    const m = await t.post("still there?");
    await t.asleep(2);
    expect(t.clock.now()).toBe(T0); // no time had to pass
    expect(t.wakeRows()).toEqual([
      ["start", 0, 0],
      ["message", 0, 0],
      ["scheduled", 0, 0],
    ]);
    expect(t.wakes()[1]).toMatchObject({ trigger_step: m.step_id, ts: formatTs(T0) });
    expect(t.promptOf(t.wakes()[1]!)).toBe(messagePrompt(m));
    // The message wake succeeded: the failures are forgotten and the idle pacing takes over.
    expect(t.waits()).toEqual([
      { delay: 600, level: 0, lastError: "model down" },
      { delay: 0, level: 0, lastError: undefined },
      { delay: 600, level: 1, lastError: undefined },
    ]);
  });

  it("a message that arrives during a failing run: the message wake follows at once", async () => {
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
    expect(t.log.ofType("feedback")).toEqual([]);
    // The status still says why the last wake failed, but the wait is cut to 0: a message waits.
    expect(t.waits()[0]).toEqual({ delay: 0, level: 0, lastError: "model down" });
    const wakes = t.wakes();
    expect(wakes.map((w) => w.reason)).toEqual(["start", "message", "scheduled", "scheduled", "scheduled"]);
    expect(wakes[1]).toMatchObject({ trigger_step: message!.step_id, ts: formatTs(T0), delay_s: 0 });
    expect(t.promptOf(wakes[1]!)).toBe(messagePrompt(message!));
  });
});

describe("InnerLife: stop", () => {
  it("stop() during a run cuts the command, writes error reason stopped, and ends with status stopped", async () => {
    const t = setup({
      turns: ["Long job.\n" + F + "bash\nsleep 3600\n" + F],
      shell: (_code, req) =>
        new Promise<Partial<ShellResult>>((resolve) => req.signal.addEventListener("abort", () => resolve({ exit: 143, stderr: "Terminated\n" }), { once: true })),
    });
    const done = t.start();
    await until(() => t.shell.calls.length === 1, "the command started");
    await t.life.stop();
    await done;
    expect(t.log.steps.map((s) => s.type)).toEqual(["wake", "shellm-run", "prompt", "reasoning", "shell-output", "error"]);
    expect(t.log.steps.at(-1)).toEqual({
      type: "error",
      step_id: jid(6),
      ts: formatTs(T0),
      run_id: jid(2),
      trigger_step: jid(1),
      reason: "stopped",
      content: "Stopped by its human in the middle of the run.",
    });
    expect(t.log.steps[4]).toMatchObject({ exit: 143, stderr: "Terminated\n" });
    expect(t.statuses.at(-1)!.status).toEqual({ state: "stopped" });
    expect(t.statuses.some((s) => s.status.state === "waiting")).toBe(false);
  });

  it("stop() while asleep ends the loop at once, writing nothing", async () => {
    const t = setup();
    const done = t.start();
    await t.asleep(1);
    const count = t.log.steps.length;
    await t.life.stop();
    await done;
    expect(t.log.steps).toHaveLength(count);
    expect(t.clock.sleeping).toEqual([]);
    expect(t.statuses.at(-1)!.status).toEqual({ state: "stopped" });
  });
});

describe("InnerLife: storage failures", () => {
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
    await t.life.stop();
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

  it("a full queue while storage is full: offer neither throws nor rejects, and the messages still wake it", async () => {
    const posted: Message[] = [];
    const t = setup({
      turns: [F + "bash\nwork\n" + F, IDLE],
      shell: async (code) => {
        if (code !== "work") return undefined;
        for (let i = 1; i <= 17; i++) {
          const m = t.message(`m${i}`);
          await t.log.append(m);
          posted.push(m);
        }
        t.log.failAppends = new Error("disk full");
        for (const m of posted) t.life.offer(m); // the 17th drops the 1st; its note cannot be written
        await settle(5);
        t.log.failAppends = null;
        return { stdout: "done\n" };
      },
    });
    void t.start();
    await t.asleep(1);
    expect(t.log.refused).toBe(1);
    expect(t.log.ofType("feedback")).toEqual([]);
    const wakes = t.wakes();
    expect(wakes.map((w) => w.reason).slice(0, 2)).toEqual(["start", "message"]);
    expect(t.promptOf(wakes[1]!)).toBe(messagePrompt(...posted.slice(1)));
  });
});
