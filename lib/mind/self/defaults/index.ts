// The harness texts a mind ships with, as files: templates with {{slots}},
// rendered by lib/mind/self/self.ts. Imported as text (`with { type: "text" }`):
// Turbopack and esbuild read them natively, the tests through a vite plugin
// (vitest.config.mts), Node under tsx through bin/text-imports.mjs.
import firstLook from "./first-look.md" with { type: "text" };
import instructions from "./instructions.md" with { type: "text" };
import responder from "./responder.md" with { type: "text" };
import summarizer from "./summarizer.md" with { type: "text" };
import type { SelfTexts } from "../self";

export const SELF_DEFAULTS = {
  /** The standing instructions: who the mind is, how it acts, its commands, people, its skills. */
  instructions,
  /** An idle wake's first call: the persona, whether anything needs doing, the commands by name. */
  firstLook,
  /** How the responder answers a message from a person. */
  responder,
  /** How the summarizer writes a stretch of the trajectory into the mind's memory. */
  summarizer,
} as const;

/** A mind's texts as it first has them: its persona as its settings give it, and the shipped defaults. */
export function defaultSelfTexts(persona: string): SelfTexts {
  return {
    "persona.md": { text: persona },
    "instructions.md": { text: instructions },
    "first-look.md": { text: firstLook },
    "responder.md": { text: responder },
    "summarizer.md": { text: summarizer },
  };
}
