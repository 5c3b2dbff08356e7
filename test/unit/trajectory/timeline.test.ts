// lib/trajectory/timeline.ts: a mind's steps become lanes (messages, wakes
// with their causes, runs with their outcomes, idle stretches), checked whole
// on hand-written steps.
import { describe, expect, it } from "vitest";
import { formatTs, type Step } from "@/lib/trajectory/schema";
import { runText, timelineOf, wakeText } from "@/lib/trajectory/timeline";

const T0 = Date.parse("2026-03-01T10:00:00.000Z");
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const at = (s: number) => formatTs(T0 + s * 1000);
const usage = { input_tokens: 100, output_tokens: 10, usd: 0.001 };

// Started; a scheduled wake whose run idles; a 20 s pause; a message from Ada
// wakes the responder (which replies) and the inner life (whose run works);
// then a run that fails with a stall, and one still running.
const steps: Step[] = [
  { type: "trajectory", step_id: id(1), ts: at(0), name: "Mo", source: "system" },
  { type: "wake", step_id: id(2), ts: at(1), reason: "start", level: 0, delay_s: 0, source: "monolith" },
  { type: "shellm-run", step_id: id(3), ts: at(1), launched_by: "monolith", wake: id(2) },
  { type: "reasoning", step_id: id(4), ts: at(2), run_id: id(3), thought: "t", cmd: "FINAL=idle", usage },
  { type: "final", step_id: id(5), ts: at(3), run_id: id(3), content: "idle: nothing to do" },
  { type: "idle", step_id: id(6), ts: at(3), content: "nothing to do", source: "monolith" },
  { type: "wake", step_id: id(7), ts: at(23), reason: "scheduled", level: 2, delay_s: 20.004, source: "monolith" },
  { type: "shellm-run", step_id: id(8), ts: at(23), launched_by: "monolith", wake: id(7) },
  { type: "message", step_id: id(9), ts: at(24), content: "hi", from: "Ada", to: "Mo", source: "chat" },
  { type: "final", step_id: id(10), ts: at(25), run_id: id(8), content: "think: about Ada" },
  { type: "wake", step_id: id(11), ts: at(25), reason: "message", level: 0, delay_s: 0, trigger_step: id(9), source: "responder" },
  { type: "message", step_id: id(12), ts: at(26), content: "hello", from: "Mo", to: "Ada", reply_to: id(9), source: "chat" },
  { type: "observation", step_id: id(13), ts: at(26), content: "I answered Ada.", decision: "replied", trigger_step: id(9), source: "responder", usage },
  { type: "wake", step_id: id(14), ts: at(40), reason: "retry", level: 0, delay_s: 5, source: "monolith" },
  { type: "shellm-run", step_id: id(15), ts: at(40), launched_by: "monolith", wake: id(14) },
  { type: "reasoning", step_id: id(16), ts: at(41), run_id: id(15), thought: "t", cmd: "false", usage },
  { type: "error", step_id: id(17), ts: at(42), run_id: id(15), content: "Run stopped", reason: "stall" },
  // A late `interrupted` error for a run that had ended changes nothing.
  { type: "error", step_id: id(18), ts: at(43), run_id: id(15), content: "cut off", reason: "interrupted", source: "system" },
  { type: "monolith-wake", step_id: id(19), ts: at(50) },
  { type: "shellm-run", step_id: id(20), ts: at(50), launched_by: "monolith" },
];

describe("timelineOf", () => {
  it("draws messages with their senders, wakes with their causes, runs with their outcomes, and the idle stretches between", () => {
    expect(timelineOf(steps)).toEqual({
      start: T0,
      end: T0 + 50_000,
      messages: [
        { id: id(9), at: T0 + 24_000, from: "Ada", to: "Mo" },
        { id: id(12), at: T0 + 26_000, from: "Mo", to: "Ada" },
      ],
      wakes: [
        { id: id(2), at: T0 + 1000, cause: "start", level: 0, delayS: 0, thinker: "monolith" },
        { id: id(7), at: T0 + 23_000, cause: "scheduled", level: 2, delayS: 20.004, thinker: "monolith" },
        { id: id(11), at: T0 + 25_000, cause: "message", level: 0, delayS: 0, thinker: "responder", from: "Ada" },
        { id: id(14), at: T0 + 40_000, cause: "retry", level: 0, delayS: 5, thinker: "monolith" },
        { id: id(19), at: T0 + 50_000, cause: "headlong" },
      ],
      runs: [
        { id: id(3), start: T0 + 1000, end: T0 + 3000, outcome: "idle", launchedBy: "monolith", wake: id(2), calls: [id(4)] },
        { id: id(8), start: T0 + 23_000, end: T0 + 25_000, outcome: "final", launchedBy: "monolith", wake: id(7), calls: [] },
        { id: id(15), start: T0 + 40_000, end: T0 + 42_000, outcome: "error", reason: "stall", launchedBy: "monolith", wake: id(14), calls: [id(16)] },
        { id: id(20), start: T0 + 50_000, end: null, outcome: "open", launchedBy: "monolith", calls: [] },
      ],
      // From each run's end to the next wake; the responder's wake at 25 s falls right at a run's end, so no gap there.
      idle: [
        { start: T0 + 3000, end: T0 + 23_000, endedBy: id(7) },
        { start: T0 + 25_000, end: T0 + 40_000, endedBy: id(14) },
        { start: T0 + 42_000, end: T0 + 50_000, endedBy: id(19) },
      ],
    });
  });

  it("a window that starts inside a run shows it from before the window; gaps under the minimum are not idle", () => {
    const tail = steps.slice(3, 8); // from the first run's reasoning to the second run's header
    const t = timelineOf(tail, { minIdleMs: 30_000 });
    expect(t.runs).toEqual([
      { id: id(3), start: null, end: T0 + 3000, outcome: "idle", calls: [id(4)] },
      { id: id(8), start: T0 + 23_000, end: null, outcome: "open", launchedBy: "monolith", wake: id(7), calls: [] },
    ]);
    expect(t.idle).toEqual([]);
    expect(timelineOf(tail).idle).toEqual([{ start: T0 + 3000, end: T0 + 23_000, endedBy: id(7) }]);
  });

  it("no steps: empty lanes and no time range", () => {
    expect(timelineOf([])).toEqual({ messages: [], wakes: [], runs: [], idle: [], start: null, end: null });
  });

  it("says what each wake and run was", () => {
    const t = timelineOf(steps);
    expect(t.wakes.map(wakeText)).toEqual([
      "Woke: the mind started",
      "Woke on schedule (pacing level 2, after 20 s)",
      "The responder woke: a message from Ada",
      "Woke to retry after a failure (after 5 s)",
      "Woke (a Headlong wake marker; the cause is not recorded)",
    ]);
    expect(t.runs.map(runText)).toEqual(["Run: chose to idle", "Run: ended with FINAL", "Run: ended with an error (stall)", "Run: still running"]);
  });
});
