// One memory as `mem` keeps it: /workspace/memory/<id>.md, front matter with
// its time and tags, then the text. Shared by the `mem` command and the
// mind's Memory tab, so both read a hand-edited file the same way.
import { fieldList, fieldText, parseFrontMatter } from "./front-matter";
import { WORKSPACE } from "./limits";

export const MEMORY_DIR = `${WORKSPACE}/memory`;

export interface Memory {
  id: string;
  /** ISO 8601 as written (a hand-written time may not parse). */
  created: string;
  tags: string[];
  text: string;
}

/** A memory file's path, when `path` is one (a `.md` file directly in the memory folder). */
export function memoryIdOf(path: string): string | null {
  const name = path.startsWith(`${MEMORY_DIR}/`) ? path.slice(MEMORY_DIR.length + 1) : "";
  return name.endsWith(".md") && name.length > 3 && !name.includes("/") ? name.slice(0, -3) : null;
}

/** `fileTime`: the file's own time (ISO 8601), for a file without a `created` field. */
export function parseMemory(id: string, text: string, fileTime: string): Memory {
  const { fields, body } = parseFrontMatter(text);
  return { id, created: fieldText(fields, "created") ?? fileTime, tags: fieldList(fields, "tags"), text: body };
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
