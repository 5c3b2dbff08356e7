// A scratch copy of a workspace, in memory: what a `self try` runs over, so
// nothing its re-run wakes do touches the mind's real files. Files, folders
// and links are copied with their modes; nothing is ever saved.
import { InMemoryFs, type IFileSystem } from "just-bash";

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
