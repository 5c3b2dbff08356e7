// lib/mind/alarms/alarms.ts: the book folds alarm steps into the pending alarms; the
// port sets and cancels them as steps of the run it is given (a Journal over
// the mind's TrajectoryLog over its MemoryMindState, as a host wires it);
// nextAlarmDue reads a mind's next alarm from its state, however far back it was set.
import { beforeEach, describe, expect, it } from "vitest";
import { AlarmBook, alarmPort, MAX_PENDING, nextAlarmDue } from "@/lib/mind/alarms/alarms";
import { Journal, type RunScope } from "@/lib/mind/log/journal";
import { MemoryMindState } from "@/lib/mind/state/memory-state";
import { MindWriter, TrajectoryLog } from "@/lib/mind/log/mind-log";
import type { AlarmPort } from "@/lib/mind/ports";
import { renderStep } from "@/lib/context/project";
import { formatTs, parseStep, type Step } from "@/lib/trajectory/schema";
import { stepText } from "@/lib/trajectory/summary";
import { timelineOf, wakeText } from "@/lib/trajectory/timeline";
import { FakeClock } from "../../helpers/fake-clock";
import { ROOT_TRAJ, sequentialIds } from "../../helpers/memory-log";
import { id } from "../../helpers/steps";

const T0 = Date.parse("2026-11-30T17:00:00.000Z");
const MIN = 60_000;

function alarmStep(n: number, fields: Record<string, unknown>): Step {
  const parsed = parseStep({ type: "alarm", step_id: id(n), ts: formatTs(T0 + n), ...fields });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.step;
}
const set = (n: number, atMs: number, note: string) => alarmStep(n, { op: "set", alarm: id(n), at: formatTs(atMs), note });
const end = (n: number, op: "cancel" | "rang", of: number) => alarmStep(n, { op, alarm: id(of) });

describe("AlarmBook", () => {
  it("folds set, cancel and rang into the pending alarms, soonest first", () => {
    const book = AlarmBook.of([set(1, T0 + 30 * MIN, "tea"), set(2, T0 + 10 * MIN, "call Ada"), set(3, T0 + 20 * MIN, "stretch"), end(4, "cancel", 3), set(5, T0 + 10 * MIN, "same time")]);
    expect(book.list()).toEqual([
      { id: id(2), at: T0 + 10 * MIN, note: "call Ada" },
      { id: id(5), at: T0 + 10 * MIN, note: "same time" },
      { id: id(1), at: T0 + 30 * MIN, note: "tea" },
    ]);
    expect(book.size).toBe(3);
    expect(book.next()).toEqual({ id: id(2), at: T0 + 10 * MIN, note: "call Ada" });
    expect(book.due(T0 + 10 * MIN - 1)).toEqual([]);
    expect(book.due(T0 + 10 * MIN).map((a) => a.note)).toEqual(["call Ada", "same time"]);
    expect(book.due(T0 + 60 * MIN).map((a) => a.note)).toEqual(["call Ada", "same time", "tea"]);
  });

  it("an alarm that rang or was cancelled never comes back, even when its set step is read again", () => {
    const book = AlarmBook.of([set(1, T0 + MIN, "once"), end(2, "rang", 1)]);
    expect(book.apply(set(1, T0 + MIN, "once"))).toBe(false);
    expect(book.list()).toEqual([]);
    // A rang read before its set (two readers racing): the set stays ended.
    const raced = AlarmBook.of([end(2, "rang", 1), set(1, T0 + MIN, "once")]);
    expect(raced.list()).toEqual([]);
    // Read twice: one alarm.
    expect(AlarmBook.of([set(1, T0 + MIN, "x"), set(1, T0 + MIN, "x")]).size).toBe(1);
  });

  it("apply says whether the pending alarms changed; other kinds pass", () => {
    const book = new AlarmBook();
    const thought = parseStep({ type: "thought", step_id: id(9), ts: formatTs(T0), content: "hm" });
    if (!thought.ok) throw new Error(thought.error);
    expect([book.apply(thought.step), book.apply(set(1, T0 + MIN, "a")), book.apply(end(2, "cancel", 1)), book.apply(end(3, "cancel", 1))]).toEqual([false, true, true, false]);
  });

  it("resolves an id prefix of 4 or more characters, in any case, among the pending alarms only", () => {
    const book = AlarmBook.of([
      set(0xabc11, T0 + MIN, "a"),
      set(0xabc12, T0 + 2 * MIN, "b"),
      set(0xdef10, T0 + 3 * MIN, "c"),
      set(0x11110, T0 + 4 * MIN, "gone"),
      end(0x22220, "rang", 0x11110),
    ]);
    expect(book.resolve("000DEF")).toEqual({ id: id(0xdef10), at: T0 + 3 * MIN, note: "c" });
    expect(book.resolve(id(0xabc12))).toMatchObject({ note: "b" });
    expect(book.resolve("000abc1")).toBe("'000abc1' matches 2 alarms; give more of the id");
    expect(book.resolve("000")).toBe("'000' is too short: give at least 4 characters of the id");
    expect(book.resolve("00011110")).toBe("no pending alarm '00011110' (alarm list shows them)");
    expect(book.resolve("tea!")).toBe("'tea!' is not an alarm id (alarm list shows them)");
  });
});

