// Which workspace files the runtime still needs, on the worker's side.
//
// The simplest correct rule: remember a fingerprint (size and a 53-bit hash)
// of every synced file as the runtime has it, walk /workspace before each
// spawn, and send what differs (null for what is gone). The first spawn so
// sends the whole workspace, and the page treats that first request as the
// complete list (SpaceMirror.full). The walk reads the in-memory workspace,
// which is cheap beside a process start in the container; it needs no hook
// in persistent-fs, whose dirty set is cleared by every flush anyway.
//
// One sync per runtime port (the worker's one bridge): the page keeps one
// mirror per worker it talks to, so their idea of "first" agrees.
import type { IFileSystem } from "just-bash";
import type { SpawnRequest } from "../ports";
import { synced, workspacePath, workspaceRelative } from "./paths";

type FileChange = SpawnRequest["files"][number];

export interface SyncBatch {
  files: FileChange[];
  /** Every synced file's fingerprint at the time of the walk. */
  readonly snapshot: Map<string, string>;
}

export class WorkspaceSync {
  /** rel path → fingerprint, of what the runtime holds. */
  private held = new Map<string, string>();

  /** The files to send: changed since the runtime last took a batch. */
  async collect(fs: IFileSystem): Promise<SyncBatch> {
    const found = new Map<string, Uint8Array>();
    await walk(fs, "", found);
    const snapshot = new Map<string, string>();
    const files: FileChange[] = [];
    for (const [rel, data] of found) {
      const print = fingerprint(data);
      snapshot.set(rel, print);
      if (this.held.get(rel) !== print) files.push({ path: workspacePath(rel), data });
    }
    for (const rel of this.held.keys()) if (!found.has(rel)) files.push({ path: workspacePath(rel), data: null });
    return { files, snapshot };
  }

  /** The runtime took the batch. (Not called when it did not: the same files go again next time.) */
  commit(batch: SyncBatch): void {
    this.held = new Map(batch.snapshot);
  }

  /** Files the runtime sent back, now written here too: both sides hold them. */
  record(files: FileChange[]): void {
    for (const f of files) {
      const rel = workspaceRelative(f.path);
      if (!rel) continue;
      if (f.data === null) {
        for (const k of [...this.held.keys()]) if (k === rel || k.startsWith(`${rel}/`)) this.held.delete(k);
      } else this.held.set(rel, fingerprint(f.data));
    }
  }
}

const syncs = new WeakMap<object, WorkspaceSync>();

/** The sync that goes with this runtime port. */
export function syncFor(runtime: object): WorkspaceSync {
  let s = syncs.get(runtime);
  if (!s) syncs.set(runtime, (s = new WorkspaceSync()));
  return s;
}

async function walk(fs: IFileSystem, rel: string, found: Map<string, Uint8Array>): Promise<void> {
  const dir = workspacePath(rel);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const child = rel === "" ? name : `${rel}/${name}`;
    if (!synced(child)) continue;
    const st = await fs.lstat(workspacePath(child)).catch(() => null);
    if (st?.isDirectory) await walk(fs, child, found);
    else if (st?.isFile) found.set(child, await fs.readFileBuffer(workspacePath(child)));
  }
}

/** Size and cyrb53 (a fast 53-bit string hash, here over bytes): equal prints mean equal files, for any practical purpose. */
export function fingerprint(data: Uint8Array): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < data.length; i++) {
    const b = data[i] ?? 0;
    h1 = Math.imul(h1 ^ b, 2654435761);
    h2 = Math.imul(h2 ^ b, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `${data.length}:${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}`;
}
