// The Files view's side of the workspace: listing without bytes, reading one
// file, the human's edit (refused while the mind runs), and the pure helpers
// that turn paths into a tree and bytes into text.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileText } from "@/components/files/file-text";
import { buildTree, visibleRows, type TreeNode } from "@/components/files/tree";
import { openPersistentFs } from "@/lib/shell/persistent-fs";
import { type ReverieDb } from "@/lib/store/db/db";
import { listWorkspace, mindFiles, readWorkspaceFile, saveWorkspaceFile } from "@/lib/store/minds/files";
import { createMind, setRunning } from "@/lib/store/minds/minds";
import { openTestDb } from "../../helpers/db";

const model = { provider: "openai-compatible" as const, baseURL: "http://127.0.0.1:9/v1", model: "m1" };
const bytes = (s: string) => new TextEncoder().encode(s);

describe("workspace files in the store", () => {
  let db: ReverieDb;
  let mindId: string;
  beforeEach(async () => {
    db = await openTestDb("workspace-files-test");
    mindId = (await createMind(db, { name: "Ada", persona: "p", model })).id;
    await mindFiles(db, mindId).save(
      [
        { path: "/workspace", kind: "dir", mode: 0o755, mtime: 1 },
        { path: "/workspace/notes.md", kind: "file", data: bytes("hello\n"), mode: 0o600, mtime: 2 },
        { path: "/workspace/link", kind: "symlink", target: "notes.md", mode: 0o777, mtime: 3 },
        { path: "/tmp", kind: "dir", mode: 0o755, mtime: 4 },
      ],
      [],
    );
  });
  afterEach(async () => {
    await db.delete();
  });

  it("lists paths, kinds and sizes without the bytes, leaving out damaged rows and other minds' files", async () => {
    await db.files.put({ mind_id: mindId, path: "relative/bad", kind: "file", mode: 0, mtime: 0 });
    await db.files.put({ mind_id: "someone-else", path: "/workspace/theirs", kind: "file", data: bytes("x"), mode: 0o644, mtime: 0 });
    const listed = await listWorkspace(db, mindId);
    expect(listed.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: "/tmp", kind: "dir", size: 0, mtime: 4 },
      { path: "/workspace", kind: "dir", size: 0, mtime: 1 },
      { path: "/workspace/link", kind: "symlink", size: 0, target: "notes.md", mtime: 3 },
      { path: "/workspace/notes.md", kind: "file", size: 6, mtime: 2 },
    ]);
  });

  it("reads one file with its bytes; null for a path that is not there", async () => {
    expect(await readWorkspaceFile(db, mindId, "/workspace/notes.md")).toEqual({ path: "/workspace/notes.md", kind: "file", data: bytes("hello\n"), mode: 0o600, mtime: 2 });
    expect(await readWorkspaceFile(db, mindId, "/workspace/none")).toBeNull();
  });

  it("refuses an edit while the mind runs, and changes nothing", async () => {
    await expect(saveWorkspaceFile(db, mindId, "/workspace/notes.md", "changed", 10)).rejects.toThrow("Ada is running: stop it before editing its files.");
    expect((await readWorkspaceFile(db, mindId, "/workspace/notes.md"))?.data).toEqual(bytes("hello\n"));
  });

  it("saves an edit of a stopped mind, keeping the mode; the next start of the workspace sees it", async () => {
    await setRunning(db, mindId, false);
    await saveWorkspaceFile(db, mindId, "/workspace/notes.md", "edited by a human ✓\n", 10);
    await saveWorkspaceFile(db, mindId, "/workspace/new.txt", "new", 11);
    expect(await readWorkspaceFile(db, mindId, "/workspace/notes.md")).toEqual({ path: "/workspace/notes.md", kind: "file", data: bytes("edited by a human ✓\n"), mode: 0o600, mtime: 10 });
    expect(await readWorkspaceFile(db, mindId, "/workspace/new.txt")).toEqual({ path: "/workspace/new.txt", kind: "file", data: bytes("new"), mode: 0o644, mtime: 11 });
    // What the worker does when the mind starts again.
    const { fs } = await openPersistentFs(mindFiles(db, mindId));
    expect(await fs.readFile("/workspace/notes.md")).toBe("edited by a human ✓\n");
  });

  it("refuses what is not a file it can write", async () => {
    await setRunning(db, mindId, false);
    const refusals = await Promise.all(
      ["/workspace", "/workspace/link", "/nowhere/x.txt", "/workspace/../etc/passwd", "workspace/rel", "/workspace/dir/"].map((p) =>
        saveWorkspaceFile(db, mindId, p, "x").then(
          () => "saved",
          (e: Error) => e.message,
        ),
      ),
    );
    expect(refusals).toEqual([
      "/workspace is a directory, not a file.",
      "/workspace/link is a symlink, not a file.",
      "There is no directory for /nowhere/x.txt.",
      '"/workspace/../etc/passwd" is not a plain absolute path.',
      '"workspace/rel" is not a plain absolute path.',
      '"/workspace/dir/" is not a plain absolute path.',
    ]);
    await expect(saveWorkspaceFile(db, "no-such-mind", "/workspace/notes.md", "x")).rejects.toThrow("No mind no-such-mind in this browser.");
  });
});

describe("the tree", () => {
  const entry = (path: string, kind: "file" | "dir" = "file", size = 0) => ({ path, kind, size, mtime: 0 });
  const shape = (nodes: readonly TreeNode[]): unknown[] => nodes.map((n) => (n.children.length ? { [n.name]: shape(n.children) } : n.name));

  it("nests paths, directories first then by name, making up directories no row lists", () => {
    const roots = buildTree([entry("/workspace/b.txt"), entry("/workspace", "dir"), entry("/tmp", "dir"), entry("/workspace/a.txt"), entry("/workspace/src", "dir"), entry("/workspace/src/x.ts"), entry("/home/me/deep.txt")]);
    expect(shape(roots)).toEqual([{ home: [{ me: ["deep.txt"] }] }, "tmp", { workspace: [{ src: ["x.ts"] }, "a.txt", "b.txt"] }]);
  });

  it("shows the children of open directories only, with their level, parent and place among siblings", () => {
    const roots = buildTree([entry("/workspace", "dir"), entry("/workspace/a"), entry("/workspace/d", "dir"), entry("/workspace/d/e"), entry("/tmp", "dir")]);
    const rows = visibleRows(roots, new Set(["/workspace"])).map((r) => [r.node.path, r.level, r.parent, r.pos, r.of]);
    expect(rows).toEqual([
      ["/tmp", 1, null, 1, 2],
      ["/workspace", 1, null, 2, 2],
      ["/workspace/d", 2, "/workspace", 1, 2],
      ["/workspace/a", 2, "/workspace", 2, 2],
    ]);
  });
});

describe("fileText", () => {
  it("text, binary (a NUL or invalid UTF-8), and a cut at the limit that splits no character", () => {
    expect(fileText(bytes("héllo"))).toEqual({ kind: "text", text: "héllo", size: 6, truncated: false });
    expect(fileText(new Uint8Array([104, 0, 105]))).toEqual({ kind: "binary", size: 3 });
    expect(fileText(new Uint8Array([0xff, 0xfe, 0x41]))).toEqual({ kind: "binary", size: 3 });
    // "aé" is 61 c3 a9: cut after 2 bytes, the é is left out rather than making the file binary.
    expect(fileText(bytes("aéz"), 2)).toEqual({ kind: "text", text: "a", size: 4, truncated: true });
  });
});
