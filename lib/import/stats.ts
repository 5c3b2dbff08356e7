// What an import (or `reverie check`) found.

export interface ImportStats {
  steps: number;
  /** Lines skipped: over the line limit, not JSON objects, no type/step_id, duplicate ids. */
  skipped: number;
  skippedReasons: Record<string, number>;
  /** Steps of a known kind that did not match its schema (kept, shown as-is). */
  invalid: number;
  byType: Record<string, number>;
  runIds: Set<string>;
  forks: number;
  trajectories: number;
  blobs: number;
  warnings: string[];
}

export function emptyStats(): ImportStats {
  return { steps: 0, skipped: 0, skippedReasons: {}, invalid: 0, byType: {}, runIds: new Set(), forks: 0, trajectories: 0, blobs: 0, warnings: [] };
}

/** `n` more lines skipped for `reason`. */
export function countSkipped(stats: ImportStats, reason: string, n = 1): void {
  stats.skipped += n;
  stats.skippedReasons[reason] = (stats.skippedReasons[reason] ?? 0) + n;
}

/** The summary `reverie check --json` prints. */
export function checkSummary(s: ImportStats) {
  return { steps: s.steps, skipped: s.skipped, byType: s.byType, runs: s.runIds.size, forks: s.forks, trajectories: s.trajectories };
}
