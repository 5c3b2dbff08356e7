// lib/shell/persistent-fs.ts: what the shell does to the workspace, flushed,
// comes back whole in a fresh filesystem over the same store. Run against an
// in-memory store and against the real IndexedDB store (lib/store/minds/files.ts).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Bash, type IFileSystem } from "just-bash";
import { openPersistentFs, type FileRecord, type FileStore } from "@/lib/shell/persistent-fs";
import { type ReverieDb } from "@/lib/store/db/db";
import { mindFiles } from "@/lib/store/minds/files";
import { openTestDb } from "../helpers/db";

/** A FileStore over a Map that records every save it was asked for. */
function mapStore() {
  const rows = new Map<string, FileRecord>();
  const saves: { put: string[]; remove: string[] }[] = [];
  const store: FileStore = {
    async loadAll() {
      return [...rows.values()].map((r) => ({ ...r, data: r.data && new Uint8Array(r.data) }));
    },
    async save(put, remove) {
      saves.push({ put: put.map((r) => r.path).sort(), remove: [...remove].sort() });
      for (const p of remove) rows.delete(p);
      for (const r of put) rows.set(r.path, { ...r, data: r.data && new Uint8Array(r.data) });
    },
  };
  return { store, rows, saves };
}

type Entry =
  | { path: string; kind: "dir"; mode: number }
  | { path: string; kind: "symlink"; target: string }
  | { path: string; kind: "file"; mode: number; mtime: number; content: string };

const utf8 = new TextDecoder("utf-8", { fatal: true });
function contentOf(buf: Uint8Array): string {
  try {
    return utf8.decode(buf);
  } catch {
    return `hex:${Buffer.from(buf).toString("hex")}`;
  }
}

/** Everything under `root` as bash would see it, walking readdir (not the store). */
async function listing(fs: IFileSystem, root = "/workspace"): Promise<Entry[]> {
  const out: Entry[] = [];
  async function walk(dir: string) {
    for (const name of (await fs.readdir(dir)).sort()) {
      const path = `${dir}/${name}`;
      const st = await fs.lstat(path);
      if (st.isSymbolicLink) out.push({ path, kind: "symlink", target: await fs.readlink(path) });
      else if (st.isDirectory) {
        out.push({ path, kind: "dir", mode: st.mode });
        await walk(path);
      } else out.push({ path, kind: "file", mode: st.mode, mtime: st.mtime.getTime(), content: contentOf(await fs.readFileBuffer(path)) });
    }
  }
  if (await fs.exists(root)) await walk(root);
  return out;
}

const ALL_BYTES = Uint8Array.from({ length: 256 }, (_, i) => i);

/** Builds a varied tree, changes it, and returns the listing bash would see. */
async function buildTree(fs: IFileSystem): Promise<void> {
  await fs.mkdir("/workspace/notes/2026/nov", { recursive: true });
  await fs.writeFile("/workspace/notes/2026/nov/30.md", "# Monday\nthought about 語 and 🧠\n");
  await fs.writeFile("/workspace/readme.txt", "hello");
  await fs.appendFile("/workspace/readme.txt", ", world\n");
  await fs.appendFile("/workspace/log.txt", "line 1\n"); // append creates
  await fs.appendFile("/workspace/log.txt", "line 2\n");
  await fs.writeFile("/workspace/bytes.bin", ALL_BYTES);
  await fs.symlink("notes/2026/nov/30.md", "/workspace/today");
  await fs.symlink("/workspace/notes", "/workspace/notes-link");
  await fs.symlink("does/not/exist", "/workspace/dangling");
  await fs.mkdir("/workspace/scratch/deep/er", { recursive: true });
  await fs.writeFile("/workspace/scratch/deep/er/tmp.txt", "temporary");
  await fs.writeFile("/workspace/scratch/top.txt", "temporary too");
  await fs.mkdir("/workspace/proj/src", { recursive: true });
  await fs.writeFile("/workspace/proj/src/main.sh", "#!/bin/sh\necho hi\n");
  await fs.chmod("/workspace/proj/src/main.sh", 0o755);
  await fs.writeFile("/workspace/proj/README", "proj");
  await fs.cp("/workspace/readme.txt", "/workspace/proj/readme-copy.txt");
}

async function changeTree(fs: IFileSystem): Promise<void> {
  await fs.rm("/workspace/scratch", { recursive: true });
  await fs.mv("/workspace/proj", "/workspace/proj-2026"); // a directory, renamed
  await fs.mkdir("/workspace/archive");
  await fs.mv("/workspace/proj-2026", "/workspace/archive/proj"); // and moved into another directory
  await fs.writeFile("/workspace/readme.txt", "rewritten\n");
  await fs.rm("/workspace/dangling");
  await fs.chmod("/workspace/archive", 0o700);
}

