// Start-up, as a pure function over the tail of the trajectory: close a run
// that a closed tab cut off, note a long absence, and find the messages that
// still wait for an answer. The caller writes the steps it returns.
import { isKind, type NewStep, type Step, type StepOf } from "../trajectory/schema";

type Message = StepOf<"message">;

/** A wake-gap note is written when the mind starts after this long away. */
export const AWAY_NOTE_AFTER_S = 300;

const RUN_ENDS = new Set(["final", "error", "thought"]);

export interface Recovery {
  steps: NewStep[];
  /** Messages from others with no reply and no decision yet, oldest first. */
  unanswered: Message[];
}

/** Has `message` been dealt with in `tail`: a reply to it, or a responder's decision about it? */
export function handledIn(tail: readonly Step[], messageId: string): boolean {
  return tail.some((s) => (isKind(s, "message") && s.reply_to === messageId) || (isKind(s, "observation") && s.decision !== undefined && s.trigger_step === messageId));
}

/**
 * `quietUntil` (ms): the mind meant to be quiet until then (a wait its host
 * kept), so only the time past it counts as being away.
 */
export function recoverAtStart(tail: readonly Step[], now: number, selfName: string, opts: { quietUntil?: number } = {}): Recovery {
  const steps: NewStep[] = [];
  // Every run in the tail without an ending was cut off (runs interleave: the responder's and the inner life's).
  const ended = new Set(tail.flatMap((s) => (s.run_id && RUN_ENDS.has(s.type) ? [s.run_id] : [])));
  for (const s of tail) {
    if (s.type === "shellm-run" && !ended.has(s.step_id)) {
      steps.push({ type: "error", reason: "interrupted", content: "This run was cut off (the tab closed or the mind stopped mid-thought).", run_id: s.step_id, source: "system" });
    }
  }
  const newest = tail[tail.length - 1];
  const awayS = newest ? Math.floor((now - Math.max(Date.parse(newest.ts), opts.quietUntil ?? 0)) / 1000) : 0;
  if (newest && awayS >= AWAY_NOTE_AFTER_S) {
    steps.push({ type: "observation", content: `I was away for ${formatDuration(awayS)}; my last step was at ${newest.ts}.`, source: "system" });
  }
  const unanswered = tail.filter((s): s is Message => isKind(s, "message") && s.from !== selfName && !handledIn(tail, s.step_id));
  return { steps, unanswered };
}

export function formatDuration(s: number): string {
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
}
