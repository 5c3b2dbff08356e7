// `reverie context` on a trajectory.jsonl or a folder on disk, as a script of
// its own: bin/cli-bundle.mjs bundles this module and what it uses into
// context.cjs beside the bundle's chunks, and runs it from V8's code cache
// (runContextScript), so a start neither resolves a dozen modules nor parses
// and compiles them again. It runs cli/context.ts's own context(), so what it
// prints is what the whole bundle prints. What context() imports only when a
// file needs it (an archive's reader; zod, for the lines the compiled checks
// cannot answer and for Headlong's rollups) the script does not carry: the
// bundler makes every dynamic import in it throw. That failure, and any
// other, comes before anything is printed, and the whole bundle then runs
// the command from the start.
import { parseContextArgs } from "./context-args";
import { context } from "./context";
import type { Out } from "./out";

/** The exit code, or undefined when the whole bundle must run the command (arguments it would answer, a file it does not read, an error to word). */
export async function contextFast(argv: readonly string[], io: Out): Promise<number | undefined> {
  if (argv[0] !== "context") return undefined;
  const args = parseContextArgs(argv.slice(1));
  if (args === "help" || "problem" in args) return undefined;
  try {
    return await context(args, io);
  } catch {
    // context() prints only once it has worked the context out: nothing was written.
    return undefined;
  }
}
