// What a mind keeps with `mem` and `focus`, read from its saved workspace
// (the same rows the Files tab reads) and parsed by the commands' own parsers.
import { FOCUS_FILE, focusLines, openThenDone, parseGoals, type Goal } from "../../shell/focus-file";
import { MEMORY_DIR, memoryIdOf, memoryMatches, newestFirst, parseMemory, type Memory } from "../../shell/memory-file";
import type { ReverieDb } from "../db/db";
import { readWorkspaceFile } from "./files";

export interface MindNotes {
  /** Open goals first, then done ones. */
  goals: Goal[];
  /** Newest first. */
  memories: Memory[];
}

// A file that is not valid UTF-8 is still shown, with replacement characters, as the Files tab shows it.
const decode = (data: Uint8Array | undefined) => new TextDecoder().decode(data ?? new Uint8Array());

export async function readMindNotes(db: ReverieDb, mindId: string): Promise<MindNotes> {
  const focus = await readWorkspaceFile(db, mindId, FOCUS_FILE);
  const goals = focus?.kind === "file" ? openThenDone(parseGoals(focusLines(decode(focus.data)))) : [];
  // Only the memory folder's keys (paths under it sort between "<dir>/" and "<dir>/\uffff"), then each file, parsed.
  const keys = await db.files.where("[mind_id+path]").between([mindId, `${MEMORY_DIR}/`], [mindId, `${MEMORY_DIR}/\uffff`], true, true).primaryKeys();
  const memories: Memory[] = [];
  for (const [, path] of keys) {
    const id = memoryIdOf(path);
    const file = id === null ? null : await readWorkspaceFile(db, mindId, path);
    if (id !== null && file?.kind === "file") memories.push(parseMemory(id, decode(file.data), new Date(file.mtime).toISOString()));
  }
  return { goals, memories: newestFirst(memories) };
}

/** Goals and memories whose text (or a memory's tags) contain `query`, in any case; all of them for a blank query. */
export function filterNotes(notes: MindNotes, query: string): MindNotes {
  const q = query.trim().toLowerCase();
  if (!q) return notes;
  return {
    goals: notes.goals.filter((g) => g.goal.toLowerCase().includes(q)),
    memories: notes.memories.filter((m) => memoryMatches(m, q)),
  };
}

