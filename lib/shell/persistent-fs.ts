// The mind's workspace filesystem: an in-memory filesystem (fast, what bash
// sees) written through to a FileStore (IndexedDB in the browser). Mutations
// mark paths dirty; `flush()` after each exec saves exactly what changed.
// A mutation is handed the path where it lands, so one made through a linked
// folder changes (and saves) the file there, not a hidden entry behind the link.
import { InMemoryFs, type IFileSystem } from "just-bash";
import type { FileRecord, FileStore } from "../mind/state/state";
import { landingPath } from "./landing-path";

export type { FileRecord, FileStore };

type FsMethod = keyof IFileSystem;
const MUTATING = new Set<FsMethod>(["writeFile", "appendFile", "mkdir", "rm", "cp", "mv", "chmod", "symlink", "link", "utimes"]);

const under = (path: string, root: string) => path === root || path.startsWith(root === "/" ? "/" : `${root}/`);

/** Build the workspace from what was saved, and return it with its flush. `maxBytes` caps what its files may hold. */
export async function openPersistentFs(store: FileStore, opts: { maxBytes?: number } = {}): Promise<{ fs: IFileSystem; flush: () => Promise<void> }> {
  const mem = new InMemoryFs(undefined, opts.maxBytes ? { maxTotalBytes: opts.maxBytes } : undefined);
  const saved = new Set<string>();
  const records = await store.loadAll();
  // Parents before children, so mkdir and writes find their directories.
  records.sort((a, b) => a.path.length - b.path.length);
  for (const r of records) {
    saved.add(r.path);
    if (r.kind === "dir") await mem.mkdir(r.path, { recursive: true });
    else if (r.kind === "symlink") await mem.symlink(r.target ?? "", r.path).catch(() => undefined);
    else mem.writeFileSync(r.path, r.data ?? new Uint8Array(), undefined, { mode: r.mode, mtime: new Date(r.mtime) });
  }
  // mkdir takes no mode or time: give directories theirs back once their children exist.
  for (const r of records) {
    if (r.kind !== "dir") continue;
    await mem.chmod(r.path, r.mode).catch(() => undefined);
    await mem.utimes(r.path, new Date(r.mtime), new Date(r.mtime)).catch(() => undefined);
  }

  const dirty = new Set<string>();
  /** The call's paths where they land (through a linked folder: landing-path.ts), each marked dirty. */
  const landArgs = async (method: FsMethod, args: unknown[]): Promise<unknown[]> => {
    const at = method === "symlink" ? [1] : method === "cp" || method === "mv" || method === "link" ? [0, 1] : [0];
    const landed = [...args];
    for (const i of at) {
      const p = landed[i];
      if (typeof p !== "string") continue;
      const path = await landingPath(mem, p);
      landed[i] = path;
      dirty.add(path);
    }
    return landed;
  };

  const fs = new Proxy(mem, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      if (!MUTATING.has(prop as FsMethod)) return value.bind(target);
      return async (...args: unknown[]) => value.apply(target, await landArgs(prop as FsMethod, args));
    },
  }) as IFileSystem;

  async function recordOf(path: string): Promise<FileRecord | null> {
    const st = await mem.lstat(path).catch(() => null);
    if (!st) return null;
    const base = { path, mode: st.mode, mtime: st.mtime.getTime() };
    if (st.isSymbolicLink) return { ...base, kind: "symlink", target: await mem.readlink(path) };
    if (st.isDirectory) return { ...base, kind: "dir" };
    return { ...base, kind: "file", data: await mem.readFileBuffer(path) };
  }

  async function flush(): Promise<void> {
    if (dirty.size === 0) return;
    const roots = [...dirty];
    dirty.clear();
    const all = mem.getAllPaths();
    const put: FileRecord[] = [];
    const seen = new Set<string>();
    for (const root of roots) {
      for (const p of all) {
        if (!under(p, root) || seen.has(p)) continue;
        seen.add(p);
        const rec = await recordOf(p);
        if (rec) put.push(rec);
      }
    }
    const live = new Set(all);
    const remove = [...saved].filter((p) => !live.has(p) && roots.some((r) => under(p, r)));
    try {
      await store.save(put, remove);
    } catch (e) {
      // Keep them dirty so the next flush tries again, then report.
      for (const r of roots) dirty.add(r);
      throw e;
    }
    for (const r of put) saved.add(r.path);
    for (const p of remove) saved.delete(p);
  }

  return { fs, flush };
}
