// lib/mind/recovery.ts: start-up as a pure function over hand-written tails.
// Runs cut off by a closed tab get exactly one error step; a long absence gets
// a note; messages with no reply and no decision are handed back, oldest first.
import { describe, expect, it } from "vitest";
import { AWAY_NOTE_AFTER_S, formatDuration, handledIn, recoverAtStart } from "../../../lib/mind/recovery";
import { formatTs } from "../../../lib/trajectory/schema";
import { stepMaker } from "../helpers/steps";

const SELF = "Reverie";
const T0 = Date.parse("2025-03-01T09:00:00.000Z");
const INTERRUPTED = "This run was cut off (the tab closed or the mind stopped mid-thought).";

/** Steps one second apart, the last at `T0 - awayMs`, so `now` is T0. */
function tailMaker(count: number, awayMs = 10_000) {
  return stepMaker({ start: T0 - awayMs - count * 1000, everyMs: 1000 });
}

const interrupted = (runId: string) => ({ type: "error", reason: "interrupted", content: INTERRUPTED, run_id: runId, source: "system" });

describe("recoverAtStart: runs cut off", () => {
  it("an interrupted run gets exactly one error step, with its run_id", () => {
    const mk = tailMaker(4);
    const wake = mk("wake", { reason: "start", level: 0, delay_s: 0, source: "monolith" });
    const run = mk("shellm-run", { model: "m", launched_by: "monolith", wake: wake.step_id });
    const tail = [wake, run, mk("prompt", { run_id: run.step_id, content: "p" }), mk("reasoning", { run_id: run.step_id, thought: "", cmd: "sleep 1000" })];
    expect(recoverAtStart(tail, T0, SELF)).toEqual({ steps: [interrupted(run.step_id)], unanswered: [] });
  });

  it("a run closed by a final, an error or a thought gets none", () => {
    const mk = tailMaker(9);
    const tail = [];
    for (const [end, fields] of [
      ["final", { content: "done" }],
      ["error", { reason: "model", content: "model down" }],
      ["thought", { content: "I see.", source: "monolith" }],
    ] as const) {
      const run = mk("shellm-run", {});
      tail.push(run, mk("prompt", { run_id: run.step_id, content: "p" }), mk(end, { run_id: run.step_id, ...fields }));
    }
    expect(recoverAtStart(tail, T0, SELF)).toEqual({ steps: [], unanswered: [] });
  });

  it("interleaved runs: only the ones without an ending, in the order they started", () => {
    const mk = tailMaker(10);
    const inner = mk("shellm-run", { launched_by: "monolith" });
    const responder = mk("shellm-run", { launched_by: "responder" });
    const third = mk("shellm-run", { launched_by: "monolith" });
    const tail = [
      inner,
      responder,
      mk("prompt", { run_id: inner.step_id, content: "p" }),
      mk("prompt", { run_id: responder.step_id, content: "q" }),
      third,
      mk("final", { run_id: responder.step_id, content: "ok" }),
      mk("reasoning", { run_id: inner.step_id, thought: "", cmd: "ls" }),
      mk("reasoning", { run_id: third.step_id, thought: "", cmd: "pwd" }),
      // A final without a run_id (or of a run outside the tail) closes nothing here.
      mk("final", { content: "stray" }),
      mk("error", { run_id: mk("shellm-run", {}).step_id, reason: "x", content: "y" }),
    ];
    expect(recoverAtStart(tail, T0, SELF).steps).toEqual([interrupted(inner.step_id), interrupted(third.step_id)]);
  });

  it("an empty tail: nothing to write, nothing waiting", () => {
    expect(recoverAtStart([], T0, SELF)).toEqual({ steps: [], unanswered: [] });
  });
});

