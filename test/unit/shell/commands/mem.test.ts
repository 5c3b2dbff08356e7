// mem (memories as Markdown files) and focus (goals as a Markdown checklist),
// over an in-memory workspace with a fixed clock and predictable ids.
import { InMemoryFs } from "just-bash";
import { beforeEach, describe, expect, it } from "vitest";
import type { CommandIO } from "@/lib/shell/commands/command";
import { focus } from "@/lib/shell/commands/focus";
import { mem } from "@/lib/shell/commands/mem";
import { WORKSPACE } from "@/lib/shell/limits";

const NOW = Date.UTC(2026, 10, 30, 17, 44, 36, 123);
const MINUTE = 60_000;

/** Predictable uuids: 00000001-0000-4000-8000-000000000001, …02, … */
function sequentialIds() {
  let n = 0;
  return {
    uuid: () => {
      const h = (++n).toString(16);
      return `${h.padStart(8, "0")}-0000-4000-8000-${h.padStart(12, "0")}`;
    },
  };
}
/** The given uuids, in order. */
const idsFrom = (list: string[]) => ({ uuid: () => list.shift() ?? "ffffffff-0000-4000-8000-ffffffffffff" });

let fs: InMemoryFs;
let now: number;
let ids: { uuid: () => string };
const clock = { now: () => now };
const io = (stdin = ""): CommandIO => ({ stdin, cwd: WORKSPACE, env: new Map(), fs, signal: new AbortController().signal });
const out = (stdout: string) => ({ stdout, stderr: "", exitCode: 0 });
const err = (stderr: string, exitCode = 1) => ({ stdout: "", stderr, exitCode });
const usage = (cmd: { name: string; usage: string }, problem: string) => err(`${cmd.name}: ${problem}\n${cmd.usage}\n`, 2);

beforeEach(async () => {
  fs = new InMemoryFs();
  await fs.mkdir(WORKSPACE, { recursive: true });
  now = NOW;
  ids = sequentialIds();
});

