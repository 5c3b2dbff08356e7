// reverie check <path> [--json]                  count what a trajectory folder, file or archive holds (cli/inspect.ts)
// reverie show <path> <step-id|8-hex-prefix> [--full]   print one step (with its blob, --full)
// reverie context <path> [--budget TOKENS] [--json]   what the mind's model is shown of it (cli/context.ts)
// reverie sh [--workspace DIR] [--traj FILE] -c SCRIPT   run a script in the built-in sandbox (cli/sh.ts)
// reverie eval <scenario.json> --model M [...]   play a scenario on a simulated clock and score it (cli/eval.ts)
//
// Each verb is imported when it runs: bin/reverie.mjs loads this module from
// the bundle (bin/cli-bundle.mjs), where every verb is its own chunk, so
// `--help` loads the usage text alone and `check` never parses the tokenizer.
import { ArchiveError } from "../lib/archive/types";
import { parseContextArgs } from "./context-args";
import { ArgumentError, helpOrProblem, type Out } from "./out";
import { USAGE } from "./usage";

const std: Out = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

const HELP = new Set(["help", "--help", "-h"]);

export async function main(argv: string[], io: Out = std): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || HELP.has(command)) {
    io.out(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  try {
    // sh and context take flags with values (sh a script that may look like flags): they read their own arguments.
    if (command === "sh") return await (await import("./sh")).sh(rest, io, USAGE);
    if (command === "eval") {
      const { evalScenario, parseEvalArgs } = await import("./eval");
      const args = parseEvalArgs(rest);
      if (args === "help" || "problem" in args) return helpOrProblem(args, io, USAGE);
      // Ctrl-C ends the play: what was played is scored and printed.
      const interrupt = new AbortController();
      const onInt = () => interrupt.abort();
      process.once("SIGINT", onInt);
      try {
        return await evalScenario(args, io, USAGE, interrupt.signal);
      } finally {
        process.off("SIGINT", onInt);
      }
    }
    if (command === "context") {
      const args = parseContextArgs(rest);
      if (args === "help" || "problem" in args) return helpOrProblem(args, io, USAGE);
      return await (await import("./context")).context(args, io);
    }
    return await checkOrShow(command, rest, argv, io);
  } catch (e) {
    io.err(`reverie: ${describe(e)}\n`);
    return e instanceof ArgumentError ? 2 : 1;
  }
}

async function checkOrShow(command: string, rest: string[], argv: string[], io: Out): Promise<number> {
  const flags = new Set(rest.filter((a) => a.startsWith("--")));
  const args = rest.filter((a) => !a.startsWith("--"));
  const known = command === "check" ? ["--json", "--help"] : command === "show" ? ["--full", "--help"] : ["--help"];
  const unknown = [...flags].filter((f) => !known.includes(f));
  if (unknown.length) {
    io.err(`reverie: unknown option ${unknown.join(", ")}\n${USAGE}\n`);
    return 2;
  }
  if (command === "check" && args.length === 1) return (await import("./inspect")).check(args[0] as string, flags.has("--json"), io);
  if (command === "show" && args.length === 2) return (await import("./inspect")).show(args[0] as string, args[1] as string, flags.has("--full"), io);
  if (flags.has("--help")) {
    io.out(`${USAGE}\n`);
    return 0;
  }
  io.err(`reverie: unknown command or arguments: ${argv.join(" ")}\n${USAGE}\n`);
  return 2;
}

function describe(e: unknown): string {
  if (e instanceof ArchiveError || e instanceof ArgumentError) return e.message;
  const code = (e as { code?: string }).code;
  if (code === "ENOENT") return `no such file or folder: ${(e as { path?: string }).path ?? ""}`;
  return e instanceof Error ? e.message : String(e);
}