describe("recoverAtStart: the wake-gap note", () => {
  const awayTail = (awayS: number) => {
    const mk = stepMaker({ start: T0 - awayS * 1000 - 1000, everyMs: 1000 });
    return [mk("thought", { content: "hm", source: "monolith" })];
  };

  it(`is written at ${AWAY_NOTE_AFTER_S} s away and not at ${AWAY_NOTE_AFTER_S - 1} s`, () => {
    expect(AWAY_NOTE_AFTER_S).toBe(300);
    expect(recoverAtStart(awayTail(299), T0, SELF)).toEqual({ steps: [], unanswered: [] });
    expect(recoverAtStart(awayTail(299.999), T0, SELF).steps).toEqual([]);
    expect(recoverAtStart(awayTail(300), T0, SELF)).toEqual({
      steps: [{ type: "observation", content: `I was away for 5 min; my last step was at ${formatTs(T0 - 300_000)}.`, source: "system" }],
      unanswered: [],
    });
  });

  it("says how long, in words that fit the gap, after the interrupted runs", () => {
    const cases: [number, string][] = [
      [2 * 3600, "2 h"],
      [7199, "120 min"],
      [3 * 86400, "3 days"],
      [47 * 3600, "47 h"],
    ];
    for (const [s, words] of cases) {
      const mk = stepMaker({ start: T0 - s * 1000 - 1000, everyMs: 1000 });
      const run = mk("shellm-run", {});
      // The run header is the newest step: the gap is measured from it.
      expect(recoverAtStart([run], T0, SELF).steps).toEqual([
        interrupted(run.step_id),
        { type: "observation", content: `I was away for ${words}; my last step was at ${run.ts}.`, source: "system" },
      ]);
    }
  });

  it("formatDuration: seconds, minutes, hours, days", () => {
    expect([0, 119, 120, 149, 150, 7199, 7200, 172_799, 172_800].map(formatDuration)).toEqual(["0 s", "119 s", "2 min", "2 min", "3 min", "120 min", "2 h", "48 h", "2 days"]);
  });
});

describe("recoverAtStart: unanswered messages", () => {
  it("a reply (reply_to) or a decision observation (trigger_step) answers a message; the mind's own messages never count", () => {
    const mk = tailMaker(12);
    const m1 = mk("message", { from: "ada", to: SELF, content: "first" });
    const m2 = mk("message", { from: "ada", to: SELF, content: "second" });
    const m3 = mk("message", { from: "bob", to: SELF, content: "third" });
    const m4 = mk("message", { from: "bob", to: SELF, content: "fourth" });
    const m5 = mk("message", { from: "ada", to: SELF, content: "fifth" });
    const tail = [
      m1,
      m2,
      mk("message", { from: SELF, to: "ada", content: "Got it.", reply_to: m2.step_id, source: "chat" }),
      m3,
      mk("observation", { content: "I read bob's message and chose not to answer.", decision: "no-reply", trigger_step: m3.step_id, source: "responder" }),
      m4,
      // Neither of these answers m4: an observation without a decision, and a run's step carrying it as trigger.
      mk("observation", { content: "learn: bob asks a lot", trigger_step: m4.step_id, source: "monolith" }),
      mk("final", { content: "done", trigger_step: m4.step_id }),
      mk("message", { from: SELF, to: "carol", content: "Hello, carol (my own first message)." }),
      m5,
      mk("observation", { content: "Could not answer ada: down", decision: "reply-failed", trigger_step: m5.step_id, source: "responder" }),
    ];
    expect(recoverAtStart(tail, T0, SELF)).toEqual({ steps: [], unanswered: [m1, m4] });
    expect([m1, m2, m3, m4, m5].map((m) => handledIn(tail, m.step_id))).toEqual([false, true, true, false, true]);
  });

  it("hands back the waiting messages together with the run that was cut off while they waited", () => {
    const mk = tailMaker(4, 600_000);
    const run = mk("shellm-run", {});
    const m = mk("message", { from: "ada", to: SELF, content: "are you there?" });
    const prompt = mk("prompt", { run_id: run.step_id, content: "p" });
    expect(recoverAtStart([run, m, prompt], T0, SELF)).toEqual({
      steps: [interrupted(run.step_id), { type: "observation", content: `I was away for 10 min; my last step was at ${prompt.ts}.`, source: "system" }],
      unanswered: [m],
    });
  });
});

describe("handledIn", () => {
  it("looks only at replies to that message and decisions about it", () => {
    const mk = tailMaker(5);
    const m = mk("message", { from: "ada", to: SELF, content: "hi" });
    const other = mk("message", { from: "ada", to: SELF, content: "hi again" });
    expect(handledIn([m, other], m.step_id)).toBe(false);
    expect(handledIn([m, mk("message", { from: SELF, to: "ada", content: "yes", reply_to: other.step_id })], m.step_id)).toBe(false);
    expect(handledIn([m, mk("message", { from: SELF, to: "ada", content: "yes", reply_to: m.step_id })], m.step_id)).toBe(true);
    expect(handledIn([m, mk("observation", { content: "replied", decision: "replied", trigger_step: m.step_id })], m.step_id)).toBe(true);
  });
});
