// The workspace files of one mind (the sandbox's persistent filesystem).
import { FileRecord, type WorkspaceStore } from "../../mind/state/state";
import type { ReverieDb } from "../db/db";
import { getMind } from "./minds";

export function mindFiles(db: ReverieDb, mindId: string): WorkspaceStore {
  return {
    async loadAll() {
      return parsed(await db.files.where("mind_id").equals(mindId).toArray());
    },
    loadUnder: (dir) => filesWithin(db, mindId, dir),
    async save(put, remove) {
      await db.transaction("rw", db.files, async () => {
        if (remove.length) await db.files.bulkDelete(remove.map((p) => [mindId, p] as [string, string]));
        if (put.length) await db.files.bulkPut(put.map((r) => ({ ...r, mind_id: mindId })));
      });
    },
  };
}

/** The saved rows under `dir` (at any depth), read without the rest of the workspace. */
export async function filesUnder(db: ReverieDb, mindId: string, dir: string): Promise<FileRecord[]> {
  return parsed(await db.files.where("[mind_id+path]").between([mindId, `${dir}/`], [mindId, `${dir}/\uffff`]).toArray());
}

/** The rows at `dir` and under it (a folder's own row with its contents). */
export async function filesWithin(db: ReverieDb, mindId: string, dir: string): Promise<FileRecord[]> {
  // The key range also holds siblings that sort between "dir" and "dir/" ("dir.old"): left out.
  const rows = parsed(await db.files.where("[mind_id+path]").between([mindId, dir], [mindId, `${dir}/\uffff`], true, true).toArray());
  return rows.filter((r) => r.path === dir || r.path.startsWith(`${dir}/`));
}

/** A row that does not parse is left out rather than breaking the workspace. */
function parsed(rows: unknown[]): FileRecord[] {
  return rows.flatMap((row): FileRecord[] => {
    const r = FileRecord.safeParse(row);
    return r.success ? [r.data] : [];
  });
}

/** One workspace entry as the Files view lists it: everything but the bytes. */
export interface WorkspaceEntry {
  path: string;
  kind: FileRecord["kind"];
  /** Bytes of a file (0 for a directory or a symlink). */
  size: number;
  target?: string;
  mtime: number;
}

/**
 * Every path of a mind's workspace, without the data. IndexedDB gives whole
 * rows, so the bytes are read anyway; `each` lets each row's go as soon as it
 * is measured instead of holding the whole workspace in one array.
 */
export async function listWorkspace(db: ReverieDb, mindId: string): Promise<WorkspaceEntry[]> {
  const out: WorkspaceEntry[] = [];
  await db.files
    .where("mind_id")
    .equals(mindId)
    .each((row) => {
      const r = FileRecord.safeParse(row);
      if (!r.success) return;
      const { path, kind, data, target, mtime } = r.data;
      out.push({ path, kind, size: kind === "file" ? (data?.length ?? 0) : 0, mtime, ...(target === undefined ? {} : { target }) });
    });
  return out;
}

/** One workspace entry with its bytes; null when it is not there (or its row is damaged). */
export async function readWorkspaceFile(db: ReverieDb, mindId: string, path: string): Promise<FileRecord | null> {
  const row = await db.files.get([mindId, path]);
  if (!row) return null;
  const r = FileRecord.safeParse(row);
  return r.success ? r.data : null;
}

/** A normalized absolute path: no empty, "." or ".." segments, no trailing slash. */
const CLEAN_PATH = /^(\/(?!\.{1,2}(\/|$))[^/]+)+$/;

/**
 * The human edits a file of a stopped mind. A running worker holds the
 * workspace in memory and would overwrite the edit on its next save, so this
 * refuses while the mind's `running` flag is set; the worker loads the files
 * when it starts, so the edit is what the mind sees after the next Start.
 * An existing file keeps its mode; a new one needs its directory to exist.
 */
export async function saveWorkspaceFile(db: ReverieDb, mindId: string, path: string, text: string, now = Date.now()): Promise<void> {
  if (!CLEAN_PATH.test(path)) throw new Error(`"${path}" is not a plain absolute path.`);
  await db.transaction("rw", db.minds, db.files, async () => {
    const mind = await getMind(db, mindId);
    if (!mind) throw new Error(`No mind ${mindId} in this browser.`);
    if (mind.running) throw new Error(`${mind.name} is running: stop it before editing its files.`);
    const existing = await readWorkspaceFile(db, mindId, path);
    if (existing && existing.kind !== "file") throw new Error(`${path} is a ${existing.kind === "dir" ? "directory" : "symlink"}, not a file.`);
    if (!existing) {
      const parent = await readWorkspaceFile(db, mindId, path.slice(0, path.lastIndexOf("/")));
      if (parent?.kind !== "dir") throw new Error(`There is no directory for ${path}.`);
    }
    const record: FileRecord = { path, kind: "file", data: new TextEncoder().encode(text), mode: existing?.mode ?? 0o644, mtime: now };
    await db.files.put({ ...record, mind_id: mindId });
  });
}
