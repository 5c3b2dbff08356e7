// What an idle (scheduled) wake's first model call is given: lean
// instructions (lib/mind/prompt.ts firstLookParts) and a lean context
// (lib/context/lean.ts) within LEAN_BUDGET. The inner life hands this to its
// run; bench/context measures what this returns, so the figure is what the
// mind sends.
import type { BuildOptions, BuiltContext, ContextSource } from "../../context/build";
import { LEAN_BUDGET, leanContext } from "../../context/lean";
import { firstLookParts } from "../prompt";

export interface FirstLook {
  /** The first call's instructions (later calls of the run get the standing ones). */
  instructions: string;
  /** The first call's token budget for its messages. */
  budget: number;
  /** How the first call's context is cut from the stream (buildContext's options, the budget among them). */
  build: (src: ContextSource, opts: BuildOptions) => BuiltContext;
}

/** The first look of a scheduled wake, made from the standing instructions; undefined when they are not of the standard shape. */
export function idleFirstLook(instructions: string): FirstLook | undefined {
  const parts = firstLookParts(instructions);
  if (!parts) return undefined;
  return { instructions: parts.map((p) => p.text).join(""), budget: LEAN_BUDGET, build: leanContext };
}
