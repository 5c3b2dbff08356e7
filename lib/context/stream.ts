// The filtered stream a context is cut from: which steps count in it, and
// how buildContext reads it (by position, from an array or a sealed past).
import type { Step } from "../trajectory/schema";

/** The filtered stream: what the staircase is cut from. Positions are 0-based. */
export interface ContextSource {
  readonly length: number;
  /** The step at a position; needed for the verbatim tail (undefined: not at hand, it is elided). */
  at(pos: number): Step | undefined;
  /** The ids of positions [from, to). */
  ids(from: number, to: number): string[];
  /**
   * The same ids as one text, each after a "\n" and the last followed by one,
   * where the source holds them so (a slice, not a join): only when every id
   * is printable ASCII. Undefined: ask `ids`.
   */
  idLines?(from: number, to: number): string | undefined;
  /** Positions before this one are known by id only (their steps are not at hand): the verbatim tail starts at or after it. */
  readonly held?: number;
}

/** Kinds that are not in the stream: bookkeeping (renderStep shows nothing of them) and the wake markers (the run's prompt says why it woke). */
export const OUT_OF_STREAM: ReadonlySet<string> = new Set(["trajectory", "shellm-run", "config", "monolith-wake", "wake"]);

/**
 * Whether a step of this kind counts in the stream. By kind alone, so the
 * stream's positions can be read from a keys-only index (type and id) without
 * reading a row.
 */
export function inStreamType(type: string): boolean {
  return !OUT_OF_STREAM.has(type);
}

/** Steps that count in the stream: what the model is shown, less the wake markers. */
export function inStream(step: Step): boolean {
  return inStreamType(step.type);
}

export function arraySource(steps: readonly Step[]): ContextSource {
  return { length: steps.length, at: (p) => steps[p], ids: (from, to) => steps.slice(from, to).map((s) => s.step_id) };
}
