// The mind's own alarms in its loop (lib/mind/mind.ts, alarm-clock.ts and the
// inner life), wired as a host wires a mind: a TrajectoryLog over the mind's
// writer over its MemoryMindState, the real just-bash sandbox (the agent types
// `alarm …`), scripted models, a FakeClock. A restart is a new Mind over the
// same state.
import { InMemoryFs } from "just-bash";
import { afterEach, describe, expect, it } from "vitest";
import { alarmPort } from "../../../../lib/mind/alarms/alarms";
import { Journal } from "../../../../lib/mind/log/journal";
import { MemoryMindState } from "../../../../lib/mind/state/memory-state";
import { Mind } from "../../../../lib/mind/mind";
import { MindWriter, TrajectoryLog } from "../../../../lib/mind/log/mind-log";
import { taskText } from "../../../../lib/mind/run/prompt";
import { DEFAULT_RUN_LIMITS } from "../../../../lib/mind/run/run";
import { INNER_LIFE } from "../../../../lib/mind/thinkers/inner-life";
import { justBashSandbox } from "../../../../lib/shell/just-bash-sandbox";
import { DEFAULT_PERMISSIONS } from "../../../../lib/trajectory/permissions";
import { formatTs, type PacingConfig, type Step, type StepOf } from "../../../../lib/trajectory/schema";
import { FakeClock, until } from "../../helpers/fake-clock";
import { ROOT_TRAJ, sequentialIds } from "../../helpers/memory-log";
import { scriptedModel, type Turn } from "../../helpers/mock-model";
import { id } from "../../helpers/steps";
import { silent } from "@/lib/mind/events";

const F = "```";
const SELF = "Reverie";
const T0 = Date.parse("2025-06-01T00:00:00.000Z");
const IDLE = `Nothing needs doing.\n\n${F}bash\nFINAL=idle\n${F}`;
const block = (code: string) => `Doing it.\n\n${F}bash\n${code}\n${F}`;
/** Idle wakes wait 60 s from the first one on: far longer than the alarms below. */
const PACING: PacingConfig = { base_s: 60, cap_s: 600, ticks_per_level: 1 };
const FUNCTIONS = `Choose ONE function for this wake and end with FINAL="<function>: <one line>":
- think: one new thought that moves you forward (or reply with the thought and no code)
- act: real work in your shell
- learn: store a lesson (mem add)
- recall: bring back a memory (mem search) and use it
- goals: tend your goals (focus)
- idle: nothing needs doing; say so honestly (FINAL="idle")`;

type Wake = StepOf<"wake">;
type AlarmStep = StepOf<"alarm">;

const running: Mind[] = [];
afterEach(async () => {
  for (const m of running.splice(0)) await m.stop();
});

let lives = 0;

/** One life of a mind over `state` (a restart is another): its own writer, log and journal, as a host makes at each start. */
function life(state: MemoryMindState, clock: FakeClock, turns: Turn[] | ((n: number) => Turn)) {
  const writer = new MindWriter(state);
  const log = new TrajectoryLog(writer, ROOT_TRAJ);
  // Each life hands out ids of its own, as crypto.randomUUID would.
  const journal = new Journal(log, sequentialIds(String(++lives).padStart(12, "0")), clock);
  const model = scriptedModel(turns, "mock/inner");
  const shell = justBashSandbox({ fs: new InMemoryFs(), flush: async () => undefined, permissions: DEFAULT_PERMISSIONS, ids: { uuid: () => crypto.randomUUID() }, clock });
  const mind = new Mind({
    journal,
    model: model.port,
    responderModel: scriptedModel(["Hello."], "mock/responder").port,
    persona: "Calm.",
    shell,
    clock,
    selfName: SELF,
    instructions: "You are Reverie.",
    pacing: PACING,
    limits: DEFAULT_RUN_LIMITS,
    shellState: { env: {}, cwd: "/workspace" },
    emit: silent,
    contexts: writer,
  });
  running.push(mind);
  return { mind, journal, log, writer, model };
}

const steps = (state: MemoryMindState) => state.steps();
const innerWakes = (state: MemoryMindState) => steps(state).filter((s): s is Wake => s.type === "wake" && s.source === INNER_LIFE);
const alarmSteps = (state: MemoryMindState) => steps(state).filter((s): s is AlarmStep => s.type === "alarm");
/** The task of the run a wake opened. */
const promptOf = (state: MemoryMindState, wake: Wake) => {
  const run = steps(state).find((s) => s.type === "shellm-run" && (s as StepOf<"shellm-run">).wake === wake.step_id);
  return (steps(state).find((s) => s.type === "prompt" && s.run_id === run?.step_id) as StepOf<"prompt"> | undefined)?.content;
};

/** Wait until the mind sleeps `ms` (its only sleep), with its writes stored. */
async function asleep(clock: FakeClock, writer: MindWriter, ms: number, what: string) {
  await until(() => clock.sleeping.length === 1 && clock.sleeping[0] === ms, what);
  await writer.flushed();
}

