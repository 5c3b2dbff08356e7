// isKind without the schemas. schema.ts builds every kind's zod schema when it
// loads (zod and all: a fifth of a cold `reverie context`); a module that only
// narrows steps it was handed (the context's projection, a step's one-line
// rendering) imports this one instead, and loads none of it. schema.ts keeps
// its own isKind for its many importers: it cannot re-export this one, whose
// types come from it.
import type { KnownKind, Step, StepOf } from "./schema";

/** Narrow a step to a known kind: `if (isKind(step, "message")) step.from …`. Steps come parsed, so the type is their schema's. */
export function isKind<K extends KnownKind>(step: Step, kind: K): step is StepOf<K> {
  return step.type === kind;
}
