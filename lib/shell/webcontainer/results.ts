// Results that say the runtime did not (or may not have) taken the request's
// files: the worker then keeps them as still to copy, and sends them again
// with the next spawn (the page skips any it already has).
import type { SpawnResult } from "../ports";

const NOT_RUN = "not run: ";
const LOST = "lost: ";

/** Nothing ran and nothing was copied in. */
export function notRun(reason: string): SpawnResult {
  return { output: "", exit: 127, files: [], ended: `${NOT_RUN}${reason}` };
}

/** The call ended without an answer from the runtime: what it did is unknown. */
export function lost(reason: string): SpawnResult {
  return { output: "", exit: 127, files: [], ended: `${LOST}${reason}` };
}

/** Did the runtime take the request's files (so they count as copied)? */
export function delivered(result: SpawnResult): boolean {
  return !(result.ended?.startsWith(NOT_RUN) || result.ended?.startsWith(LOST));
}