const EXPECTED_AFTER_CHANGE = [
  "/workspace/archive dir",
  "/workspace/archive/proj dir",
  "/workspace/archive/proj/README file proj",
  "/workspace/archive/proj/readme-copy.txt file hello, world\n",
  "/workspace/archive/proj/src dir",
  "/workspace/archive/proj/src/main.sh file #!/bin/sh\necho hi\n",
  `/workspace/bytes.bin file hex:${Buffer.from(ALL_BYTES).toString("hex")}`,
  "/workspace/log.txt file line 1\nline 2\n",
  "/workspace/notes dir",
  "/workspace/notes/2026 dir",
  "/workspace/notes/2026/nov dir",
  "/workspace/notes/2026/nov/30.md file # Monday\nthought about 語 and 🧠\n",
  "/workspace/notes-link symlink /workspace/notes",
  "/workspace/readme.txt file rewritten\n",
  "/workspace/today symlink notes/2026/nov/30.md",
];
const brief = (e: Entry) => `${e.path} ${e.kind}${e.kind === "file" ? ` ${e.content}` : e.kind === "symlink" ? ` ${e.target}` : ""}`;

let db: ReverieDb;
beforeEach(async () => {
  db = await openTestDb("pfs-test");
});
afterEach(async () => {
  await db.delete();
});

const stores: [string, () => FileStore][] = [
  ["a Map store", () => mapStore().store],
  ["the IndexedDB store", () => mindFiles(db, "mind-1")],
];

describe.each(stores)("persistence over %s", (_name, makeStore) => {
  it("a fresh filesystem sees exactly the same tree after flush", async () => {
    const store = makeStore();
    const a = await openPersistentFs(store);
    await buildTree(a.fs);
    await a.flush();
    const built = await listing(a.fs);
    expect(await listing((await openPersistentFs(store)).fs)).toEqual(built);

    await changeTree(a.fs);
    await a.flush();
    const changed = await listing(a.fs);
    expect(changed.map(brief)).toEqual(EXPECTED_AFTER_CHANGE);
    const b = await openPersistentFs(store);
    expect(await listing(b.fs)).toEqual(changed);

    // And the reopened one keeps persisting.
    await b.fs.appendFile("/workspace/log.txt", "line 3\n");
    await b.fs.rm("/workspace/archive", { recursive: true });
    await b.flush();
    const c = await openPersistentFs(store);
    expect(await listing(c.fs)).toEqual(await listing(b.fs));
    expect(await c.fs.readFile("/workspace/log.txt")).toBe("line 1\nline 2\nline 3\n");
    expect(await c.fs.exists("/workspace/archive")).toBe(false);
  });

  it("binary content with every byte value survives", async () => {
    const store = makeStore();
    const a = await openPersistentFs(store);
    const mixed = new Uint8Array([...ALL_BYTES, ...ALL_BYTES.slice().reverse()]);
    await a.fs.mkdir("/workspace", { recursive: true });
    await a.fs.writeFile("/workspace/all.bin", mixed);
    await a.flush();
    const b = await openPersistentFs(store);
    expect(Array.from(await b.fs.readFileBuffer("/workspace/all.bin"))).toEqual(Array.from(mixed));
  });

  it("modes and times of files and directories survive", async () => {
    const store = makeStore();
    const a = await openPersistentFs(store);
    await a.fs.mkdir("/workspace/private", { recursive: true });
    await a.fs.writeFile("/workspace/private/key", "k");
    await a.fs.chmod("/workspace/private/key", 0o600);
    await a.fs.utimes("/workspace/private/key", new Date(1_000), new Date(1_700_000_000_000));
    await a.fs.chmod("/workspace/private", 0o700);
    await a.fs.utimes("/workspace/private", new Date(1_000), new Date(1_600_000_000_000));
    await a.flush();
    const b = await openPersistentFs(store);
    const dir = await b.fs.stat("/workspace/private");
    const file = await b.fs.stat("/workspace/private/key");
    expect([dir.mode & 0o777, dir.mtime.getTime(), file.mode & 0o777, file.mtime.getTime()]).toEqual([0o700, 1_600_000_000_000, 0o600, 1_700_000_000_000]);
  });

  it("what bash does to the workspace persists (cp -r, mv, rm -r, ln -s, >>)", async () => {
    const store = makeStore();
    const a = await openPersistentFs(store);
    await a.fs.mkdir("/workspace", { recursive: true });
    const bash = new Bash({ fs: a.fs, cwd: "/workspace" });
    const r = await bash.exec(
      [
        "mkdir -p src/lib && printf 'one\\n' > src/lib/a.txt && printf 'two\\n' > src/b.txt",
        "cp -r src copy && mv src moved && rm -r copy/lib",
        "ln -s moved/b.txt b-link && echo more >> moved/lib/a.txt && touch empty",
      ].join("\n"),
      { cwd: "/workspace" },
    );
    expect([r.stderr, r.exitCode]).toEqual(["", 0]);
    await a.flush();
    const expected = [
      "/workspace/b-link symlink moved/b.txt",
      "/workspace/copy dir",
      "/workspace/copy/b.txt file two\n",
      "/workspace/empty file ",
      "/workspace/moved dir",
      "/workspace/moved/b.txt file two\n",
      "/workspace/moved/lib dir",
      "/workspace/moved/lib/a.txt file one\nmore\n",
    ];
    expect((await listing(a.fs)).map(brief)).toEqual(expected);
    const b = await openPersistentFs(store);
    expect(await listing(b.fs)).toEqual(await listing(a.fs));
    expect(await b.fs.exists("/workspace/src")).toBe(false);
  });
});

