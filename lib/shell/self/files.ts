// Where a mind's own texts are read and written: its workspace's saved rows
// (before the sandbox is open: a tab opens it only once the first model call
// is out) or the open workspace itself. Both read a text only from a plain
// file at its own path, never through a link: what the harness puts before
// the model is what is in self/, not what a link points at.
import type { IFileSystem } from "just-bash";
import { SELF_FILES } from "../../mind/self/self";
import type { FileRecord, FileStore } from "../../mind/state/state";
import { WORKSPACE } from "../limits";
import { selfChanges } from "./guard";
import { SELF_DIR, under, WATCHERS_DIR } from "./paths";


/** A watcher's file name: self/watchers/NAME.sh. */
export const WATCHER_FILE = /^[a-z0-9][a-z0-9_-]{0,39}\.sh$/;

/** A path of self/ the harness keeps (workspace-relative): "self/instructions.md", "self/watchers/tidy.sh". */
export const selfPath = (rel: string) => `self/${rel}`;
const absolute = (path: string) => `${WORKSPACE}/${path}`;

/**
 * What self/ holds now, by workspace-relative path: each of the five texts
 * (null: no plain file there) and each watcher (a plain file
 * self/watchers/NAME.sh); and the folder's own ways to be set up.
 */
export interface SelfFilesPort {
  read(): Promise<Map<string, string | null>>;
  /** Whether anything is at /workspace/self (a folder the mind made itself before it had one). */
  exists(): Promise<boolean>;
  /** Move whatever is at /workspace/self to `to` (a workspace path), so the harness can make its own. */
  moveAside(to: string): Promise<void>;
  /** Write these texts as plain files (self/ and self/watchers/ made as needed; null: remove the file), and save them. */
  write(files: readonly { path: string; text: string | null }[]): Promise<void>;
  /**
   * How many changes to self/ the sandbox's blocks and watchers have made so
   * far (./guard.ts counts them): while it has not moved, self/ holds what it
   * held when last read, but for what was written through this port. Absent:
   * not known, so read to know.
   */
  changes?(): number;
}

const utf8 = new TextDecoder();
const utf8e = new TextEncoder();
const watcherName = (abs: string) => (abs.startsWith(`${WATCHERS_DIR}/`) ? abs.slice(WATCHERS_DIR.length + 1) : "");

/** Over the saved rows: `load` gives every row at or under /workspace/self, `save` stores rows as the workspace does. */
export function recordsSelfFiles(load: () => Promise<FileRecord[]>, save: FileStore["save"], now: () => number): SelfFilesPort {
  return {
    async read() {
      const rows = await load();
      const out = new Map<string, string | null>();
      // A self/ that is not a folder (a link, a file) has no texts in it.
      const folder = rows.find((r) => r.path === SELF_DIR)?.kind === "dir";
      const text = (r: FileRecord | undefined) => (folder && r?.kind === "file" ? utf8.decode(r.data ?? new Uint8Array()) : null);
      for (const file of SELF_FILES) out.set(selfPath(file), text(rows.find((r) => r.path === `${SELF_DIR}/${file}`)));
      const watchers = rows.find((r) => r.path === WATCHERS_DIR)?.kind === "dir";
      for (const r of rows) if (watchers && r.kind === "file" && WATCHER_FILE.test(watcherName(r.path))) out.set(selfPath(`watchers/${watcherName(r.path)}`), text(r));
      return out;
    },
    exists: async () => (await load()).length > 0,
    async moveAside(to) {
      const rows = (await load()).filter((r) => under(r.path, SELF_DIR));
      await save(
        rows.map((r) => ({ ...r, path: to + r.path.slice(SELF_DIR.length) })),
        rows.map((r) => r.path),
      );
    },
    async write(files) {
      const rows = await load();
      const at = now();
      const dirs: FileRecord[] = [SELF_DIR, WATCHERS_DIR].filter((p) => !rows.some((r) => r.path === p && r.kind === "dir")).map((path) => ({ path, kind: "dir", mode: 0o755, mtime: at }));
      const put = files.flatMap((f): FileRecord[] => (f.text === null ? [] : [{ path: absolute(f.path), kind: "file", data: utf8e.encode(f.text), mode: 0o644, mtime: at }]));
      await save([...dirs, ...put], files.filter((f) => f.text === null).map((f) => absolute(f.path)));
    },
  };
}

/** Over the open workspace (the sandbox's filesystem, saved by `flush`). */
export function fsSelfFiles(fs: IFileSystem, flush: () => Promise<void>): SelfFilesPort {
  const plain = async (path: string, dir: boolean) => {
    const st = await fs.lstat(path).catch(() => null);
    return !!st && !st.isSymbolicLink && (dir ? st.isDirectory : st.isFile);
  };
  const text = async (abs: string) => ((await plain(abs, false)) ? utf8.decode(await fs.readFileBuffer(abs)) : null);
  return {
    async read() {
      const out = new Map<string, string | null>();
      const folder = await plain(SELF_DIR, true);
      for (const file of SELF_FILES) out.set(selfPath(file), folder ? await text(`${SELF_DIR}/${file}`) : null);
      if (folder && (await plain(WATCHERS_DIR, true))) {
        for (const name of (await fs.readdir(WATCHERS_DIR)).sort()) {
          if (!WATCHER_FILE.test(name)) continue;
          const t = await text(`${WATCHERS_DIR}/${name}`);
          if (t !== null) out.set(selfPath(`watchers/${name}`), t);
        }
      }
      return out;
    },
    exists: async () => (await fs.lstat(SELF_DIR).catch(() => null)) !== null,
    async moveAside(to) {
      await fs.mv(SELF_DIR, to);
      await flush();
    },
    async write(files) {
      await fs.mkdir(WATCHERS_DIR, { recursive: true });
      for (const f of files) {
        if (f.text === null) await fs.rm(absolute(f.path), { force: true });
        else await fs.writeFile(absolute(f.path), f.text);
      }
      await flush();
    },
    changes: () => selfChanges(fs),
  };
}
