// What every subcommand writes to, and how it answers `--help` or bad arguments.
export type Out = { out: (s: string) => void; err: (s: string) => void };

/** Answer `--help` (exit 0) or arguments that do not parse (exit 2). */
export function helpOrProblem(args: "help" | { problem: string }, io: Out, usage: string): number {
  if (args === "help") {
    io.out(`${usage}\n`);
    return 0;
  }
  io.err(`reverie: ${args.problem}\n${usage}\n`);
  return 2;
}

/** The arguments name something the command cannot read (a folder with no trajectory in it): exit 2, as bad arguments. */
export class ArgumentError extends Error {}
