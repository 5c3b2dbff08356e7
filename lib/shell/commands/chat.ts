// chat: the mind's side of its conversations. Messages are steps appended in
// the current run; nothing here edits or deletes one.
import type { StepOf } from "../../trajectory/schema";
import { isKind } from "../../trajectory/schema";
import type { ChatPort, TrajPort } from "../ports";
import { defineAgentCommand, type AgentCommand, fail, ok, usageError, type CommandIO } from "./command";

type Message = StepOf<"message">;

/** How far back `chat reply <name>` and `chat history` look. */
const RECENT = 500;
/**
 * How far back `chat people` looks: past the log's window (1000 steps) the
 * tail is one indexed read of the store, so a few thousand steps stay cheap,
 * and someone who wrote long ago is still found.
 */
const PEOPLE_SCAN = 5000;

const USAGE = `usage: chat reply <message-id|name> <text>   answer a message (the id may be its first 8 characters; a name answers their latest message)
       chat send --to <name> <text>          write to someone first
       chat history [--with <name>] [-n N]   recent messages, oldest first (default 20)
       chat people                           who you can reach (who wrote to you, whom you wrote to): latest to speak first,
                                             with their role, when they last spoke and how many messages they sent
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

const minute = (ts: string) => ts.slice(0, 16).replace("T", " ");

const line = (m: Message) => `${m.step_id.slice(0, 8)} ${minute(m.ts)} ${m.from} → ${m.to}${m.reply_to ? ` (re ${m.reply_to.slice(0, 8)})` : ""}: ${m.content.replace(/\s+/g, " ").trim()}\n`;

interface Person {
  name: string;
  /** Their latest message, if they ever wrote. */
  latest?: Message;
  /** Where in the scan they last spoke, or (never spoke) were last written to: the order. */
  at: number;
  sent: number;
}

/** Who sent a message, as the mind should know them: their invite's role, or the owner (the mind's own page). Invites from before roles were members'. */
const roleOf = (m: Message) => m.role ?? (m.source === "invite" ? "member" : "owner");

/** Everyone in these messages but the mind itself: those who spoke, latest first, then those only written to. */
function peopleIn(messages: readonly Message[], selfName: string): Person[] {
  const people = new Map<string, Person>();
  const person = (name: string) => {
    const known = people.get(name);
    if (known) return known;
    const p: Person = { name, at: -1, sent: 0 };
    people.set(name, p);
    return p;
  };
  messages.forEach((m, i) => {
    if (m.from !== selfName) {
      const p = person(m.from);
      p.latest = m;
      p.at = i;
      p.sent++;
    } else if (m.to !== selfName) {
      const p = person(m.to);
      if (!p.latest) p.at = i;
    }
  });
  const spoke = (p: Person) => (p.latest ? 1 : 0);
  return [...people.values()].sort((a, b) => spoke(b) - spoke(a) || b.at - a.at);
}

const personLine = (p: Person) =>
  p.latest
    ? `${p.name} (${roleOf(p.latest)}): last spoke ${minute(p.latest.ts)}, ${p.sent} message${p.sent === 1 ? "" : "s"}\n`
    : `${p.name} (role unknown): never spoke, 0 messages\n`;

async function people({ chat, traj }: Ports) {
  const [steps, total] = await Promise.all([traj.tail(PEOPLE_SCAN), traj.count()]);
  const found = peopleIn(steps.filter((s): s is Message => isKind(s, "message")), chat.selfName);
  const cut = total > steps.length ? `(looked at the last ${steps.length} steps)\n` : "";
  return ok((found.length ? found.map(personLine).join("") : "nobody has written to you yet\n") + cut);
}

export const chat: AgentCommand<Ports> = defineAgentCommand({
  name: "chat",
  summary: "chat reply <id> <text> | send --to <name> <text> | history [--with <name>] | people   talk with people",
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
    if (sub === "people") return rest.length ? usageError(chat, `people: unexpected '${rest[0]}'`) : people(ports);
    return usageError(chat, sub === undefined ? "a subcommand is needed" : `unknown subcommand '${sub}'`);
  },
});
