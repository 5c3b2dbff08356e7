// Idle backoff, the way Headlong ships it: level 0 → no pause; level n →
// min(base × 2^(n−1), cap). An empty spontaneous wake adds a tick; after
// `ticks_per_level` ticks the level rises. A reactive wake or a run that did
// work resets both to 0.

import type { PacingConfig } from "../../trajectory/schema";

export const DEFAULT_PACING: PacingConfig = { base_s: 5, cap_s: 300, ticks_per_level: 3 };

export interface PacingState {
  level: number;
  ticks: number;
}

export const RESTED: PacingState = { level: 0, ticks: 0 };

export function delaySeconds(level: number, cfg: PacingConfig): number {
  if (level <= 0) return 0;
  // Past the cap the exponent no longer matters; avoid 2^huge.
  const exp = Math.min(level - 1, 52);
  return Math.min(cfg.base_s * 2 ** exp, cfg.cap_s);
}

/** The pacing after a wake. `reactive`: woken by a message; `didWork`: the run produced something. */
export function afterWake(state: PacingState, outcome: { reactive: boolean; didWork: boolean }, cfg: PacingConfig): PacingState {
  if (outcome.reactive || outcome.didWork) return RESTED;
  const ticks = state.ticks + 1;
  if (ticks < cfg.ticks_per_level) return { level: state.level, ticks };
  // Stop raising the level once the delay is at the cap, so it stays bounded.
  const atCap = delaySeconds(state.level, cfg) >= cfg.cap_s;
  return { level: atCap ? state.level : state.level + 1, ticks: 0 };
}

/** Backoff after consecutive failures (model errors): 5, 10, 20 … s up to the cap. */
export function failureDelaySeconds(failures: number, cfg: PacingConfig): number {
  return failures <= 0 ? 0 : delaySeconds(failures, cfg);
}