describe("an alarm's wake task", () => {
  it("quotes each alarm's note under its id and time, and says when it rang", () => {
    const one = { id: id(0xa1a2a3a4), at: Date.parse("2025-06-01T09:00:00Z"), note: "water the plants\nthe ferns too" };
    const two = { id: id(0xb1), at: Date.parse("2025-06-01T09:00:30.250Z"), note: "call Ada" };
    expect(taskText({ reason: "alarm", alarms: [one], now: Date.parse("2025-06-01T09:00:02Z") })).toBe(
      `An alarm you set went off (it is now 2025-06-01 09:00:02Z):\n- alarm a1a2a3a4, set for 2025-06-01 09:00:00Z:\n  > water the plants\n  > the ferns too\n\nDo what you set it for.\n\n${FUNCTIONS}`,
    );
    expect(taskText({ reason: "alarm", alarms: [one, two], now: Date.parse("2025-06-01T10:00:00Z") })).toBe(
      `2 alarms you set went off (it is now 2025-06-01 10:00:00Z):\n- alarm a1a2a3a4, set for 2025-06-01 09:00:00Z:\n  > water the plants\n  > the ferns too\n- alarm 000000b1, set for 2025-06-01 09:00:30Z:\n  > call Ada\n\nDo what you set them for.\n\n${FUNCTIONS}`,
    );
  });
});

describe("the mind's alarms wake it", () => {
  it("an alarm set for 30 s wakes the mind then, before its 60 s pacing would, with the note in its task, once", async () => {
    const state = new MemoryMindState(ROOT_TRAJ);
    const clock = new FakeClock(T0);
    const t = life(state, clock, (n) => (n === 0 ? block("alarm in 30s check the oven\nFINAL=idle") : IDLE));
    void t.mind.start();
    // The start wake set it; the idle wake after it would wait 60 s: the alarm cuts the wait to 30 s.
    await asleep(clock, t.writer, 30_000, "asleep until the alarm");
    const [set] = alarmSteps(state);
    expect(set).toMatchObject({ op: "set", at: formatTs(T0 + 30_000), note: "check the oven" });
    expect(clock.advanceToNextWake()).toBe(30_000);
    // The alarm wake, then (reactive: pacing rested) one idle wake, then the pacing's 60 s.
    await asleep(clock, t.writer, 60_000, "asleep at the pacing's 60 s");
    const wakes = innerWakes(state);
    expect(wakes.map((w) => [w.reason, w.delay_s])).toEqual([
      ["start", 0],
      ["scheduled", 0],
      ["alarm", 30],
      ["scheduled", 0],
    ]);
    expect(wakes[2]!.trigger_step).toBe(set!.step_id);
    expect(promptOf(state, wakes[2]!)).toBe(taskText({ reason: "alarm", alarms: [{ id: set!.step_id, at: T0 + 30_000, note: "check the oven" }], now: T0 + 30_000 }));
    expect(promptOf(state, wakes[2]!)).toContain("  > check the oven");
    expect(alarmSteps(state).map((s) => [s.op, s.alarm])).toEqual([
      ["set", set!.step_id],
      ["rang", set!.step_id],
    ]);
    // Rung: nothing pending, and the next wait is the pacing's alone.
    expect(t.mind.alarms.nextDue()).toBeUndefined();
    clock.advanceToNextWake();
    await asleep(clock, t.writer, 120_000, "asleep at level 2");
    expect(innerWakes(state).filter((w) => w.reason === "alarm")).toHaveLength(1);
  });

  it("an alarm set during a wait (by another run of the mind, as its responder's) shortens that wait", async () => {
    const state = new MemoryMindState(ROOT_TRAJ);
    const clock = new FakeClock(T0);
    const t = life(state, clock, [IDLE]);
    void t.mind.start();
    await asleep(clock, t.writer, 60_000, "asleep at the pacing's 60 s");
    clock.advance(5_000);
    const responderRun = await t.journal.forThinker().openRun({ model: "mock/responder", launched_by: "responder" });
    const set = await alarmPort(responderRun).set(clock.now() + 10_000, "answer Ada");
    expect(set.ok).toBe(true);
    // The wait looks again: 10 s to the alarm, not the 55 s left of the pacing's.
    await asleep(clock, t.writer, 10_000, "asleep until the alarm");
    expect(clock.advanceToNextWake()).toBe(10_000);
    await asleep(clock, t.writer, 60_000, "asleep again at 60 s");
    const alarmWake = innerWakes(state).find((w) => w.reason === "alarm");
    expect(alarmWake).toMatchObject({ delay_s: 15 });
    expect(promptOf(state, alarmWake!)).toContain("  > answer Ada");
  });

  it("a cancelled alarm never rings", async () => {
    const state = new MemoryMindState(ROOT_TRAJ);
    const clock = new FakeClock(T0);
    const t = life(state, clock, (n) => (n === 0 ? block("alarm in 30s never mind\nFINAL=idle") : n === 1 ? block("alarm cancel $(alarm list | cut -d' ' -f1)\nalarm list\nFINAL=idle") : IDLE));
    void t.mind.start();
    await asleep(clock, t.writer, 60_000, "asleep at the pacing's 60 s, no alarm pending");
    expect(alarmSteps(state).map((s) => s.op)).toEqual(["set", "cancel"]);
    const listed = steps(state).filter((s): s is StepOf<"shell-output"> => s.type === "shell-output")[1];
    expect(listed?.stdout).toMatch(/^cancelled [0-9a-f]{8} 2025-06-01 00:00:30Z never mind\nno alarms pending\n$/);
    clock.advanceToNextWake();
    await asleep(clock, t.writer, 120_000, "asleep at level 2");
    expect(innerWakes(state).map((w) => w.reason)).toEqual(["start", "scheduled", "scheduled"]);
  });

  it("an alarm whose wake could not reach the model rings again at the retry, and is rung once it got through", async () => {
    const state = new MemoryMindState(ROOT_TRAJ);
    const clock = new FakeClock(T0);
    const t = life(state, clock, (n) => (n === 0 ? block("alarm in 30s stretch\nFINAL=idle") : n === 2 ? { throws: new Error("model down") } : IDLE));
    void t.mind.start();
    await asleep(clock, t.writer, 30_000, "asleep until the alarm");
    clock.advanceToNextWake();
    // The alarm wake failed: the retry's backoff (60 s), not the alarm (due already), sets the wait.
    await asleep(clock, t.writer, 60_000, "backing off");
    expect(alarmSteps(state).map((s) => s.op)).toEqual(["set"]);
    clock.advanceToNextWake();
    await asleep(clock, t.writer, 60_000, "asleep at the pacing's 60 s");
    const wakes = innerWakes(state);
    expect(wakes.map((w) => w.reason)).toEqual(["start", "scheduled", "alarm", "alarm", "scheduled"]);
    expect(promptOf(state, wakes[3]!)).toContain("  > stretch");
    expect(alarmSteps(state).map((s) => s.op)).toEqual(["set", "rang"]);
  });
});

