// chat: the mind's side of its conversations. Messages are steps appended in
// the current run; nothing here edits or deletes one.
import type { StepOf } from "../../trajectory/schema";
import { isKind } from "../../trajectory/schema";
import type { ChatPort, TrajPort } from "../ports";
import { defineAgentCommand, type AgentCommand, fail, ok, usageError, type CommandIO } from "./command";

type Message = StepOf<"message">;

/** How far back `chat reply <name>` and `chat history` look. */
const RECENT = 500;

const USAGE = `usage: chat reply <message-id|name> <text>   answer a message (the id may be its first 8 characters; a name answers their latest message)
       chat send --to <name> <text>          write to someone first
       chat history [--with <name>] [-n N]   recent messages, oldest first (default 20)
The text may also come on stdin: echo hi | chat send --to ada`;

type Ports = { chat: ChatPort; traj: TrajPort };

const textOf = (words: string[], io: CommandIO) => (words.length > 0 ? words.join(" ") : io.stdin).trim();

async function recentMessages(traj: TrajPort): Promise<Message[]> {
  return (await traj.tail(RECENT)).filter((s): s is Message => isKind(s, "message"));
}

async function resolveTarget(target: string, { chat, traj }: Ports): Promise<Message | string> {
  if (/^[0-9a-f-]{4,36}$/i.test(target)) {
    const found = (await traj.find(target.toLowerCase(), 5)).map((f) => f.step).filter((s): s is Message => isKind(s, "message"));
    if (found.length > 1) return `'${target}' matches several messages; give more of the id`;
    if (found[0]) return found[0];
  }
  const latest = (await recentMessages(traj)).reverse().find((m) => m.from === target && m.from !== chat.selfName);
  return latest ?? `no message '${target}' (give a message id, or the name of someone who wrote to you)`;
}

const line = (m: Message) => `${m.step_id.slice(0, 8)} ${m.ts.slice(0, 16).replace("T", " ")} ${m.from} → ${m.to}${m.reply_to ? ` (re ${m.reply_to.slice(0, 8)})` : ""}: ${m.content.replace(/\s+/g, " ").trim()}\n`;

export const chat: AgentCommand<Ports> = defineAgentCommand({
  name: "chat",
  summary: "chat reply <id> <text> | send --to <name> <text> | history [--with <name>]   talk with people",
  usage: USAGE,
  async run(args, io, ports) {
    const [sub, ...rest] = args;
    if (sub === "--help" || sub === "help") return ok(`${USAGE}\n`);
    if (sub === "reply") {
      if (ports.chat.replyRefusal) return fail(`chat reply: ${ports.chat.replyRefusal}`);
      const [target, ...words] = rest;
      const text = textOf(words, io);
      if (!target || !text) return usageError(chat, "reply needs a message id (or name) and a text");
      const message = await resolveTarget(target, ports);
      if (typeof message === "string") return fail(`chat reply: ${message}`);
      if (message.from === ports.chat.selfName) return fail("chat reply: that message is your own; use chat send --to <name>");
      const sent = await ports.chat.send({ to: message.from, content: text, replyTo: message.step_id });
      return ok(`sent ${sent.step_id.slice(0, 8)} to ${message.from} (reply to ${message.step_id.slice(0, 8)})\n`);
    }
    if (sub === "send") {
      let to: string | undefined;
      const words: string[] = [];
      for (let i = 0; i < rest.length; i++) {
        const a = rest[i] ?? "";
        if (a === "--to") to = rest[++i];
        else if (a.startsWith("--to=")) to = a.slice(5);
        else words.push(a);
      }
      const text = textOf(words, io);
      if (!to || !text) return usageError(chat, "send needs --to <name> and a text");
      const sent = await ports.chat.send({ to, content: text });
      return ok(`sent ${sent.step_id.slice(0, 8)} to ${to}\n`);
    }
    if (sub === "history") {
      let who: string | undefined;
      let n = 20;
      for (let i = 0; i < rest.length; i++) {
        const a = rest[i] ?? "";
        if (a === "--with") who = rest[++i] ?? "";
        else if (a.startsWith("--with=")) who = a.slice(7);
        else if (a === "-n") n = Number(rest[++i]);
        else return usageError(chat, `history: unexpected '${a}'`);
      }
      if (!Number.isInteger(n) || n < 1) return usageError(chat, "history: -n takes a whole number above 0");
      if (who === "") return usageError(chat, "history: --with needs a name");
      const all = (await recentMessages(ports.traj)).filter((m) => !who || m.from === who || m.to === who);
      if (all.length === 0) return ok(who ? `no messages with ${who}\n` : "no messages yet\n");
      return ok(all.slice(-n).map(line).join(""));
    }
    return usageError(chat, sub === undefined ? "a subcommand is needed" : `unknown subcommand '${sub}'`);
  },
});