describe("mem", () => {
  const run = (...args: string[]) => mem.run(args, io(), { clock, ids });
  const runWith = (stdin: string, ...args: string[]) => mem.run(args, io(stdin), { clock, ids });

  it("adds a memory as a Markdown file with front matter", async () => {
    expect(await run("add", "buy", "milk", "--tags", "home, errands")).toEqual(out("remembered 00000001\n"));
    expect(await fs.readFile(`${WORKSPACE}/memory/00000001.md`)).toBe(
      "---\nid: 00000001\ncreated: 2026-11-30T17:44:36.123Z\ntags: [home, errands]\n---\nbuy milk\n",
    );
  });

  it("takes the text from stdin, dropping trailing blank lines", async () => {
    expect(await runWith("line one\nline two\n\n\n", "add", "--tags=x")).toEqual(out("remembered 00000001\n"));
    expect(await fs.readFile(`${WORKSPACE}/memory/00000001.md`)).toBe(
      "---\nid: 00000001\ncreated: 2026-11-30T17:44:36.123Z\ntags: [x]\n---\nline one\nline two\n",
    );
  });

  it("treats words after -- as text", async () => {
    await run("add", "--", "--help", "is", "text");
    expect(await run("show", "00000001")).toEqual(out("id: 00000001\ncreated: 2026-11-30T17:44:36.123Z\n\n--help is text\n"));
  });

  it("rejects an add without text, a bare --tags and unknown options", async () => {
    expect(await runWith("  \n", "add")).toEqual(usage(mem, "add needs the text to remember, as arguments or on stdin"));
    expect(await run("add", "x", "--tags")).toEqual(usage(mem, "--tags needs a value such as --tags work,ideas"));
    expect(await run("add", "x", "--tag", "a")).toEqual(usage(mem, "unknown option '--tag'"));
    expect(await run("add", "x", "--tags", "a]")).toEqual(err("mem add: tags cannot contain '[', ']' or newlines\n"));
    expect(await fs.exists(`${WORKSPACE}/memory`)).toBe(false);
  });

  it("lists newest first, with UTC minutes and the first line cut to 80 characters", async () => {
    await run("add", "first memory");
    now += 90 * MINUTE;
    await runWith(`\n${"é".repeat(100)}\nsecond line\n`, "add");
    now += MINUTE;
    await run("add", "日本語のメモ");
    expect(await run("list")).toEqual(
      out(`00000003 2026-11-30 19:15 日本語のメモ\n00000002 2026-11-30 19:14 ${"é".repeat(79)}…\n00000001 2026-11-30 17:44 first memory\n`),
    );
  });

  it("lists hand-written files without front matter by file name and file time", async () => {
    await run("add", "from mem");
    await fs.writeFile(`${WORKSPACE}/memory/garden.md`, "# Garden\nwater the tomatoes\n");
    await fs.utimes(`${WORKSPACE}/memory/garden.md`, new Date(NOW), new Date(Date.UTC(2026, 0, 2, 3, 4)));
    await fs.writeFile(`${WORKSPACE}/memory/half.md`, "---\ntags: plants, water\n---\nno time here\n");
    await fs.utimes(`${WORKSPACE}/memory/half.md`, new Date(NOW), new Date(Date.UTC(2026, 5, 1)));
    await fs.writeFile(`${WORKSPACE}/memory/notes.txt`, "not a memory");
    await fs.mkdir(`${WORKSPACE}/memory/sub.md`);
    expect(await run("list")).toEqual(out("00000001 2026-11-30 17:44 from mem\nhalf 2026-06-01 00:00 no time here\ngarden 2026-01-02 03:04 # Garden\n"));
    expect(await run("search", "WATER")).toEqual(out("half 2026-06-01 00:00 no time here\ngarden 2026-01-02 03:04 # Garden\n"));
    expect(await run("show", "garden")).toEqual(out("id: garden\ncreated: 2026-01-02T03:04:00.000Z\n\n# Garden\nwater the tomatoes\n"));
  });

  it("says so when there are no memories", async () => {
    expect(await run("list")).toEqual(out("no memories yet; mem add <text> saves one\n"));
  });

  it("searches text and tags regardless of case", async () => {
    await run("add", "Meeting with Ada", "--tags", "people");
    now += MINUTE;
    await run("add", "the deploy key lives in vault", "--tags", "Ops");
    expect(await run("search", "ada")).toEqual(out("00000001 2026-11-30 17:44 Meeting with Ada\n"));
    expect(await run("search", "ops")).toEqual(out("00000002 2026-11-30 17:45 the deploy key lives in vault\n"));
    expect(await run("search", "LIVES", "IN")).toEqual(out("00000002 2026-11-30 17:45 the deploy key lives in vault\n"));
    expect(await run("search", "nothing", "here")).toEqual(err("mem search: nothing matches 'nothing here'\n"));
    expect(await run("search")).toEqual(usage(mem, "search needs the text to look for"));
  });

  it("shows a memory by id or unique prefix of 4 or more characters", async () => {
    ids = idsFrom(["abcd1234-0000-4000-8000-000000000001", "abce5678-0000-4000-8000-000000000002"]);
    await run("add", "one", "--tags", "a,b");
    await run("add", "two");
    const one = out("id: abcd1234\ncreated: 2026-11-30T17:44:36.123Z\ntags: a, b\n\none\n");
    expect(await run("show", "abcd1234")).toEqual(one);
    expect(await run("show", "abcd")).toEqual(one);
    expect(await run("show", "abc")).toEqual(err("mem show: no memory 'abc'; a shortened id needs at least 4 characters; mem list shows the ids\n"));
    await fs.writeFile(`${WORKSPACE}/memory/abcdef.md`, "three\n");
    expect(await run("show", "abcd")).toEqual(err("mem show: 'abcd' is the start of 2 ids (abcd1234, abcdef); give more of it\n"));
    expect(await run("show", "zzzz")).toEqual(err("mem show: no memory 'zzzz'; mem list shows the ids\n"));
    expect(await run("show")).toEqual(usage(mem, "show takes one id"));
  });

  it("forgets a memory by id or prefix, and explains unknown ids", async () => {
    ids = idsFrom(["abcd1234-0000-4000-8000-000000000001", "abce5678-0000-4000-8000-000000000002"]);
    await run("add", "one");
    await run("add", "two");
    expect(await run("forget", "abce")).toEqual(out("forgot abce5678\n"));
    expect(await fs.readdir(`${WORKSPACE}/memory`)).toEqual(["abcd1234.md"]);
    expect(await run("forget", "abce5678")).toEqual(err("mem forget: no memory 'abce5678'; mem list shows the ids\n"));
    expect(await run("forget", "abc")).toEqual(err("mem forget: no memory 'abc'; a shortened id needs at least 4 characters; mem list shows the ids\n"));
  });

  it("draws another id when one is taken", async () => {
    await fs.mkdir(`${WORKSPACE}/memory`);
    await fs.writeFile(`${WORKSPACE}/memory/00000001.md`, "mine\n");
    expect(await run("add", "new")).toEqual(out("remembered 00000002\n"));
    expect(await fs.readFile(`${WORKSPACE}/memory/00000001.md`)).toBe("mine\n");
  });

  it("prints usage for --help and rejects unknown or missing subcommands", async () => {
    expect(await run("--help")).toEqual(out(`${mem.usage}\n`));
    expect(await run("list", "--help")).toEqual(out(`${mem.usage}\n`));
    expect(await run()).toEqual(usage(mem, "missing subcommand"));
    expect(await run("remember")).toEqual(usage(mem, "unknown subcommand 'remember'"));
    expect(await run("list", "all")).toEqual(usage(mem, "list takes no arguments, not 'all'"));
  });
});

