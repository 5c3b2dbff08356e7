// A scratch copy of a workspace, in memory: what a `self try` runs over, so
// nothing its re-run wakes do touches the mind's real files. Files, folders
// and links are copied with their modes; nothing is ever saved.
import { InMemoryFs, type IFileSystem } from "just-bash";
import { justBashSandbox, type SandboxOptions } from "./just-bash-sandbox";
import type { ShellPort } from "../mind/ports";

export async function scratchCopy(fs: IFileSystem, opts: { maxBytes?: number } = {}): Promise<IFileSystem> {
  const copy = new InMemoryFs(undefined, opts.maxBytes ? { maxTotalBytes: opts.maxBytes } : undefined);
  // Parents before children.
  const paths = fs.getAllPaths().sort((a, b) => a.length - b.length);
  for (const path of paths) {
    if (path === "/") continue;
    const st = await fs.lstat(path).catch(() => null);
    if (!st) continue;
    if (st.isSymbolicLink) await copy.symlink(await fs.readlink(path), path).catch(() => undefined);
    else if (st.isDirectory) await copy.mkdir(path, { recursive: true });
    else copy.writeFileSync(path, await fs.readFileBuffer(path), undefined, { mode: st.mode, mtime: st.mtime });
  }
  return copy;
}

/** A sandbox over a scratch copy of `fs` as it is now, bounded by the mind's workspace limit; its writes are never saved. */
export async function scratchSandbox(fs: IFileSystem, opts: Omit<SandboxOptions, "fs" | "flush">): Promise<ShellPort> {
  const copy = await scratchCopy(fs, { maxBytes: opts.permissions.limits.max_workspace_bytes });
  return justBashSandbox({ ...opts, fs: copy, flush: async () => undefined });
}
