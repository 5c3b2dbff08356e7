// One mind's space in the WebContainer, and what the page knows is in it:
// path → bytes for every synced file. Keeping the bytes (not a hash) lets the
// page compare exactly what a process changed, and write the space again by
// itself after the container is torn down and booted again.
import type { SpawnRequest } from "../ports";
import type { WebContainerFsLike } from "./api";
import { inSpace, synced, workspacePath, workspaceRelative } from "./paths";

type FileChange = SpawnRequest["files"][number];

export class SpaceMirror {
  readonly known = new Map<string, Uint8Array>();
  /** The boot the space was last written in; another boot starts empty. */
  epoch = 0;
  /** The next request brings the whole workspace: remove what it does not list. */
  full = true;

  constructor(readonly space: string) {}

  /** Write every known file (after a re-boot). */
  async restore(fs: WebContainerFsLike): Promise<void> {
    await fs.mkdir(this.space, { recursive: true });
    for (const [rel, data] of this.known) await write(fs, inSpace(this.space, rel), data);
  }

  /** Copy the worker's changes in: removals first, so a file may become a folder and back. */
  async apply(fs: WebContainerFsLike, files: FileChange[]): Promise<void> {
    const changes = files.flatMap((f) => {
      const rel = workspaceRelative(f.path);
      return rel !== null && synced(rel) ? [{ rel, data: f.data }] : [];
    });
    for (const { rel } of changes.filter((c) => c.data === null)) await this.remove(fs, rel);
    for (const { rel, data } of changes) {
      if (data === null || sameBytes(this.known.get(rel), data)) continue;
      await write(fs, inSpace(this.space, rel), data);
      this.known.set(rel, data);
    }
    if (this.full) {
      const listed = new Set(changes.map((c) => c.rel));
      for (const rel of [...this.known.keys()]) if (!listed.has(rel)) await this.remove(fs, rel);
      this.full = false;
    }
  }

  /** What changed in the space since the page last knew it, as worker paths (null: removed). */
  async readBack(fs: WebContainerFsLike): Promise<FileChange[]> {
    const found = new Map<string, Uint8Array>();
    await walk(fs, this.space, "", found);
    const changed: FileChange[] = [];
    for (const [rel, data] of found) {
      if (sameBytes(this.known.get(rel), data)) continue;
      this.known.set(rel, data);
      changed.push({ path: workspacePath(rel), data });
    }
    for (const rel of [...this.known.keys()]) {
      if (found.has(rel)) continue;
      this.known.delete(rel);
      changed.push({ path: workspacePath(rel), data: null });
    }
    return changed;
  }

  private async remove(fs: WebContainerFsLike, rel: string): Promise<void> {
    await fs.rm(inSpace(this.space, rel), { force: true, recursive: true });
    for (const k of [...this.known.keys()]) if (k === rel || k.startsWith(`${rel}/`)) this.known.delete(k);
  }
}

async function write(fs: WebContainerFsLike, path: string, data: Uint8Array): Promise<void> {
  const slash = path.lastIndexOf("/");
  if (slash > 0) await fs.mkdir(path.slice(0, slash), { recursive: true });
  await fs.writeFile(path, data);
}

async function walk(fs: WebContainerFsLike, space: string, rel: string, found: Map<string, Uint8Array>): Promise<void> {
  let entries;
  try {
    entries = await fs.readdir(inSpace(space, rel), { withFileTypes: true });
  } catch {
    return; // gone while we looked (or never made): nothing in it
  }
  for (const e of entries) {
    const child = rel === "" ? e.name : `${rel}/${e.name}`;
    if (!synced(child)) continue;
    if (e.isDirectory()) await walk(fs, space, child, found);
    else if (e.isFile()) found.set(child, await fs.readFile(inSpace(space, child)));
  }
}

export function sameBytes(a: Uint8Array | undefined, b: Uint8Array): boolean {
  if (!a || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