describe("an alarm step, read", () => {
  it("by a person (the stream, traj tail) and by the model (its context)", () => {
    const steps = [set(1, Date.parse("2026-12-01T09:30:00.500Z"), "call Ada"), end(2, "cancel", 1), end(3, "rang", 1)];
    expect(steps.map((s) => stepText(s))).toEqual(["set 00000001 for 2026-12-01 09:30:00Z: call Ada", "cancelled 00000001", "00000001 rang"]);
    expect(steps.map((s) => renderStep(s, "Reverie"))).toEqual([
      { role: "user", content: "[alarm set 00000001 for 2026-12-01 09:30:00Z: call Ada]" },
      { role: "user", content: "[alarm cancelled 00000001]" },
      { role: "user", content: "[alarm 00000001 rang]" },
    ]);
  });

  it("a wake it caused, on the timeline", () => {
    const wake = parseStep({ type: "wake", step_id: id(4), ts: formatTs(T0), reason: "alarm", level: 0, delay_s: 30, trigger_step: id(1), source: "monolith" });
    if (!wake.ok) throw new Error(wake.error);
    const [mark] = timelineOf([wake.step]).wakes;
    expect(mark).toEqual({ id: id(4), at: T0, cause: "alarm", level: 0, delayS: 30, thinker: "monolith" });
    expect(wakeText(mark!)).toBe("Woke: an alarm it set went off");
  });
});

