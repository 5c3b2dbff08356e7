// One memory as `mem` keeps it: /workspace/memory/<id>.md, front matter with
// its time and tags, then the text. Shared by the `mem` command and the
// mind's Memory tab, so both read a hand-edited file the same way.
import { fieldList, fieldText, formatFrontMatter, parseFrontMatter, type FrontMatterValue } from "./front-matter";
import { WORKSPACE } from "./limits";

export const MEMORY_DIR = `${WORKSPACE}/memory`;

export interface Memory {
  id: string;
  /** ISO 8601 as written (a hand-written time may not parse). */
  created: string;
  tags: string[];
  text: string;
  /** Who added it, when a person did (from the Memory tab; the mind's own have none). */
  by?: string;
  /** When a person last edited it, and who. */
  edited?: { at: string; by: string };
}

/** A memory file's path, when `path` is one (a `.md` file directly in the memory folder). */
export function memoryIdOf(path: string): string | null {
  const name = path.startsWith(`${MEMORY_DIR}/`) ? path.slice(MEMORY_DIR.length + 1) : "";
  return name.endsWith(".md") && name.length > 3 && !name.includes("/") ? name.slice(0, -3) : null;
}

/** `fileTime`: the file's own time (ISO 8601), for a file without a `created` field. */
export function parseMemory(id: string, text: string, fileTime: string): Memory {
  const { fields, body } = parseFrontMatter(text);
  const by = fieldText(fields, "by");
  const edited = fieldText(fields, "edited");
  return {
    id,
    created: fieldText(fields, "created") ?? fileTime,
    tags: fieldList(fields, "tags"),
    text: body,
    ...(by ? { by } : {}),
    ...(edited ? { edited: { at: edited, by: fieldText(fields, "edited_by") ?? "" } } : {}),
  };
}

/** Newest first; a time that does not parse counts as the oldest; ties by id. */
export function newestFirst(memories: readonly Memory[]): Memory[] {
  const time = (m: Memory) => Date.parse(m.created) || 0;
  return [...memories].sort((a, b) => time(b) - time(a) || (a.id < b.id ? -1 : 1));
}

/** Whether a memory's text or tags contain `needle`, in any case (what `mem search` finds). */
export function memoryMatches(m: Memory, needle: string): boolean {
  return `${m.text}\n${m.tags.join("\n")}`.toLowerCase().includes(needle.toLowerCase());
}

/** Where memory `id` is kept. */
export const memoryPath = (id: string) => `${MEMORY_DIR}/${id}.md`;

/** Eight hex characters of a uuid: short enough to type; redrawn while `taken` (undefined when none was free). */
export async function freeMemoryId(taken: (id: string) => Promise<boolean>, ids: { uuid(): string }): Promise<string | undefined> {
  for (let tries = 0; tries < 10; tries++) {
    const id = ids.uuid().replace(/-/g, "").slice(0, 8);
    if (!(await taken(id))) return id;
  }
  return undefined;
}

/** A memory file's text: its front matter (the fields given, in order), then the text with one final newline. */
export function memoryFileText(fields: Record<string, FrontMatterValue>, text: string): string {
  return formatFrontMatter(fields, `${text.replace(/\s+$/, "")}\n`);
}

/** Tags a memory's front matter can hold: no brackets or newlines (they would end the list). */
export const badTag = (t: string) => /[[\]\n]/.test(t);
