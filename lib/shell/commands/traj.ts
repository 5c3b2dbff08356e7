// traj tail [-n N]   the newest steps of the mind's own trajectory, one a line
import type { AgentTools } from "../../mind/ports";
import { stepLine } from "../../trajectory/summary";
import { fail, ok, type CommandResult } from "./result";

const USAGE = "usage: traj tail [-n N]";
const MAX_N = 500;

export async function traj(args: string[], tools: AgentTools): Promise<CommandResult> {
  const [sub, ...rest] = args;
  if (sub === "--help" || sub === "help") return ok(`${USAGE}\n`);
  if (sub !== "tail") return fail(sub ? `traj: unknown subcommand '${sub}'\n${USAGE}` : USAGE, 2);
  let n = 20;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] ?? "";
    const value = a === "-n" ? rest[++i] : a.startsWith("-n") ? a.slice(2) : undefined;
    if (value === undefined) return fail(`traj tail: unexpected '${a}'\n${USAGE}`, 2);
    n = Number(value);
    if (!Number.isInteger(n) || n < 1) return fail(`traj tail: -n takes a whole number above 0, not '${value}'`, 2);
  }
  const steps = await tools.tail(Math.min(n, MAX_N));
  return ok(steps.map((s) => `${stepLine(s)}\n`).join(""));
}
