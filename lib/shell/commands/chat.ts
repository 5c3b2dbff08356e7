// chat reply <message-id|name> <text…>   answer a message
// chat send --to <name> <text…>          write to someone first
// Text may also come on stdin (`echo hi | chat send --to ada`).
import type { AgentTools } from "../../mind/ports";
import { fail, ok, type CommandResult } from "./result";

const USAGE = "usage: chat reply <message-id> <text…> | chat send --to <name> <text…>";

export async function chat(args: string[], stdin: string, tools: AgentTools): Promise<CommandResult> {
  const [sub, ...rest] = args;
  if (sub === "reply") return reply(rest, stdin, tools);
  if (sub === "send") return send(rest, stdin, tools);
  if (sub === "--help" || sub === "help" || sub === undefined) return sub === undefined ? fail(USAGE, 2) : ok(`${USAGE}\n`);
  return fail(`chat: unknown subcommand '${sub}'\n${USAGE}`, 2);
}

function textOf(words: string[], stdin: string): string {
  return (words.length > 0 ? words.join(" ") : stdin).trim();
}

async function reply(args: string[], stdin: string, tools: AgentTools): Promise<CommandResult> {
  const [target, ...words] = args;
  const text = textOf(words, stdin);
  if (!target || !text) return fail(`chat reply: a target and a text are needed\n${USAGE}`, 2);
  const message = await resolveTarget(target, tools);
  if (typeof message === "string") return fail(`chat reply: ${message}`);
  const from = (message as { from?: string }).from ?? "";
  if (from === tools.selfName) return fail("chat reply: that message is your own; use chat send --to <name>");
  const sent = await tools.sendMessage({ to: from, content: text, replyTo: message.step_id });
  return ok(`sent ${sent.step_id.slice(0, 8)} to ${from} (reply to ${message.step_id.slice(0, 8)})\n`);
}

async function resolveTarget(target: string, tools: AgentTools) {
  if (/^[0-9a-f-]{4,36}$/i.test(target)) {
    const found = (await tools.findSteps(target)).filter((s) => s.type === "message");
    if (found.length > 1) return `'${target}' matches several messages; give more of the id`;
    if (found[0]) return found[0];
  }
  const latest = await tools.latestMessageFrom(target);
  return latest ?? `no message '${target}' (give a message id, or the name of someone who wrote to you)`;
}

async function send(args: string[], stdin: string, tools: AgentTools): Promise<CommandResult> {
  let to: string | undefined;
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? "";
    if (a === "--to") to = args[++i];
    else if (a.startsWith("--to=")) to = a.slice(5);
    else words.push(a);
  }
  const text = textOf(words, stdin);
  if (!to || !text) return fail(`chat send: --to <name> and a text are needed\n${USAGE}`, 2);
  const sent = await tools.sendMessage({ to, content: text });
  return ok(`sent ${sent.step_id.slice(0, 8)} to ${to}\n`);
}
