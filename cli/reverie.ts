// reverie check <path> [--json]                  count what a trajectory folder, file or archive holds (cli/inspect.ts)
// reverie show <path> <step-id|8-hex-prefix> [--full]   print one step (with its blob, --full)
// reverie context <path> [--budget TOKENS] [--json]   what the mind's model is shown of it (cli/context.ts)
// reverie sh [--workspace DIR] [--traj FILE] -c SCRIPT   run a script in the built-in sandbox (cli/sh.ts)
// reverie eval <scenario.json> --model M [...]   play a scenario on a simulated clock and score it (cli/eval.ts)
// (runner and minds, the server's verbs, bin/reverie.mjs runs from lib/server under tsx.)
//
// The usage, and every `--help`, is cli/help.mjs's answer, as the binary
// gives it before loading this module. Each verb is imported when it runs:
// bin/reverie.mjs loads this module from the bundle (bin/cli-bundle.mjs),
// where every verb is its own chunk, so `check` never parses the tokenizer.
import { ArchiveError } from "../lib/archive/types";
import { parseContextArgs } from "./context-args";
import { helpAnswer, verbUsage, type VerbName } from "./help.mjs";
import { ArgumentError, helpOrProblem, type Out } from "./out";

const std: Out = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

export async function main(argv: string[], io: Out = std): Promise<number> {
  const answer = helpAnswer(argv);
  if (answer) {
    if ("out" in answer) io.out(answer.out);
    else io.err(answer.err);
    return answer.code;
  }
  // helpAnswer has answered anything that is not a verb.
  const [command, ...rest] = argv as [VerbName, ...string[]];
  const usage = verbUsage(command);
  try {
    // sh and context take options with values (sh a script that may look like options): they read their own arguments.
    if (command === "sh") return await (await import("./sh")).sh(rest, io, usage);
    if (command === "eval") {
      const { evalScenario, parseEvalArgs } = await import("./eval");
      const args = parseEvalArgs(rest);
      if (args === "help" || "problem" in args) return helpOrProblem(args, io, usage);
      // Ctrl-C ends the play: what was played is scored and printed.
      const interrupt = new AbortController();
      const onInt = () => interrupt.abort();
      process.once("SIGINT", onInt);
      try {
        return await evalScenario(args, io, usage, interrupt.signal);
      } finally {
        process.off("SIGINT", onInt);
      }
    }
    if (command === "context") {
      const args = parseContextArgs(rest);
      if (args === "help" || "problem" in args) return helpOrProblem(args, io, usage);
      return await (await import("./context")).context(args, io);
    }
    if (command === "check" || command === "show") return await checkOrShow(command, rest, io, usage);
    io.err(`reverie: ${command} is the server's; run it as \`npx reverie ${command}\` (bin/reverie.mjs runs it from lib/server)\n`);
    return 2;
  } catch (e) {
    io.err(`reverie: ${describe(e)}\n`);
    return e instanceof ArgumentError ? 2 : 1;
  }
}

const OPTIONS = { check: ["--json"], show: ["--full"] };

async function checkOrShow(command: "check" | "show", rest: string[], io: Out, usage: string): Promise<number> {
  const flags = rest.filter((a) => a.startsWith("-") && a !== "-");
  const args = rest.filter((a) => !flags.includes(a));
  const unknown = [...new Set(flags)].filter((f) => !OPTIONS[command].includes(f));
  if (unknown.length) return helpOrProblem({ problem: `unknown option ${unknown.join(", ")}` }, io, usage);
  const wanted = command === "check" ? 1 : 2;
  if (args.length > wanted) return helpOrProblem({ problem: `unexpected argument '${args[wanted]}'` }, io, usage);
  if (args.length < wanted) return helpOrProblem({ problem: command === "check" ? "check needs a <path>" : `show needs a <path> and a step id or prefix${args.length ? " after it" : ""}` }, io, usage);
  const [path, id] = args as [string, string];
  if (command === "check") return (await import("./inspect")).check(path, flags.includes("--json"), io);
  return (await import("./inspect")).show(path, id, flags.includes("--full"), io);
}

function describe(e: unknown): string {
  if (e instanceof ArchiveError || e instanceof ArgumentError) return e.message;
  const code = (e as { code?: string }).code;
  if (code === "ENOENT") return `no such file or folder: ${(e as { path?: string }).path ?? ""}`;
  return e instanceof Error ? e.message : String(e);
}
