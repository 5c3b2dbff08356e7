// mem: the mind's long-term notes, one Markdown file each in /workspace/memory,
// so the mind can also read, grep and edit them with ordinary tools. The file
// name is the id; front matter carries the time and tags.
import { badTag, freeMemoryId, MEMORY_DIR, memoryFileText, memoryMatches, memoryPath as pathOf, newestFirst, parseMemory, type Memory } from "../memory-file";
import type { ClockPort, IdsPort } from "../ports";
import { defineAgentCommand, fail, ok, usageError, type CommandIO, type CommandResult } from "./command";

export { MEMORY_DIR };
const MIN_PREFIX = 4;
const LINE_CHARS = 80;

const USAGE = `usage: mem add <text…> [--tags a,b]   remember text (or stdin when no text is given); prints the new id
       mem list                       every memory, newest first: <id> <YYYY-MM-DD HH:MM> <first line>
       mem search <text>              memories whose text or tags contain <text> (any case); exit 1 when none
       mem show <id>                  id:, created: and tags: lines, a blank line, then the text
       mem forget <id>                delete a memory
An <id> may be shortened to a unique prefix of ${MIN_PREFIX} or more characters.
Memories are files ${MEMORY_DIR}/<id>.md; times are UTC.`;

export const mem = defineAgentCommand<{ clock: ClockPort; ids: IdsPort }>({
  name: "mem",
  summary: "mem add|list|search|show|forget   your long-term memory (Markdown files in memory/)",
  usage: USAGE,
  async run(args, io, ports): Promise<CommandResult> {
    if (helpAsked(args)) return ok(`${USAGE}\n`);
    const [sub, ...rest] = args;
    switch (sub) {
      case "add":
        return add(rest, io, ports);
      case "list":
        if (rest.length) return usageError(mem, `list takes no arguments, not '${rest.join(" ")}'`);
        return listing(await readAll(io), "no memories yet; mem add <text> saves one");
      case "search": {
        const text = rest.join(" ").trim();
        if (!text) return usageError(mem, "search needs the text to look for");
        const hits = (await readAll(io)).filter((m) => memoryMatches(m, text));
        return hits.length ? listing(hits, "") : fail(`mem search: nothing matches '${text}'`);
      }
      case "show":
      case "forget": {
        if (rest.length !== 1) return usageError(mem, `${sub} takes one id`);
        const found = await find(io, sub, rest[0] as string);
        if ("exitCode" in found) return found;
        if (sub === "forget") {
          await io.fs.rm(pathOf(found.id));
          return ok(`forgot ${found.id}\n`);
        }
        const tags = found.tags.length ? `tags: ${found.tags.join(", ")}\n` : "";
        return ok(`id: ${found.id}\ncreated: ${found.created}\n${tags}\n${withNewline(found.text)}`);
      }
      case undefined:
        return usageError(mem, "missing subcommand");
      default:
        return usageError(mem, `unknown subcommand '${sub}'`);
    }
  },
});

async function add(args: string[], io: CommandIO, ports: { clock: ClockPort; ids: IdsPort }): Promise<CommandResult> {
  const words: string[] = [];
  let tags: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--tags" || a.startsWith("--tags=")) {
      const value = a === "--tags" ? args[++i] : a.slice("--tags=".length);
      if (value === undefined) return usageError(mem, "--tags needs a value such as --tags work,ideas");
      tags = value.split(",").map((t) => t.trim()).filter((t) => t !== "");
    } else if (a === "--") {
      words.push(...args.slice(i + 1));
      break;
    } else if (a.startsWith("--")) return usageError(mem, `unknown option '${a}'`);
    else words.push(a);
  }
  if (tags.some(badTag)) return fail("mem add: tags cannot contain '[', ']' or newlines");
  const text = (words.length ? words.join(" ") : io.stdin).replace(/\s+$/, "");
  if (!text.trim()) return usageError(mem, "add needs the text to remember, as arguments or on stdin");
  await io.fs.mkdir(MEMORY_DIR, { recursive: true });
  const id = await freeMemoryId((id) => io.fs.exists(pathOf(id)), ports.ids);
  if (!id) return fail("mem add: could not find a free id; try again");
  const created = new Date(ports.clock.now()).toISOString();
  await io.fs.writeFile(pathOf(id), memoryFileText({ id, created, tags }, text));
  return ok(`remembered ${id}\n`);
}

/** Every memory file, newest first. Files without front matter take their time from the file. */
async function readAll(io: CommandIO): Promise<Memory[]> {
  let names: string[];
  try {
    names = await io.fs.readdir(MEMORY_DIR);
  } catch {
    return []; // no memory directory yet
  }
  const out: Memory[] = [];
  for (const name of names) {
    if (!name.endsWith(".md")) continue;
    const path = `${MEMORY_DIR}/${name}`;
    const stat = await io.fs.stat(path);
    if (!stat.isFile) continue;
    out.push(parseMemory(name.slice(0, -3), await io.fs.readFile(path), stat.mtime.toISOString()));
  }
  return newestFirst(out);
}

async function find(io: CommandIO, sub: string, given: string): Promise<Memory | CommandResult> {
  const all = await readAll(io);
  const exact = all.find((m) => m.id === given);
  if (exact) return exact;
  const matches = given.length >= MIN_PREFIX ? all.filter((m) => m.id.startsWith(given)) : [];
  if (matches.length === 1) return matches[0] as Memory;
  if (matches.length > 1) return fail(`mem ${sub}: '${given}' is the start of ${matches.length} ids (${matches.map((m) => m.id).sort().join(", ")}); give more of it`);
  const short = given.length < MIN_PREFIX ? `; a shortened id needs at least ${MIN_PREFIX} characters` : "";
  return fail(`mem ${sub}: no memory '${given}'${short}; mem list shows the ids`);
}

function listing(memories: Memory[], empty: string): CommandResult {
  if (!memories.length) return ok(`${empty}\n`);
  return ok(memories.map((m) => `${m.id} ${stamp(m.created)} ${firstLine(m.text)}\n`).join(""));
}

/** `YYYY-MM-DD HH:MM` in UTC; a hand-written time that does not parse is shown as written. */
function stamp(created: string): string {
  const t = time(created);
  if (Number.isNaN(t)) return created.replace(/\s+/g, "_");
  const iso = new Date(t).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
  const chars = [...line]; // by code point, so multibyte text is not split mid-character
  return chars.length > LINE_CHARS ? `${chars.slice(0, LINE_CHARS - 1).join("")}…` : line;
}

const time = (iso: string) => Date.parse(iso);
const withNewline = (s: string) => (s === "" || s.endsWith("\n") ? s : `${s}\n`);
/** `--help` before any `--`: after it, words are text to remember. */
function helpAsked(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).includes("--help");
}
