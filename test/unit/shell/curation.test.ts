// People's changes to a mind's memories and goals (lib/shell/curation.ts),
// made on the sandbox's own filesystem and read back with the mind's own
// commands: each change is a step that says what was there before and what
// is there now, so replaying the steps gives the files as they are.
import { InMemoryFs } from "just-bash";
import { describe, expect, it } from "vitest";
import type { CommandIO } from "@/lib/shell/commands/command";
import { focus } from "@/lib/shell/commands/focus";
import { mem } from "@/lib/shell/commands/mem";
import { applyCuration, Curation, CurationRequest, sandboxCurationFs, type CurationStep } from "@/lib/shell/curation";
import { FOCUS_FILE } from "@/lib/shell/focus-file";
import { WORKSPACE } from "@/lib/shell/limits";
import { MEMORY_DIR, parseMemory } from "@/lib/shell/memory-file";
import { parseStep } from "@/lib/trajectory/schema";
import { renderStep } from "@/lib/context/project";

const T0 = Date.UTC(2026, 11, 5, 9, 0, 0);

function world() {
  const fs = new InMemoryFs();
  let n = 0;
  const ids = { uuid: () => `${(++n).toString(16).padStart(8, "b")}-0000-4000-8000-${n.toString(16).padStart(12, "0")}` };
  let req = 0;
  const change = async (r: CurationRequest, by = "Ada", role: "owner" | "operator" = "owner", at = T0): Promise<CurationStep> => {
    const c = Curation.parse({ ...r, id: `0000000${++req}-1111-4222-8333-44445555666${req}`, by, role });
    const step = await applyCuration(sandboxCurationFs(fs), c, at, ids);
    expect(parseStep(JSON.parse(JSON.stringify(step))).ok).toBe(true);
    return step;
  };
  const sh = async (cmd: typeof mem | typeof focus, ...args: string[]) => {
    const io: CommandIO = { stdin: "", cwd: WORKSPACE, env: new Map(), fs, signal: new AbortController().signal };
    return cmd.run(args, io, { clock: { now: () => T0 }, ids });
  };
  const file = async (path: string) => ((await fs.exists(path)) ? fs.readFile(path) : null);
  return { fs, change, sh, file };
}

describe("a person's change to a memory", () => {
  it("adds a memory the mind's own mem command lists and shows, with who added it", async () => {
    const w = world();
    const step = await w.change({ what: "memory", op: "add", text: "The staging server is db-2.\n\n", tags: ["ops", "servers"] });
    expect(step).toMatchObject({ type: "observation", source: "curation", by: "Ada", role: "owner", what: "memory", op: "add", text: "The staging server is db-2." });
    const id = step.target as string;
    expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(step.content).toBe(`Ada (owner) added a memory, ${id} (tags: ops, servers): The staging server is db-2.`);
    const shown = await w.sh(mem, "show", id);
    expect(shown.stdout).toBe(`id: ${id}\ncreated: ${new Date(T0).toISOString()}\ntags: ops, servers\n\nThe staging server is db-2.\n`);
    expect(parseMemory(id, (await w.file(`${MEMORY_DIR}/${id}.md`)) as string, "")).toMatchObject({ by: "Ada", tags: ["ops", "servers"] });
  });

  it("edits one in place of its text, keeping its time and the fields it had, and says what it said before", async () => {
    const w = world();
    await w.fs.mkdir(MEMORY_DIR, { recursive: true });
    await w.fs.writeFile(`${MEMORY_DIR}/garden.md`, "---\ncreated: 2026-01-02T03:04:00Z\ntags: [home]\nmood: sunny\n---\nwater the tomatoes\n");
    const step = await w.change({ what: "memory", op: "edit", target: "garden", text: "water the tomatoes at dawn" }, "Cy", "operator", T0 + 60_000);
    expect(step).toMatchObject({ target: "garden", before: "water the tomatoes", text: "water the tomatoes at dawn" });
    expect(step.content).toBe("Cy (operator) edited your memory garden (tags: home). It said: water the tomatoes\nIt now says: water the tomatoes at dawn");
    const text = (await w.file(`${MEMORY_DIR}/garden.md`)) as string;
    expect(text).toContain("mood: sunny");
    expect(parseMemory("garden", text, "")).toMatchObject({ created: "2026-01-02T03:04:00Z", tags: ["home"], text: "water the tomatoes at dawn\n", edited: { at: new Date(T0 + 60_000).toISOString(), by: "Cy" } });
    // New tags replace the old ones.
    await w.change({ what: "memory", op: "edit", target: "garden", text: "water the tomatoes at dawn", tags: ["garden"] });
    expect(parseMemory("garden", (await w.file(`${MEMORY_DIR}/garden.md`)) as string, "").tags).toEqual(["garden"]);
  });

  it("forgets one: the file goes, the step keeps its words", async () => {
    const w = world();
    const added = await w.change({ what: "memory", op: "add", text: "a passing thought" });
    const step = await w.change({ what: "memory", op: "forget", target: added.target as string }, "");
    expect(step.content).toBe(`Your owner made you forget your memory ${added.target}, which said: a passing thought`);
    expect(step.before).toBe("a passing thought");
    expect(await w.file(`${MEMORY_DIR}/${added.target}.md`)).toBeNull();
    expect((await w.sh(mem, "list")).stdout).toBe("no memories yet; mem add <text> saves one\n");
  });

  it("changes nothing for a memory that is not there, and says so", async () => {
    const w = world();
    const step = await w.change({ what: "memory", op: "edit", target: "deadbeef", text: "x" });
    expect(step.failed).toBe("there is no such memory (forgotten already?)");
    expect(step.content).toBe("Ada (owner) tried to edit your memory deadbeef, but there is no such memory (forgotten already?); nothing changed.");
    expect(await w.fs.exists(MEMORY_DIR)).toBe(false);
  });

  it("adds once when the same request is applied twice (its home stopped between the file and the step)", async () => {
    const w = world();
    const c = Curation.parse({ what: "memory", op: "add", text: "once", id: "abcdef01-0000-4000-8000-000000000001", by: "Ada", role: "owner" });
    const ids = { uuid: () => "99999999-0000-4000-8000-000000000000" };
    const first = await applyCuration(sandboxCurationFs(w.fs), c, T0, ids);
    const second = await applyCuration(sandboxCurationFs(w.fs), c, T0, ids);
    expect(first.target).toBe("abcdef01");
    expect(second.target).toBe("abcdef01");
    expect(await w.fs.readdir(MEMORY_DIR)).toEqual(["abcdef01.md"]);
  });
});

