// The arithmetic of a replay: how long to wait before showing the next step
// at a given speed, with long silences cut short so a day of a mind's life
// replays in a class period, and what the cursor's position reads as. Pure:
// the page owns the timer, this only says how long.
import type { IndexEntry } from "./rows";

export type ReplaySpeed = "1" | "10" | "100" | "1000" | "step";

export const REPLAY_SPEEDS: readonly { key: ReplaySpeed; label: string; factor: number | null }[] = [
  { key: "1", label: "1×", factor: 1 },
  { key: "10", label: "10×", factor: 10 },
  { key: "100", label: "100×", factor: 100 },
  { key: "1000", label: "1000×", factor: 1000 },
  { key: "step", label: "Step by step", factor: null },
];

/** No wait in play is longer than this (a mind idle for hours would otherwise stop the class). */
export const MAX_WAIT_MS = 2000;
/** Step by step: every step gets the same beat, whatever the time between them. */
export const STEP_BEAT_MS = 700;

export interface Wait {
  ms: number;
  /** The real time between the two steps. */
  gapMs: number;
  /** The wait was cut to MAX_WAIT_MS. */
  compressed: boolean;
}

const tsOf = (e: IndexEntry | undefined) => (e ? Date.parse(e.ts) : NaN);

/** How long to wait, in play, before showing `entries[shown]` when `shown` steps are on screen. */
export function waitBefore(entries: readonly IndexEntry[], shown: number, speed: ReplaySpeed): Wait {
  const prev = tsOf(entries[shown - 1]);
  const next = tsOf(entries[shown]);
  const gapMs = Number.isNaN(prev) || Number.isNaN(next) ? 0 : Math.max(0, next - prev);
  const factor = REPLAY_SPEEDS.find((s) => s.key === speed)?.factor ?? null;
  if (factor === null) return { ms: STEP_BEAT_MS, gapMs, compressed: false };
  const ms = gapMs / factor;
  return ms > MAX_WAIT_MS ? { ms: MAX_WAIT_MS, gapMs, compressed: true } : { ms, gapMs, compressed: false };
}

/** The next speed up or down the list (for + and - keys), staying at the ends. */
export function nextSpeed(speed: ReplaySpeed, dir: 1 | -1): ReplaySpeed {
  const order: ReplaySpeed[] = ["step", "1", "10", "100", "1000"];
  const at = order.indexOf(speed);
  return order[Math.min(order.length - 1, Math.max(0, at + dir))] ?? speed;
}

/** `shown` kept within 0..total. */
export const clampShown = (shown: number, total: number) => Math.min(total, Math.max(0, Math.round(shown)));

/** "step N of M · 14:03:22 UTC" (N = how many are shown; the time is the newest shown step's). */
export function positionText(entries: readonly IndexEntry[], shown: number): string {
  const last = entries[shown - 1];
  const at = last ? ` · ${last.ts.slice(0, 10)} ${last.ts.slice(11, 19)} UTC` : " · before the first step";
  return `step ${shown} of ${entries.length}${at}`;
}

/** How many steps are shown when the cursor is at the step with id `stepId` (0 when it is not there). */
export function shownThrough(entries: readonly IndexEntry[], stepId: string): number {
  return entries.findIndex((e) => e.id === stepId) + 1;
}
