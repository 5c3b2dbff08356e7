// Pieces of the inner lives the fault tests script for the scripted model
// server (a FAKE at the model's HTTP boundary): a thought's filler text, a
// bash block as the harness parses it, and whole numbers drawn from a seeded
// stream.
export type Rand = () => number;

/** A sentence that, repeated, makes a long slow stream of thought. */
export const FILLER = "The mind turns the question over slowly, looking at it from one side and then another. ";

/** A fenced bash block, as a reply ends with one. */
export const bash = (lines: string[]) => `\n\n\`\`\`bash\n${lines.join("\n")}\n\`\`\``;

/** A whole number from lo to hi (both included). */
export const between = (rand: Rand, lo: number, hi: number) => Math.floor(lo + rand() * (hi - lo + 1));