describe("alarmPort: the alarms of a run's mind", () => {
  let state: MemoryMindState;
  let clock: FakeClock;
  let log: TrajectoryLog;
  let run: RunScope;
  let port: AlarmPort;

  beforeEach(async () => {
    state = new MemoryMindState(ROOT_TRAJ);
    clock = new FakeClock(T0);
    log = new TrajectoryLog(new MindWriter(state), ROOT_TRAJ);
    const journal = new Journal(log, sequentialIds(), clock);
    run = await journal.openRun({ model: "test", launched_by: "monolith" });
    port = alarmPort(run);
  });

  const stored = async () => {
    await log.writer.flushed();
    return state.steps().filter((s) => s.type === "alarm");
  };

  it("set appends a set step in the run, named after itself; list and cancel read the log", async () => {
    expect(await port.set(T0 + 90 * MIN, "call Ada")).toEqual({ ok: true, alarm: { id: id(2, "000000000000"), at: T0 + 90 * MIN, note: "call Ada" } });
    expect(await port.set(T0 + 30 * MIN, "tea\nand biscuits")).toMatchObject({ ok: true, alarm: { id: id(3, "000000000000") } });
    expect(await stored()).toEqual([
      { type: "alarm", step_id: id(2, "000000000000"), ts: formatTs(T0), run_id: run.runId, op: "set", alarm: id(2, "000000000000"), at: "2026-11-30T18:30:00.000Z", note: "call Ada" },
      { type: "alarm", step_id: id(3, "000000000000"), ts: formatTs(T0), run_id: run.runId, op: "set", alarm: id(3, "000000000000"), at: "2026-11-30T17:30:00.000Z", note: "tea\nand biscuits" },
    ]);
    expect((await port.list()).map((a) => a.note)).toEqual(["tea\nand biscuits", "call Ada"]);
    expect(await port.cancel("00000003")).toEqual({ ok: true, alarm: { id: id(3, "000000000000"), at: T0 + 30 * MIN, note: "tea\nand biscuits" } });
    expect((await stored()).at(-1)).toEqual({ type: "alarm", step_id: id(4, "000000000000"), ts: formatTs(T0), run_id: run.runId, op: "cancel", alarm: id(3, "000000000000") });
    expect((await port.list()).map((a) => a.note)).toEqual(["call Ada"]);
    expect(await port.cancel("00000003")).toEqual({ ok: false, error: "no pending alarm '00000003' (alarm list shows them)" });
  });

  it("refuses a time not ahead, an empty or too long note, and a 101st pending alarm, writing nothing", async () => {
    expect(await port.set(T0, "now")).toEqual({ ok: false, error: "2026-11-30 17:00:00Z is in the past (it is now 2026-11-30 17:00:00Z)" });
    expect(await port.set(T0 + 366 * 24 * 60 * MIN, "far")).toEqual({ ok: false, error: "2027-12-01 17:00:00Z is more than 365 days ahead" });
    expect(await port.set(T0 + MIN, "  \n")).toEqual({ ok: false, error: "an alarm needs a note (what it is for)" });
    expect(await port.set(T0 + MIN, "é".repeat(501))).toEqual({ ok: false, error: "the note has 501 characters; at most 500" });
    expect(await port.set(T0 + MIN, "😀".repeat(500))).toMatchObject({ ok: true });
    for (let i = 1; i < MAX_PENDING; i++) expect((await port.set(T0 + (i + 1) * MIN, `n${i}`)).ok).toBe(true);
    expect(await port.set(T0 + 500 * MIN, "one too many")).toEqual({ ok: false, error: "100 alarms are pending, the most there may be: cancel one first (alarm list)" });
    expect(await stored()).toHaveLength(100);
    // One ends: there is room again.
    await port.cancel((await port.list())[0]!.id.slice(0, 8));
    expect((await port.set(T0 + 500 * MIN, "room again")).ok).toBe(true);
  });
});

describe("nextAlarmDue: what a host schedules a mind's wake by", () => {
  it("reads the state's alarm steps, however far back they were set", async () => {
    const state = new MemoryMindState(ROOT_TRAJ);
    expect(await nextAlarmDue(state)).toBeUndefined();
    const thoughts = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => {
        const p = parseStep({ type: "thought", step_id: id(from + i, "bbbbbbbbbbbb"), ts: formatTs(T0 + i), content: `thought ${i}` });
        if (!p.ok) throw new Error(p.error);
        return { trajId: ROOT_TRAJ, step: p.step };
      });
    await state.append({ steps: [set(1, T0 + 300 * MIN, "later"), set(2, T0 + 200 * MIN, "sooner"), set(3, T0 + 100 * MIN, "cancelled")].map((step) => ({ trajId: ROOT_TRAJ, step })), seen: [] });
    // 100,000 steps after them: far past any tail a mind reads.
    for (let b = 0; b < 100; b++) await state.append({ steps: thoughts(0x100000 + b * 1000, 1000), seen: [] });
    await state.append({ steps: [{ trajId: ROOT_TRAJ, step: end(4, "cancel", 3) }], seen: [] });
    expect(await state.count(ROOT_TRAJ)).toBe(100_004);
    expect(await nextAlarmDue(state)).toBe(T0 + 200 * MIN);
    await state.append({ steps: [{ trajId: ROOT_TRAJ, step: end(5, "rang", 2) }], seen: [] });
    expect(await nextAlarmDue(state, ROOT_TRAJ)).toBe(T0 + 300 * MIN);
  }, 60_000);
});