describe("alarms survive restarts", () => {
  /** Thoughts appended by some other life of the mind: the alarm's set step falls far behind every tail. */
  async function longLife(state: MemoryMindState, clock: FakeClock, n: number) {
    const filler: Step[] = Array.from({ length: n }, (_, i) => ({ type: "thought", step_id: id(0x100000 + i, "ffffffffffff"), ts: formatTs(clock.now()), content: `thought ${i}` }));
    await state.append({ steps: filler.map((step) => ({ trajId: ROOT_TRAJ, step })), seen: [] });
  }

  it("a pending alarm set 3,000 steps before a restart rings once after it, and not again after the next", async () => {
    const state = new MemoryMindState(ROOT_TRAJ);
    const clock = new FakeClock(T0);
    const first = life(state, clock, (n) => (n === 0 ? block("alarm in 5m water the plants\nFINAL=idle") : IDLE));
    void first.mind.start();
    await asleep(clock, first.writer, 60_000, "the first life is asleep");
    await first.mind.stop();
    const [set] = alarmSteps(state);
    expect(set).toMatchObject({ op: "set", note: "water the plants" });
    await longLife(state, clock, 3_000);
    clock.advance(10 * 60_000);

    const second = life(state, clock, [IDLE]);
    void second.mind.start();
    await asleep(clock, second.writer, 60_000, "the second life is asleep");
    await second.mind.stop();
    const afterSecond = innerWakes(state).slice(2);
    expect(afterSecond.map((w) => w.reason)).toEqual(["start", "alarm", "scheduled"]);
    expect(promptOf(state, afterSecond[1]!)).toContain("  > water the plants");
    expect(alarmSteps(state).map((s) => [s.op, s.alarm])).toEqual([
      ["set", set!.step_id],
      ["rang", set!.step_id],
    ]);

    const third = life(state, clock, [IDLE]);
    void third.mind.start();
    await asleep(clock, third.writer, 60_000, "the third life is asleep");
    expect(innerWakes(state).slice(5).map((w) => w.reason)).toEqual(["start", "scheduled"]);
    expect(alarmSteps(state)).toHaveLength(2);
  });

  it("a host that kept the wait (resume) and starts the mind when its alarm is due wakes it with the alarm first", async () => {
    const state = new MemoryMindState(ROOT_TRAJ);
    const clock = new FakeClock(T0);
    const first = life(state, clock, (n) => (n === 0 ? block("alarm in 45s feed the cat\nFINAL=idle") : IDLE));
    void first.mind.start();
    await asleep(clock, first.writer, 45_000, "asleep until the alarm");
    await first.mind.stop();
    clock.advance(45_000);
    const second = life(state, clock, [IDLE]);
    void second.mind.start({ resume: { dueAt: T0 + 45_000 } });
    await asleep(clock, second.writer, 60_000, "asleep after the alarm wake");
    expect(innerWakes(state).map((w) => w.reason)).toEqual(["start", "scheduled", "alarm", "scheduled"]);
    expect(alarmSteps(state).map((s) => s.op)).toEqual(["set", "rang"]);
  });
});
