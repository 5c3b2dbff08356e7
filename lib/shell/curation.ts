// People curating the mind's memory: its owner (the Memory tab) and its
// operators (their invite page) add, edit and forget memories, and set,
// edit, complete and drop goals. The mind's home applies each change to the
// very files `mem` and `focus` keep (memory/<id>.md, focus.md) and records it
// as one observation (source `curation`) that the mind reads: "Ada (owner)
// edited your memory 1a2b3c4d. It said: … It now says: …". Nothing in the
// trajectory is rewritten: the file changes and the step says how, with the
// text before and after, so the file and its history agree. A change that
// cannot be made (the memory was forgotten meanwhile) changes nothing and is
// recorded as tried, so the person and the mind both learn why.
import type { IFileSystem } from "just-bash";
import * as z from "zod";
import { stampStep, type StepOf } from "../trajectory/schema";
import { fieldList, parseFrontMatter } from "./front-matter";
import { FOCUS_FILE, focusLines, focusText, giveIds, goalLine, newGoalId, parseGoals } from "./focus-file";
import { badTag, freeMemoryId, memoryFileText, memoryPath } from "./memory-file";

/** A memory's or a goal's text, at most: room for a page of notes, not for a dump. */
export const CURATION_TEXT_CHARS = 20_000;
const ID = /^[0-9a-z_-]{1,64}$/i;

/** What a person asks: the Memory tab's and an operator's page's one request. */
export const CurationRequest = z
  .object({
    what: z.enum(["memory", "goal"]),
    op: z.enum(["add", "edit", "done", "forget"]),
    /** The memory's or the goal's id (every op but add). */
    target: z.string().regex(ID, "an id is letters, digits, - and _").optional(),
    text: z.string().max(CURATION_TEXT_CHARS).optional(),
    /** A memory's tags (add, edit: replaces them when given). */
    tags: z.array(z.string().trim().min(1).max(64)).max(20).optional(),
  })
  .superRefine((r, ctx) => {
    const say = (message: string) => ctx.addIssue({ code: "custom", message });
    if ((r.op === "add" || r.op === "edit") && !r.text?.trim()) say(`${r.op === "add" ? "adding" : "editing"} needs the text`);
    if (r.op !== "add" && !r.target) say(`${r.op} needs the id of the ${r.what}`);
    if (r.op === "done" && r.what !== "goal") say("only a goal is marked done");
    if (r.tags && r.what !== "memory") say("only a memory has tags");
    if (r.tags?.some(badTag)) say("a tag cannot contain '[', ']' or a newline");
  });
export type CurationRequest = z.infer<typeof CurationRequest>;

export const CurationRole = z.enum(["owner", "operator"]);
export type CurationRole = z.infer<typeof CurationRole>;

/** A request with who made it and its id (the step's id: applied once, wherever the mind runs). */
export const Curation = z.intersection(CurationRequest, z.object({ id: z.string().min(1).max(64), by: z.string().max(200), role: CurationRole }));
export type Curation = z.infer<typeof Curation>;

/** The files the change touches, wherever they are kept: the sandbox's filesystem, or a stopped mind's saved rows. */
export interface CurationFs {
  /** The file's text; null when there is none. */
  read(path: string): Promise<string | null>;
  /** Write a file, making its folders. */
  write(path: string, text: string): Promise<void>;
  remove(path: string): Promise<void>;
}

/** The sandbox's filesystem (the tab's worker, the server's runner) as a CurationFs. */
export function sandboxCurationFs(fs: IFileSystem): CurationFs {
  return {
    read: async (path) => ((await fs.exists(path)) ? fs.readFile(path) : null),
    async write(path, text) {
      await fs.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await fs.writeFile(path, text);
    },
    remove: (path) => fs.rm(path, { force: true }),
  };
}

export type CurationStep = StepOf<"observation"> & { source: "curation"; failed?: string };

/** Apply `c` to the files and return the step that records it (with `failed` when nothing could change). */
export async function applyCuration(fs: CurationFs, c: Curation, now: number, ids: { uuid(): string }): Promise<CurationStep> {
  const who = c.by.trim() ? `${c.by.trim()} (${c.role})` : c.role === "owner" ? "Your owner" : "An operator";
  const done = c.what === "memory" ? await memory(fs, c, now, ids) : await goal(fs, c, now, ids);
  const content = "failed" in done ? `${who} tried to ${done.tried}, but ${done.failed}; nothing changed.` : `${who} ${done.said}`;
  return stampStep(
    {
      type: "observation",
      source: "curation",
      by: c.by.trim(),
      role: c.role,
      what: c.what,
      op: c.op,
      ...(done.target ? { target: done.target } : {}),
      ...("text" in done && done.text !== undefined ? { text: done.text } : {}),
      ...("before" in done && done.before !== undefined ? { before: done.before } : {}),
      ...("failed" in done ? { failed: done.failed } : {}),
      content,
      step_id: c.id.toLowerCase(),
    },
    { id: c.id, now },
  ) as CurationStep;
}