describe("focus", () => {
  const FILE = `${WORKSPACE}/focus.md`;
  const run = (...args: string[]) => focus.run(args, io(), { clock, ids });

  it("says so when there are no goals", async () => {
    expect(await run("list")).toEqual(out("no goals yet; focus set <goal> adds one\n"));
    expect(await fs.exists(FILE)).toBe(false);
  });

  it("sets goals as checklist items and marks them done with the date", async () => {
    expect(await run("set", "write", "the", "report")).toEqual(out("0001 [ ] write the report\n"));
    expect(await run("set", "réviser le café ☕")).toEqual(out("0002 [ ] réviser le café ☕\n"));
    now += 24 * 60 * MINUTE;
    expect(await run("done", "0001")).toEqual(out("0001 [x] write the report (done 2026-12-01)\n"));
    expect(await fs.readFile(FILE)).toBe("- [x] 0001 write the report (done 2026-12-01)\n- [ ] 0002 réviser le café ☕\n");
    expect(await run("list")).toEqual(out("0002 [ ] réviser le café ☕\n0001 [x] write the report (done 2026-12-01)\n"));
  });

  it("takes a goal from stdin, on one line", async () => {
    expect(await focus.run(["set"], io("learn\nthe  shell\n"), { clock, ids })).toEqual(out("0001 [ ] learn the shell\n"));
    expect(await focus.run(["set"], io(" \n"), { clock, ids })).toEqual(usage(focus, "set needs the goal, as arguments or on stdin"));
  });

  it("keeps other lines of the file as they are", async () => {
    await fs.writeFile(FILE, "# Focus\n\nNotes for *me*.\n- [ ] 0a0a old goal\n* a bullet, not a goal\n");
    await run("set", "new goal");
    await run("done", "0a0a");
    expect(await fs.readFile(FILE)).toBe("# Focus\n\nNotes for *me*.\n- [x] 0a0a old goal (done 2026-11-30)\n* a bullet, not a goal\n- [ ] 0001 new goal\n");
  });

  it("draws ids unique within the file", async () => {
    await fs.writeFile(FILE, "- [ ] 0001 taken\n- [x] 0002 also taken (done 2026-01-01)\n");
    expect(await run("set", "fresh")).toEqual(out("0003 [ ] fresh\n"));
  });

  it("lists hand-written items without an id, and gives them one on the next write", async () => {
    await fs.writeFile(FILE, "- [ ] call mom\n- [X] 0abc shipped\n");
    expect(await run("list")).toEqual(out("---- [ ] call mom\n0abc [x] shipped\n"));
    expect(await run("done", "----")).toEqual(err("focus done: no goal '----'; focus list shows the ids\n"));
    expect(await run("set", "next")).toEqual(out("0002 [ ] next\n"));
    expect(await fs.readFile(FILE)).toBe("- [ ] 0001 call mom\n- [X] 0abc shipped\n- [ ] 0002 next\n");
  });

  it("explains unknown and finished goals and bad calls", async () => {
    await run("set", "a");
    await run("done", "0001");
    expect(await run("done", "0001")).toEqual(err("focus done: 0001 is already done\n"));
    expect(await run("done", "beef")).toEqual(err("focus done: no goal 'beef'; focus list shows the ids\n"));
    expect(await run("done")).toEqual(usage(focus, "done takes one goal id"));
    expect(await run("set")).toEqual(usage(focus, "set needs the goal, as arguments or on stdin"));
    expect(await run("move", "0001")).toEqual(usage(focus, "unknown subcommand 'move'"));
    expect(await run()).toEqual(usage(focus, "missing subcommand"));
    expect(await run("--help")).toEqual(out(`${focus.usage}\n`));
  });
});