describe("flush", () => {
  it("saves exactly what changed, and nothing when nothing did", async () => {
    const { store, saves } = mapStore();
    const a = await openPersistentFs(store);
    await a.fs.mkdir("/workspace/d", { recursive: true });
    await a.fs.writeFile("/workspace/d/x", "x");
    await a.fs.writeFile("/workspace/y", "y");
    await a.flush();
    await a.flush(); // nothing dirty
    await a.fs.writeFile("/workspace/d/x", "x2");
    await a.flush();
    await a.fs.rm("/workspace/d", { recursive: true });
    await a.flush();
    await a.fs.readFile("/workspace/y"); // reads mark nothing
    await a.fs.stat("/workspace/y");
    await a.flush();
    expect(saves).toEqual([
      { put: ["/workspace/d", "/workspace/d/x", "/workspace/y"], remove: [] },
      { put: ["/workspace/d/x"], remove: [] },
      { put: [], remove: ["/workspace/d", "/workspace/d/x"] },
    ]);
  });

  it("a failing save makes flush throw and keeps the paths dirty for the next flush", async () => {
    const inner = mapStore();
    let failures = 1;
    const calls: string[][] = [];
    const store: FileStore = {
      loadAll: () => inner.store.loadAll(),
      async save(put, remove) {
        calls.push(put.map((r) => r.path).sort());
        if (failures-- > 0) throw new Error("QuotaExceededError: disk full");
        await inner.store.save(put, remove);
      },
    };
    const a = await openPersistentFs(store);
    await a.fs.mkdir("/workspace", { recursive: true });
    await a.fs.writeFile("/workspace/kept.txt", "important");
    await expect(a.flush()).rejects.toThrow("QuotaExceededError: disk full");
    expect(inner.rows.size).toBe(0);
    expect(await listing((await openPersistentFs(store)).fs)).toEqual([]);

    await a.fs.writeFile("/workspace/later.txt", "later");
    await a.flush();
    expect(calls).toEqual([
      ["/workspace", "/workspace/kept.txt"],
      ["/workspace", "/workspace/kept.txt", "/workspace/later.txt"],
    ]);
    const b = await openPersistentFs(store);
    expect(await listing(b.fs)).toEqual(await listing(a.fs));
    expect(await b.fs.readFile("/workspace/kept.txt")).toBe("important");
  });

  it("a change made through a linked folder lands in the folder and is saved there", async () => {
    const { store, rows, saves } = mapStore();
    const a = await openPersistentFs(store);
    await a.fs.mkdir("/workspace/self", { recursive: true });
    await a.fs.writeFile("/workspace/self/instructions.md", "old\n");
    await a.fs.mkdir("/tmp", { recursive: true });
    await a.fs.symlink("/workspace/self", "/tmp/link");
    await a.flush();
    const bash = new Bash({ fs: a.fs, cwd: "/workspace" });
    const r = await bash.exec("echo new > /tmp/link/instructions.md; echo more >> /tmp/link/notes.md; mkdir /tmp/link/d; cat self/instructions.md", { cwd: "/workspace" });
    expect([r.stdout, r.stderr, r.exitCode]).toEqual(["new\n", "", 0]);
    await a.flush();
    expect(saves.at(-1)).toEqual({ put: ["/workspace/self/d", "/workspace/self/instructions.md", "/workspace/self/notes.md"], remove: [] });
    expect([...rows.keys()].sort()).toEqual(["/tmp", "/tmp/link", "/workspace/self", "/workspace/self/d", "/workspace/self/instructions.md", "/workspace/self/notes.md"]);
    const b = await openPersistentFs(store);
    expect((await listing(b.fs)).map(brief)).toEqual([
      "/workspace/self dir",
      "/workspace/self/d dir",
      "/workspace/self/instructions.md file new\n",
      "/workspace/self/notes.md file more\n",
    ]);
  });

  it("a failed removal is retried too", async () => {
    const inner = mapStore();
    let fail = false;
    const store: FileStore = {
      loadAll: () => inner.store.loadAll(),
      async save(put, remove) {
        if (fail) throw new Error("transaction aborted");
        await inner.store.save(put, remove);
      },
    };
    const a = await openPersistentFs(store);
    await a.fs.mkdir("/workspace/gone", { recursive: true });
    await a.fs.writeFile("/workspace/gone/f", "f");
    await a.flush();
    fail = true;
    await a.fs.rm("/workspace/gone", { recursive: true });
    await expect(a.flush()).rejects.toThrow("transaction aborted");
    expect([...inner.rows.keys()].sort()).toEqual(["/workspace/gone", "/workspace/gone/f"]);
    fail = false;
    await a.flush();
    expect([...inner.rows.keys()]).toEqual([]);
  });
});