type Outcome = { target?: string; said: string; text?: string; before?: string } | { target?: string; tried: string; failed: string };

async function memory(fs: CurationFs, c: Curation, now: number, ids: { uuid(): string }): Promise<Outcome> {
  const text = c.text?.replace(/\s+$/, "");
  const tags = c.tags?.map((t) => t.trim());
  const tagWords = (t: readonly string[]) => (t.length ? ` (tags: ${t.join(", ")})` : "");
  if (c.op === "add") {
    // Its id comes from the request's: a request applied twice (its home stopped between the file and the step) finds its own file.
    let id = c.id.replace(/-/g, "").slice(0, 8).toLowerCase();
    const there = await fs.read(memoryPath(id));
    if (there !== null && parseFrontMatter(there).body.replace(/\s+$/, "") !== text) id = (await freeMemoryId(async (x) => (await fs.read(memoryPath(x))) !== null, ids)) ?? "";
    if (!id) return { tried: "add a memory", failed: "no free id could be found" };
    await fs.write(memoryPath(id), memoryFileText({ id, created: new Date(now).toISOString(), tags: tags ?? [], by: c.by.trim() || c.role }, text ?? ""));
    return { target: id, text, said: `added a memory, ${id}${tagWords(tags ?? [])}: ${text}` };
  }
  const id = c.target ?? "";
  const before = await fs.read(memoryPath(id));
  const tried = `${c.op === "edit" ? "edit" : "make you forget"} your memory ${id}`;
  if (before === null) return { target: id, tried, failed: "there is no such memory (forgotten already?)" };
  const { fields, body } = parseFrontMatter(before);
  const old = body.replace(/\s+$/, "");
  if (c.op === "forget") {
    await fs.remove(memoryPath(id));
    return { target: id, before: old, said: `made you forget your memory ${id}, which said: ${old}` };
  }
  // Its other fields stay (a hand-written one's too); its time of making stays; who edited it last is added.
  const nextTags = tags ?? fieldList(fields, "tags");
  await fs.write(memoryPath(id), memoryFileText({ ...fields, id, tags: nextTags, edited: new Date(now).toISOString(), edited_by: c.by.trim() || c.role }, text ?? ""));
  return { target: id, text, before: old, said: `edited your memory ${id}${tagWords(nextTags)}. It said: ${old}\nIt now says: ${text}` };
}

async function goal(fs: CurationFs, c: Curation, now: number, ids: { uuid(): string }): Promise<Outcome> {
  const lines = focusLines((await fs.read(FOCUS_FILE)) ?? "");
  const goals = parseGoals(lines);
  const text = c.text === undefined ? undefined : c.text.replace(/\s+/g, " ").trim();
  if (!giveIds(lines, goals, ids)) return { tried: `${c.op} a goal`, failed: "no free id could be found" };
  if (c.op === "add") {
    // As with a memory: a request applied twice finds its own goal.
    const own = goals.find((g) => g.id === c.id.replace(/-/g, "").slice(-4).toLowerCase() && g.goal === text);
    if (own) return { target: own.id, text, said: `set you a goal, ${own.id}: ${text}` };
    const id = newGoalId(goals, ids);
    if (!id) return { tried: "set you a goal", failed: "no free id could be found" };
    lines.push(goalLine(id, text ?? ""));
    await fs.write(FOCUS_FILE, focusText(lines));
    return { target: id, text, said: `set you a goal, ${id}: ${text}` };
  }
  const id = c.target ?? "";
  const g = goals.find((x) => x.id === id);
  const verb = { edit: "change", done: "mark done", forget: "drop" }[c.op];
  if (!g) return { target: id, tried: `${verb} your goal ${id}`, failed: "there is no such goal (dropped already?)" };
  if (c.op === "done" && g.done) return { target: id, tried: `mark your goal ${id} done`, failed: "it is done already" };
  if (c.op === "forget") lines.splice(g.line, 1);
  else if (c.op === "done") lines[g.line] = goalLine(id, g.goal, new Date(now).toISOString().slice(0, 10));
  else lines[g.line] = `- [${g.done ? "x" : " "}] ${id} ${text}`;
  await fs.write(FOCUS_FILE, focusText(lines));
  if (c.op === "forget") return { target: id, before: g.goal, said: `dropped your goal ${id}: ${g.goal}` };
  if (c.op === "done") return { target: id, before: g.goal, said: `marked your goal ${id} done: ${g.goal}` };
  return { target: id, text, before: g.goal, said: `changed your goal ${id} from "${g.goal}" to "${text}"` };
}
