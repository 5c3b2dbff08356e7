// What an idle (scheduled) wake's first model call is given: lean
// instructions (lib/mind/run/prompt.ts firstLookParts) and a lean context
// (lib/context/lean.ts) within LEAN_BUDGET. The inner life hands this to its
// run; bench/context measures what this returns, so the figure is what the
// mind sends.
import type { BuildOptions, BuiltContext, ContextSource } from "../../context/build";
import { LEAN_BUDGET, leanContext } from "../../context/lean";
import type { SystemPart } from "../../context/replay";
import { firstLookParts } from "../run/prompt";

export interface FirstLook {
  /** The first call's instructions (later calls of the run get the standing ones). */
  instructions: string;
  /** Its parts (joined, the instructions), for "what the model saw". */
  system: SystemPart[];
  /** The first call's token budget for its messages. */
  budget: number;
  /** How the first call's context is cut from the stream (buildContext's options, the budget among them). */
  build: (src: ContextSource, opts: BuildOptions) => BuiltContext;
}

/** The first look of a scheduled wake, made from the standing instructions; undefined when they are not of the standard shape. */
export function idleFirstLook(instructions: string): FirstLook | undefined {
  const parts = firstLookParts(instructions);
  if (!parts) return undefined;
  return leanLook(parts);
}

/** The first look of a scheduled wake, given its instructions' parts (rendered from the mind's own first-look.md). */
export function leanLook(system: SystemPart[]): FirstLook {
  return { instructions: system.map((p) => p.text).join(""), system, budget: LEAN_BUDGET, build: leanContext };
}
