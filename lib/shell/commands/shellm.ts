// shellm "<task>": hand one task to a nested run in a forked child trajectory
// and print its answer. The parent's block waits; the nested run's signs of
// life keep the watchdog from taking the wait for a hang.
import { carriedEnv } from "../../mind/run/run";
import type { ActivityPort, ShellmPort } from "../ports";
import { defineAgentCommand, type AgentCommand, fail, ok, usageError } from "./command";

const USAGE = `usage: shellm "<task>"     run a nested shellm on <task> (or stdin) and print its FINAL answer
The nested run forks a child trajectory, sees your recent steps and why you forked it,
and has its own iteration budget; nesting is limited by your permissions.`;

export const shellm: AgentCommand<{ shellm: ShellmPort; activity: ActivityPort }> = defineAgentCommand({
  name: "shellm",
  summary: 'shellm "<task>"   delegate a sub-task to a nested run; prints its answer',
  usage: USAGE,
  async run(args, io, ports) {
    if (args[0] === "--help") return ok(`${USAGE}\n`);
    const task = (args.length ? args.join(" ") : io.stdin).trim();
    if (!task) return usageError(shellm, "a task is needed");
    const env = carriedEnv(Object.fromEntries(io.env));
    const r = await ports.shellm.run(task, { signal: io.signal, beacon: () => ports.activity.beacon(), shell: { env, cwd: io.cwd } });
    if (!r.ok) return fail(r.error);
    return ok(r.answer.endsWith("\n") ? r.answer : `${r.answer}\n`);
  },
});
