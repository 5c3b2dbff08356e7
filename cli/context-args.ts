// `reverie context`'s arguments, read before cli/context.ts is loaded: help
// and mistakes are answered without loading lib/context, zod or the
// tokenizer.

export interface ContextArgs {
  path: string;
  /** Tokens; lib/context's DEFAULT_BUDGET when not given. */
  budget?: number;
  json: boolean;
}

/** The arguments, or the problem with them (shown above the usage, exit 2). */
export function parseContextArgs(argv: string[]): ContextArgs | { problem: string } | "help" {
  let path: string | undefined;
  let budget: string | undefined;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--help" || a === "-h") return "help";
    if (a === "--json") json = true;
    else if (a === "--budget" || a.startsWith("--budget=")) {
      const value = a === "--budget" ? argv[++i] : a.slice("--budget=".length);
      if (value === undefined) return { problem: "--budget needs a number of tokens" };
      budget = value;
    } else if (a.startsWith("-") && a !== "-") return { problem: `unknown option ${a}` };
    else if (path !== undefined) return { problem: `unexpected argument '${a}' (context reads one file)` };
    else path = a;
  }
  if (path === undefined) return { problem: "context needs a trajectory folder, a trajectory.jsonl, .zip or .tar.gz" };
  if (budget !== undefined && !/^[1-9][0-9]*$/.test(budget)) return { problem: `--budget takes a whole number of tokens above 0, not '${budget}'` };
  return { path, json, ...(budget === undefined ? {} : { budget: Number(budget) }) };
}