describe("a person's change to a goal", () => {
  it("sets, changes, completes and drops goals in focus.md, leaving the other lines alone, as focus lists them", async () => {
    const w = world();
    await w.fs.mkdir(WORKSPACE, { recursive: true });
    await w.fs.writeFile(FOCUS_FILE, "# Goals\n- [ ] ship the report\nnotes: keep it short\n");
    const set = await w.change({ what: "goal", op: "add", text: "  answer   Bo's question " }, "Cy", "operator");
    expect(set.content).toBe(`Cy (operator) set you a goal, ${set.target}: answer Bo's question`);
    // The hand-written goal got an id on the way (as focus gives one), so it can be named.
    const listed = (await w.sh(focus, "list")).stdout.trim().split("\n");
    expect(listed).toHaveLength(2);
    const report = (listed[0] as string).slice(0, 4);
    const changed = await w.change({ what: "goal", op: "edit", target: report, text: "ship the short report" });
    expect(changed.content).toBe(`Ada (owner) changed your goal ${report} from "ship the report" to "ship the short report"`);
    const done = await w.change({ what: "goal", op: "done", target: report });
    expect(done.content).toBe(`Ada (owner) marked your goal ${report} done: ship the short report`);
    const again = await w.change({ what: "goal", op: "done", target: report });
    expect(again.failed).toBe("it is done already");
    const dropped = await w.change({ what: "goal", op: "forget", target: set.target as string });
    expect(dropped.content).toBe(`Ada (owner) dropped your goal ${set.target}: answer Bo's question`);
    expect(await w.file(FOCUS_FILE)).toBe(`# Goals\n- [x] ${report} ship the short report (done 2026-12-05)\nnotes: keep it short\n`);
    expect((await w.sh(focus, "list")).stdout).toBe(`${report} [x] ship the short report (done 2026-12-05)\n`);
  });

  it("refuses a goal that is not there", async () => {
    const w = world();
    const step = await w.change({ what: "goal", op: "forget", target: "zzzz" });
    expect(step.failed).toBe("there is no such goal (dropped already?)");
    expect(await w.file(FOCUS_FILE)).toBeNull();
  });
});

describe("the file and its history agree", () => {
  it("replaying the steps' texts gives each memory's file as it is, whoever changed it in between", async () => {
    const w = world();
    const steps: CurationStep[] = [];
    const a = await w.change({ what: "memory", op: "add", text: "v1" });
    steps.push(a);
    const id = a.target as string;
    steps.push(await w.change({ what: "memory", op: "edit", target: id, text: "v2" }, "Cy", "operator"));
    steps.push(await w.change({ what: "memory", op: "edit", target: id, text: "v3" }));
    const b = await w.change({ what: "memory", op: "add", text: "other" });
    steps.push(b);
    steps.push(await w.change({ what: "memory", op: "forget", target: b.target as string }));
    // Each step's "before" is the text the one before it left.
    expect(steps.filter((s) => s.target === id).map((s) => [s.before ?? null, s.text])).toEqual([
      [null, "v1"],
      ["v1", "v2"],
      ["v2", "v3"],
    ]);
    const replayed = new Map<string, string>();
    for (const s of steps) {
      if (s.op === "forget") replayed.delete(s.target as string);
      else replayed.set(s.target as string, s.text as string);
    }
    const onDisk = new Map<string, string>();
    for (const name of await w.fs.readdir(MEMORY_DIR)) onDisk.set(name.slice(0, -3), parseMemory(name.slice(0, -3), await w.fs.readFile(`${MEMORY_DIR}/${name}`), "").text.trim());
    expect(onDisk).toEqual(replayed);
  });
});

describe("what the mind reads", () => {
  it("tags a change as a curation in its context", () => {
    const step = { type: "observation", source: "curation", step_id: "s1", ts: new Date(T0).toISOString(), content: "Ada (owner) added a memory, 1: x" };
    expect(renderStep(step as never, "Sol")).toMatchObject({ role: "user", content: "[curation] Ada (owner) added a memory, 1: x" });
  });
});

describe("a request that is not one", () => {
  it.each([
    [{ what: "memory", op: "add" }, "adding needs the text"],
    [{ what: "memory", op: "edit", text: "x" }, "edit needs the id of the memory"],
    [{ what: "memory", op: "done", target: "a" }, "only a goal is marked done"],
    [{ what: "goal", op: "add", text: "x", tags: ["t"] }, "only a memory has tags"],
    [{ what: "memory", op: "add", text: "x", tags: ["a]b"] }, "a tag cannot contain"],
    [{ what: "memory", op: "forget", target: "../../etc/passwd" }, "an id is letters, digits, - and _"],
    [{ what: "memory", op: "add", text: "x".repeat(20_001) }, "Too big"],
  ])("%# is refused: %s", (req, why) => {
    const r = CurationRequest.safeParse(req);
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message).join("; ")).toContain(why);
  });
});
