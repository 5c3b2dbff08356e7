// The Memory tab's reading of a mind's workspace: what the real `mem` and
// `focus` commands wrote (through the persistent filesystem the worker uses,
// saved to the store), parsed back by the same parsers the commands use.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CommandIO } from "@/lib/shell/commands/command";
import { focus } from "@/lib/shell/commands/focus";
import { mem } from "@/lib/shell/commands/mem";
import { WORKSPACE } from "@/lib/shell/limits";
import { memoryIdOf } from "@/lib/shell/memory-file";
import { openPersistentFs } from "@/lib/shell/persistent-fs";
import { type ReverieDb } from "@/lib/store/db/db";
import { mindFiles, saveWorkspaceFile } from "@/lib/store/minds/files";
import { filterNotes, readMindNotes } from "@/lib/store/minds/memory";
import { createMind, setRunning } from "@/lib/store/minds/minds";
import { openTestDb } from "../helpers/db";

const model = { provider: "openai-compatible" as const, baseURL: "http://127.0.0.1:9/v1", model: "m1" };
const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);

describe("a mind's memories and goals, from its saved workspace", () => {
  let db: ReverieDb;
  let mindId: string;
  beforeEach(async () => {
    db = await openTestDb("memory-notes-test");
    mindId = (await createMind(db, { name: "Ada", persona: "p", model })).id;
  });
  afterEach(async () => {
    await db.delete();
  });

  /** Run the mind's own commands over its persistent workspace, then save it as the worker does after a block. */
  async function asTheMind(run: (sh: (cmd: typeof mem | typeof focus, args: string[], at: number) => Promise<void>) => Promise<void>) {
    const { fs, flush } = await openPersistentFs(mindFiles(db, mindId));
    await fs.mkdir(WORKSPACE, { recursive: true });
    // One counter for both commands: mem's ids take the first 8 hex, focus's the last 4.
    let n = 0;
    const ids = { uuid: () => `${(++n).toString(16).padStart(8, "a")}-0000-4000-8000-${n.toString(16).padStart(12, "0")}` };
    await run(async (cmd, args, at) => {
      const io: CommandIO = { stdin: "", cwd: WORKSPACE, env: new Map(), fs, signal: new AbortController().signal };
      const r = await cmd.run(args, io, { clock: { now: () => at }, ids });
      expect(r.exitCode, r.stderr).toBe(0);
    });
    await flush();
  }

  it("is empty for a mind that has kept nothing", async () => {
    await expect(readMindNotes(db, mindId)).resolves.toEqual({ goals: [], memories: [] });
  });

  it("lists goals open first, then done, and memories newest first, as the commands wrote them", async () => {
    await asTheMind(async (sh) => {
      await sh(mem, ["add", "The", "kettle", "is", "blue", "--tags", "home,Colours"], T0);
      await sh(mem, ["add", "Tess likes tea"], T0 + 60_000);
      await sh(focus, ["set", "Learn", "the", "names"], T0);
      await sh(focus, ["set", "Water the plants"], T0);
      await sh(focus, ["done", "0003"], T0 + 120_000);
      await sh(focus, ["set", "Write a poem"], T0);
    });
    const notes = await readMindNotes(db, mindId);
    expect(notes.goals.map((g) => [g.id, g.done, g.goal])).toEqual([
      ["0004", false, "Water the plants"],
      ["0005", false, "Write a poem"],
      ["0003", true, "Learn the names (done 2026-11-30)"],
    ]);
    expect(notes.memories).toEqual([
      { id: "aaaaaaa2", created: "2026-11-30T09:01:00.000Z", tags: [], text: "Tess likes tea\n" },
      { id: "aaaaaaa1", created: "2026-11-30T09:00:00.000Z", tags: ["home", "Colours"], text: "The kettle is blue\n" },
    ]);
  });

  it("reads hand-edited files as the commands do, and leaves out what is not a memory", async () => {
    await setRunning(db, mindId, false);
    await mindFiles(db, mindId).save(
      [
        { path: "/workspace", kind: "dir", mode: 0o755, mtime: T0 },
        { path: "/workspace/memory", kind: "dir", mode: 0o755, mtime: T0 },
        { path: "/workspace/memory/deep", kind: "dir", mode: 0o755, mtime: T0 },
      ],
      [],
    );
    await saveWorkspaceFile(db, mindId, "/workspace/memory/plain.md", "no front matter here\n", T0 + 5_000);
    await saveWorkspaceFile(db, mindId, "/workspace/memory/notes.txt", "not markdown\n", T0);
    await saveWorkspaceFile(db, mindId, "/workspace/memory/deep/inner.md", "---\ncreated: 2030-01-01T00:00:00Z\n---\nnested\n", T0);
    await saveWorkspaceFile(db, mindId, "/workspace/focus.md", "# Goals\n- [ ] hand written\nnote\n- [X] 00ff finished\n", T0);
    await db.files.put({ mind_id: "someone-else", path: "/workspace/memory/theirs.md", kind: "file", data: new TextEncoder().encode("theirs\n"), mode: 0o644, mtime: T0 });
    const notes = await readMindNotes(db, mindId);
    expect(notes.memories).toEqual([{ id: "plain", created: new Date(T0 + 5_000).toISOString(), tags: [], text: "no front matter here\n" }]);
    expect(notes.goals).toEqual([
      { line: 1, id: "----", done: false, goal: "hand written" },
      { line: 3, id: "00ff", done: true, goal: "finished" },
    ]);
  });

  it("filters both by text and tags, in any case; a blank query keeps everything", async () => {
    const notes = {
      goals: [
        { line: 0, id: "0001", done: false, goal: "Make TEA for Tess" },
        { line: 1, id: "0002", done: true, goal: "Sweep" },
      ],
      memories: [
        { id: "a", created: "2026-11-30T09:00:00.000Z", tags: ["Kitchen"], text: "kettle\n" },
        { id: "b", created: "2026-11-30T08:00:00.000Z", tags: [], text: "Green tea is best\n" },
      ],
    };
    expect(filterNotes(notes, "  Tea ")).toEqual({ goals: [notes.goals[0]], memories: [notes.memories[1]] });
    expect(filterNotes(notes, "kitchen")).toEqual({ goals: [], memories: [notes.memories[0]] });
    expect(filterNotes(notes, "nothing like it")).toEqual({ goals: [], memories: [] });
    expect(filterNotes(notes, " ")).toBe(notes);
  });

  it("knows a memory's path: a .md file directly in the memory folder", () => {
    expect(["/workspace/memory/ab12.md", "/workspace/memory/.md", "/workspace/memory/a/b.md", "/workspace/memory/x.txt", "/workspace/focus.md"].map(memoryIdOf)).toEqual([
      "ab12",
      null,
      null,
      null,
      null,
    ]);
  });
});
