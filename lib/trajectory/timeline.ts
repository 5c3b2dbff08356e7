// A mind's life as lanes over time: the messages it got and sent, the wakes
// (and what caused each), the runs (and how each ended), and the idle
// stretches between them, so persistent agency is visible at a glance. Pure:
// steps in, lanes out; the times are the steps' own.
import { isKind, type Step } from "./schema";

export interface MessageMark {
  id: string;
  at: number;
  from: string;
  to: string;
}

/** `headlong`: a Headlong `monolith-wake`, which does not record its cause. */
export type WakeCause = "start" | "scheduled" | "message" | "retry" | "alarm" | "headlong";

export interface WakeMark {
  id: string;
  at: number;
  cause: WakeCause;
  /** The pacing level the mind was at, and the pause before this wake. */
  level?: number;
  delayS?: number;
  /** The thinker that woke (monolith: the inner life; responder). */
  thinker?: string;
  /** For a wake caused by a message: who sent it. */
  from?: string;
}

/** How a run ended: its FINAL (`idle` when it chose to idle), an error (with its reason), or not yet. */
export type RunOutcome = "final" | "idle" | "error" | "open";

export interface RunSpan {
  /** The run's header step (its identity). */
  id: string;
  /** null: the header is before the steps read (the run began earlier). */
  start: number | null;
  /** null: still running (or cut off with no end recorded yet). */
  end: number | null;
  outcome: RunOutcome;
  /** An error's reason (stall, model, budget, stopped, interrupted …). */
  reason?: string;
  /** Who launched it: the inner life, or `shellm` for a nested run. */
  launchedBy?: string;
  /** The wake step that started it. */
  wake?: string;
  /** Steps of this run that carry a model call's usage (their ids key the usage table). */
  calls: string[];
}

export interface IdleSpan {
  start: number;
  end: number;
  /** The wake or run that ended the stretch (where a click takes the reader). */
  endedBy: string;
}

export interface Timeline {
  messages: MessageMark[];
  wakes: WakeMark[];
  runs: RunSpan[];
  idle: IdleSpan[];
  /** The first and last instant of the steps read (null when none was). */
  start: number | null;
  end: number | null;
}

/** Kinds the timeline reads; a reader may skip every other row before parsing it. */
export const TIMELINE_KINDS: ReadonlySet<string> = new Set(["message", "wake", "monolith-wake", "shellm-run", "final", "error", "reasoning", "thought", "observation"]);

/** A gap shorter than this between a run and the next wake is the loop turning over, not idling. */
export const MIN_IDLE_MS = 1000;

const IDLE_FINAL = /^\s*idle\b/i;

/** Whether a step, of any kind (a kind this version does not know too), records a model call's usage. */
const carriesUsage = (s: Step): boolean => typeof s.usage === "object" && s.usage !== null;

/** The lanes of `steps` (in the order they were appended). */
export function timelineOf(steps: readonly Step[], opts: { minIdleMs?: number } = {}): Timeline {
  const out: Timeline = { messages: [], wakes: [], runs: [], idle: [], start: null, end: null };
  const senders = new Map<string, string>();
  const runs = new Map<string, RunSpan>();
  const runOf = (id: string): RunSpan => {
    let run = runs.get(id);
    if (!run) {
      run = { id, start: null, end: null, outcome: "open", calls: [] };
      runs.set(id, run);
    }
    return run;
  };

  for (const s of steps) {
    const at = Date.parse(s.ts);
    if (Number.isNaN(at)) continue;
    if (out.start === null || at < out.start) out.start = at;
    if (out.end === null || at > out.end) out.end = at;

    if (isKind(s, "message")) {
      senders.set(s.step_id, s.from);
      out.messages.push({ id: s.step_id, at, from: s.from, to: s.to });
    } else if (isKind(s, "wake")) {
      const from = s.reason === "message" && s.trigger_step ? senders.get(s.trigger_step) : undefined;
      out.wakes.push({ id: s.step_id, at, cause: s.reason, level: s.level, delayS: s.delay_s, ...(s.source ? { thinker: s.source } : {}), ...(from !== undefined ? { from } : {}) });
    } else if (isKind(s, "monolith-wake")) {
      out.wakes.push({ id: s.step_id, at, cause: "headlong" });
    } else if (isKind(s, "shellm-run")) {
      const run = runOf(s.step_id);
      run.start = at;
      if (s.launched_by) run.launchedBy = s.launched_by;
      if (s.wake) run.wake = s.wake;
    } else if (s.run_id && (isKind(s, "final") || isKind(s, "error"))) {
      const run = runOf(s.run_id);
      // The first end counts: a later `interrupted` error for a run that already ended changes nothing.
      if (run.outcome === "open") {
        run.end = at;
        run.outcome = isKind(s, "error") ? "error" : IDLE_FINAL.test(s.content) ? "idle" : "final";
        if (isKind(s, "error")) run.reason = s.reason;
      }
    }
    if (s.run_id && carriesUsage(s)) runOf(s.run_id).calls.push(s.step_id);
  }

  out.runs = [...runs.values()];
  out.idle = idleStretches(out.wakes, out.runs, opts.minIdleMs ?? MIN_IDLE_MS);
  return out;
}

/** Gaps between runs and wakes in which the mind did nothing. */
function idleStretches(wakes: readonly WakeMark[], runs: readonly RunSpan[], minMs: number): IdleSpan[] {
  // What kept the mind busy, as intervals: each run (open ones up to now are not gaps), each wake an instant.
  const busy: { start: number; end: number; id: string }[] = [];
  for (const w of wakes) busy.push({ start: w.at, end: w.at, id: w.id });
  for (const r of runs) {
    const start = r.start ?? r.end;
    if (start === null) continue;
    busy.push({ start, end: r.end ?? Infinity, id: r.id });
  }
  busy.sort((a, b) => a.start - b.start || a.end - b.end);
  const out: IdleSpan[] = [];
  let reach = -Infinity;
  for (const b of busy) {
    if (reach !== -Infinity && b.start - reach >= minMs) out.push({ start: reach, end: b.start, endedBy: b.id });
    reach = Math.max(reach, b.end);
  }
  return out;
}

/** Seconds as a person reads them: a pause of 2.001 s is "2 s". */
const secs = (s: number | undefined) => Number((s ?? 0).toFixed(1));

/** One line that says what a wake was and why it happened. */
export function wakeText(w: WakeMark): string {
  const who = w.thinker === "responder" ? "The responder woke" : "Woke";
  switch (w.cause) {
    case "message":
      return `${who}: a message${w.from !== undefined ? ` from ${w.from}` : ""}`;
    case "scheduled":
      return `${who} on schedule (pacing level ${w.level ?? 0}, after ${secs(w.delayS)} s)`;
    case "retry":
      return `${who} to retry after a failure (after ${secs(w.delayS)} s)`;
    case "start":
      return `${who}: the mind started`;
    case "alarm":
      return `${who}: an alarm it set went off`;
    case "headlong":
      return "Woke (a Headlong wake marker; the cause is not recorded)";
  }
}

export function runText(r: RunSpan): string {
  const what = r.launchedBy === "shellm" ? "Nested run" : "Run";
  const how = r.outcome === "open" ? "still running" : r.outcome === "error" ? `ended with an error (${r.reason ?? "unknown"})` : r.outcome === "idle" ? "chose to idle" : "ended with FINAL";
  return `${what}: ${how}`;
}
