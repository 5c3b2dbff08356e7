// A FileStore over a real folder, for `reverie sh`. Bash only ever sees the
// in-memory fs (lib/shell/persistent-fs.ts); this store is the one bridge to
// the host, so it is tight both ways: loading never follows a symlink, and
// saving writes only under the folder, never through a symlink, and never a
// symlink that points out of it.
import { chmodSync, closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeSync } from "node:fs";
import { posix, resolve, sep } from "node:path";
import type { FileRecord, FileStore } from "../lib/shell/persistent-fs";
import { WORKSPACE } from "../lib/shell/limits";

export class UnsafePathError extends Error {}

// O_NOFOLLOW where the platform has it: the last component is never followed.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Permission bits only: a script's setuid or sticky bits stop at the folder, and the owner keeps read/write (and search on dirs). */
const hostMode = (r: FileRecord) => (r.mode & 0o777) | (r.kind === "dir" ? 0o700 : 0o600);

/** `maxBytes`: what the files may hold together; a bigger folder is refused before it is read (a mistaken `--workspace ~`). */
export function folderStore(root: string, opts: { maxBytes?: number } = {}): FileStore {
  const base = resolve(root);
  mkdirSync(base, { recursive: true });
  // What the folder holds as far as we know: a put equal to it is not written again
  // (the sandbox's mkdir of /workspace marks the whole tree dirty on every call).
  const known = new Map<string, FileRecord>();

  /** The host path of a /workspace path, or null when it is not under /workspace (e.g. /tmp: per call). */
  function hostPath(path: string): string | null {
    if (path === WORKSPACE) return base;
    if (!path.startsWith(`${WORKSPACE}/`)) return null;
    const rel = path.slice(WORKSPACE.length + 1);
    const parts = rel.split("/");
    if (path.includes("\0") || parts.some((p) => p === "" || p === "." || p === "..") || posix.normalize(rel) !== rel) throw new UnsafePathError(`refusing ${JSON.stringify(path)}: not a plain path under ${WORKSPACE}`);
    const host = resolve(base, ...parts);
    if (!host.startsWith(base + sep)) throw new UnsafePathError(`refusing ${JSON.stringify(path)}: it leaves the workspace folder`);
    return host;
  }

  /**
   * Every folder between the root and `host` must be a real directory, never a
   * symlink (writing through one would land outside). Missing ones are made
   * when `create`, else the answer is false: there is nothing there to touch.
   */
  function realParents(host: string, path: string, create: boolean): boolean {
    const parts = host.slice(base.length + 1).split(sep).slice(0, -1);
    let at = base;
    for (const part of parts) {
      at = `${at}${sep}${part}`;
      const st = lstatSync(at, { throwIfNoEntry: false });
      if (!st && !create) return false;
      if (!st) mkdirSync(at, { mode: 0o755 });
      else if (!st.isDirectory()) throw new UnsafePathError(`refusing ${JSON.stringify(path)}: ${at} is not a real folder`);
    }
    return true;
  }

  /** Remove what is at `host` (a symlink itself, not its target). */
  function clear(host: string): void {
    const st = lstatSync(host, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) rmSync(host, { recursive: true, force: true });
    else unlinkSync(host);
  }

  function write(r: FileRecord, host: string): void {
    const st = lstatSync(host, { throwIfNoEntry: false });
    if (r.kind === "dir") {
      if (st && !st.isDirectory()) clear(host);
      if (!st?.isDirectory()) mkdirSync(host);
    } else if (r.kind === "symlink") {
      const target = r.target ?? "";
      // The link is resolved in the host's filesystem too: only a relative one that stays in the folder is kept.
      const lands = resolve(host, "..", target);
      if (!target || posix.isAbsolute(target) || target.includes("\0") || !(lands === base || lands.startsWith(base + sep))) {
        throw new UnsafePathError(`refusing the symlink ${r.path} -> ${target}: a saved link must be relative and stay in the workspace`);
      }
      clear(host);
      symlinkSync(target, host);
      return;
    } else {
      if (st && !st.isFile()) clear(host);
      const fd = openSync(host, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NOFOLLOW, 0o600);
      try {
        const data = r.data ?? new Uint8Array();
        for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
      } finally {
        closeSync(fd);
      }
    }
    chmodSync(host, hostMode(r));
    utimesSync(host, new Date(r.mtime), new Date(r.mtime));
  }

  // Links compare by target alone: the in-memory fs gives a loaded link a new time, and it has no mode of its own.
  const same = (a: FileRecord | undefined, b: FileRecord) => {
    if (!a || a.kind !== b.kind) return false;
    if (a.kind === "symlink") return a.target === b.target;
    return hostMode(a) === hostMode(b) && (a.kind === "dir" || (a.mtime === b.mtime && equalBytes(a.data, b.data)));
  };

  return {
    async loadAll() {
      const out: FileRecord[] = [];
      let bytes = 0;
      const walk = (dir: string, path: string) => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          const host = `${dir}${sep}${entry.name}`;
          const p = `${path}/${entry.name}`;
          const st = lstatSync(host);
          const meta = { path: p, mode: st.mode & 0o7777, mtime: Math.round(st.mtimeMs) };
          if (st.isSymbolicLink()) out.push({ ...meta, kind: "symlink", target: readlinkSync(host) });
          else if (st.isDirectory()) {
            out.push({ ...meta, kind: "dir" });
            walk(host, p);
          } else if (st.isFile()) {
            bytes += st.size;
            if (opts.maxBytes !== undefined && bytes > opts.maxBytes) throw new Error(`the workspace folder ${base} holds more than ${opts.maxBytes} bytes, the workspace's limit`);
            out.push({ ...meta, kind: "file", data: readNoFollow(host) });
          }
          // Sockets, fifos, devices: nothing a workspace holds.
        }
      };
      walk(base, WORKSPACE);
      known.clear();
      for (const r of out) known.set(r.path, r);
      return out;
    },

    async save(put, remove) {
      const refused: string[] = [];
      const attempt = (path: string, create: boolean, action: (host: string) => void) => {
        try {
          const host = hostPath(path);
          if (host === null || host === base) return;
          if (realParents(host, path, create)) action(host);
        } catch (e) {
          if (!(e instanceof UnsafePathError)) throw e;
          refused.push(e.message);
        }
      };
      // Removals first, deepest first, so a path that changed kind is cleared before it is written.
      for (const path of [...remove].sort((a, b) => b.length - a.length)) {
        attempt(path, false, (host) => {
          clear(host);
          for (const k of known.keys()) if (k === path || k.startsWith(`${path}/`)) known.delete(k);
        });
      }
      // Parents before children.
      for (const r of [...put].sort((a, b) => a.path.length - b.path.length)) {
        if (same(known.get(r.path), r)) continue;
        attempt(r.path, true, (host) => {
          write(r, host);
          known.set(r.path, r);
        });
      }
      // Everything else is saved; then say what was not.
      if (refused.length) throw new UnsafePathError(refused.join("; "));
    },
  };
}

function readNoFollow(host: string): Uint8Array {
  const fd = openSync(host, constants.O_RDONLY | NOFOLLOW);
  try {
    return new Uint8Array(readFileSync(fd));
  } finally {
    closeSync(fd);
  }
}

function equalBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return Buffer.compare(a ?? new Uint8Array(), b ?? new Uint8Array()) === 0;
}
