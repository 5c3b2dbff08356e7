// The idle pacing in plain words, for the new-mind form: what the three
// numbers mean for a mind nobody talks to. Pure; the numbers come from the
// mind's own pacing rules (lib/mind/pacing), so the words cannot drift from
// what the mind does.
import { afterWake, delaySeconds, RESTED } from "@/lib/mind/pacing/pacing";
import { quietMessagesWords, quietWords } from "@/lib/mind/pacing/quiet-hours";
import { shortDuration } from "@/lib/trajectory/figures";
import type { PacingConfig } from "@/lib/trajectory/schema";

export { shortDuration };

export interface PacingPlan {
  /** The quiet wakes before the first pause. */
  wakesBeforeFirstPause: number;
  /** How long it has been quiet when the pause first reaches the cap, seconds. */
  secondsToCap: number;
  wakesPerHourAtCap: number;
}

/** Walk the backoff wake by wake until the pause stops growing. */
export function pacingPlan(p: PacingConfig): PacingPlan {
  let state = RESTED;
  let wakes = 0;
  let quiet = 0;
  let firstPauseAfter = 0;
  // Bounded: the level rises every `ticks_per_level` wakes and the delay doubles per level, so the cap is reached within ~60 levels.
  for (let i = 0; i < 100_000; i++) {
    state = afterWake(state, { reactive: false, didWork: false }, p);
    wakes++;
    const delay = delaySeconds(state.level, p);
    if (delay > 0 && firstPauseAfter === 0) firstPauseAfter = wakes;
    if (delay >= p.cap_s) break;
    quiet += delay;
  }
  return { wakesBeforeFirstPause: firstPauseAfter, secondsToCap: quiet, wakesPerHourAtCap: 3600 / p.cap_s };
}

/** Why these numbers cannot be a pacing, or nothing when they can. */
export function pacingProblems(p: { base_s?: number; cap_s?: number; ticks_per_level?: number }): string[] {
  const problems: string[] = [];
  const positive = (n: number | undefined) => n !== undefined && Number.isFinite(n) && n > 0;
  if (!positive(p.base_s)) problems.push("The first pause is a number of seconds above 0.");
  if (!positive(p.cap_s)) problems.push("The longest pause is a number of seconds above 0.");
  if (!(positive(p.ticks_per_level) && Number.isInteger(p.ticks_per_level))) problems.push("Idle wakes per level is a whole number above 0.");
  if (!problems.length && p.cap_s! < p.base_s!) problems.push("The longest pause cannot be shorter than the first one.");
  return problems;
}

const ordinal = (n: number) => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
};

/** "When nobody is around …": the pacing told as what the mind will do. */
export function pacingSentence(p: PacingConfig): string {
  const plan = pacingPlan(p);
  const every = p.ticks_per_level === 1 ? "every quiet wake" : `every ${p.ticks_per_level} quiet wakes`;
  const from = `When nobody is around and it finds nothing to do, it starts pausing after its ${ordinal(plan.wakesBeforeFirstPause)} quiet wake`;
  const growth =
    p.base_s >= p.cap_s
      ? `: ${shortDuration(p.cap_s)} each time`
      : `: ${shortDuration(p.base_s)} at first, twice as long ${every}, up to ${shortDuration(p.cap_s)} (after about ${roughDuration(plan.secondsToCap)} of quiet)`;
  const perHour = Math.round(plan.wakesPerHourAtCap * 10) / 10;
  const quiet = p.quiet ? ` It makes no wake of its own in its quiet hours, ${quietWords(p.quiet)}${p.quiet.alarms ? " (alarms still ring)" : ""}; ${quietMessagesWords(p.quiet)}.` : "";
  return `${from}${growth}. Then at most ${perHour} wake${perHour === 1 ? "" : "s"} an hour; a message or real work brings it back to no pause.${quiet}`;
}

/** "about 16 min": whole units. */
function roughDuration(s: number): string {
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  return shortDuration(s);
}
