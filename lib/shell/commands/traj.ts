// traj: read the mind's own trajectory (the one this shell runs in). Read-only.
import type { Step } from "../../trajectory/schema";
import { stepLine } from "../../trajectory/summary";
import type { TrajPort } from "../ports";
import { defineAgentCommand, type AgentCommand, fail, ok, usageError } from "./command";

const MAX_N = 500;

const USAGE = `usage: traj tail [-n N]            the newest N steps of this trajectory (default 20, at most ${MAX_N})
       traj show <id|prefix> [--full] one step in full (--full: large outputs too)
       traj search <text> [-n N]     steps whose text contains <text>, newest first (default 20)
       traj count                    how many steps this trajectory has`;

/** `-n N` among `args`; returns the number and the other words, or a problem. */
function takeN(args: string[], fallback: number): { n: number; rest: string[] } | string {
  let n = fallback;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? "";
    const value = a === "-n" ? args[++i] : /^-n\d+$/.test(a) ? a.slice(2) : undefined;
    if (value === undefined) {
      rest.push(a);
      continue;
    }
    n = Number(value);
    if (!Number.isInteger(n) || n < 1) return `-n takes a whole number above 0, not '${value ?? ""}'`;
  }
  return { n: Math.min(n, MAX_N), rest };
}

const lines = (steps: readonly Step[]) => steps.map((s) => `${stepLine(s)}\n`).join("");

async function show(args: string[], traj: TrajPort) {
  const full = args.includes("--full");
  const words = args.filter((a) => a !== "--full");
  const [id, extra] = words;
  if (!id || extra !== undefined) return usageError(traj_, "show takes one step id (or its first 8 characters)");
  if (!/^[0-9a-f-]{4,36}$/i.test(id)) return fail(`traj show: '${id}' is not a step id (hex digits, at least 4)`);
  const found = await traj.find(id.toLowerCase(), 5);
  if (found.length === 0) return fail(`traj show: no step '${id}'`);
  if (found.length > 1) return fail(`traj show: '${id}' matches ${found.length > 4 ? "several" : found.length} steps (${found.map((f) => f.step.step_id.slice(0, 13)).join(", ")}); give more of the id`);
  const { step, trajId } = found[0] as (typeof found)[number];
  const out: Record<string, unknown> = { ...step };
  if (full) {
    for (const field of ["stdout", "stderr"]) {
      const ref = out[`${field}_ref`];
      if (typeof ref !== "string") continue;
      const whole = await traj.blob(ref, trajId);
      if (whole !== undefined) out[field] = whole;
      else out[field] = `${String(out[field])}\n[the rest (${ref}) could not be read]`;
    }
  }
  return ok(`${JSON.stringify(out, null, 2)}\n`);
}

const traj_: AgentCommand<{ traj: TrajPort }> = defineAgentCommand({
  name: "traj",
  summary: "traj tail [-n N] | show <id> [--full] | search <text> | count   read your own trajectory",
  usage: USAGE,
  async run(args, _io, { traj }) {
    const [sub, ...rest] = args;
    if (sub === "--help" || sub === "help") return ok(`${USAGE}\n`);
    switch (sub) {
      case "tail": {
        const r = takeN(rest, 20);
        if (typeof r === "string") return usageError(traj_, r);
        if (r.rest.length) return usageError(traj_, `tail: unexpected '${r.rest[0]}'`);
        return ok(lines(await traj.tail(r.n)));
      }
      case "show":
        return show(rest, traj);
      case "search": {
        const r = takeN(rest, 20);
        if (typeof r === "string") return usageError(traj_, r);
        const text = r.rest.join(" ").trim();
        if (!text) return usageError(traj_, "search needs a text");
        const found = await traj.search(text, r.n);
        return found.length ? ok(lines(found)) : fail(`traj search: nothing matches '${text}'`);
      }
      case "count":
        if (rest.length) return usageError(traj_, `count takes no arguments`);
        return ok(`${await traj.count()}\n`);
      case undefined:
        return usageError(traj_, "a subcommand is needed");
      default:
        return usageError(traj_, `unknown subcommand '${sub}'`);
    }
  },
});

export const traj = traj_;
