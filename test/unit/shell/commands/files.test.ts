// The small file tools (view, put, glob, sub) and the stand-ins for commands
// just-bash lacks (mktemp, yes), run directly over an in-memory workspace and
// once through a real just-bash shell.
import { Bash, defineCommand, InMemoryFs } from "just-bash";
import { beforeEach, describe, expect, it } from "vitest";
import type { AgentCommand, CommandIO } from "@/lib/shell/commands/command";
import { glob, GLOB_MAX_MATCHES } from "@/lib/shell/commands/glob";
import { mktemp } from "@/lib/shell/commands/mktemp";
import { put } from "@/lib/shell/commands/put";
import { sub } from "@/lib/shell/commands/sub";
import { view, VIEW_MAX_LINES } from "@/lib/shell/commands/view";
import { yes, YES_CUT_NOTE, YES_MAX_BYTES } from "@/lib/shell/commands/yes";
import { WORKSPACE } from "@/lib/shell/limits";

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

let fs: InMemoryFs;
const io = (opts: { stdin?: string; cwd?: string } = {}): CommandIO => ({
  stdin: opts.stdin ?? "",
  cwd: opts.cwd ?? WORKSPACE,
  env: new Map(),
  fs,
  signal: new AbortController().signal,
});
const out = (stdout: string) => ({ stdout, stderr: "", exitCode: 0 });
const err = (stderr: string, exitCode = 1) => ({ stdout: "", stderr, exitCode });
const usage = (cmd: { name: string; usage: string }, problem: string) => err(`${cmd.name}: ${problem}\n${cmd.usage}\n`, 2);
const file = (path: string) => fs.readFile(`${WORKSPACE}/${path}`);

beforeEach(async () => {
  fs = new InMemoryFs();
  await fs.mkdir(WORKSPACE, { recursive: true });
});

describe("view", () => {
  const run = (...args: string[]) => view.run(args, io(), {});
  beforeEach(async () => {
    await fs.writeFile(`${WORKSPACE}/a.txt`, "alpha\nbeta\ngamma\n");
  });

  it("numbers every line like cat -n", async () => {
    expect(await run("a.txt")).toEqual(out("     1\talpha\n     2\tbeta\n     3\tgamma\n"));
  });

  it("prints START..END, inclusive, and START to the end", async () => {
    expect(await run("a.txt", "2", "2")).toEqual(out("     2\tbeta\n"));
    expect(await run("a.txt", "2")).toEqual(out("     2\tbeta\n     3\tgamma\n"));
    expect(await run("a.txt", "3", "99")).toEqual(out("     3\tgamma\n"));
  });

  it("shows multibyte text and a last line without newline", async () => {
    await fs.writeFile(`${WORKSPACE}/u.txt`, "naïve café ✓\n日本語");
    expect(await run("u.txt")).toEqual(out("     1\tnaïve café ✓\n     2\t日本語\n"));
  });

  it("says when a file is empty", async () => {
    await fs.writeFile(`${WORKSPACE}/e.txt`, "");
    expect(await run("e.txt")).toEqual(out("[view] e.txt is empty\n"));
  });

  it("caps a long file and says how to see the rest", async () => {
    await fs.writeFile(`${WORKSPACE}/big.txt`, Array.from({ length: 2500 }, (_, i) => `line ${i + 1}\n`).join(""));
    const numbered = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => `${String(from + i).padStart(6)}\tline ${from + i}\n`).join("");
    expect(VIEW_MAX_LINES).toBe(2000);
    expect(await run("big.txt")).toEqual(out(`${numbered(1, 2000)}[view] … 500 more lines; view big.txt 2001 2500 shows them\n`));
    expect(await run("big.txt", "100", "2200")).toEqual(out(`${numbered(100, 2099)}[view] … 101 more lines; view big.txt 2100 2200 shows them\n`));
    expect(await run("big.txt", "2001")).toEqual(out(numbered(2001, 2500)));
  });

  it("refuses binary files, directories and missing files", async () => {
    await fs.writeFile(`${WORKSPACE}/bin.dat`, new Uint8Array([104, 0, 105]));
    expect(await run("bin.dat")).toEqual(err("view: bin.dat looks binary (it has NUL bytes); file or od -c can inspect it\n"));
    expect(await run(".")).toEqual(err("view: . is a directory; ls or glob lists it\n"));
    expect(await run("nope.txt")).toEqual(err("view: no such file nope.txt\n"));
  });

  it("rejects bad ranges", async () => {
    expect(await run("a.txt", "5")).toEqual(err("view: a.txt has 3 lines; START 5 is past the end\n"));
    expect(await run("a.txt", "3", "2")).toEqual(usage(view, "END 2 is before START 3"));
    expect(await run("a.txt", "0")).toEqual(usage(view, "START and END are line numbers from 1, not '0'"));
    expect(await run("a.txt", "x", "2")).toEqual(usage(view, "START and END are line numbers from 1, not 'x 2'"));
    expect(await run("a.txt", "1", "2", "3")).toEqual(usage(view, "too many arguments: 3"));
    expect(await run()).toEqual(usage(view, "missing file"));
  });

  it("prints its usage for --help", async () => {
    expect(await run("--help")).toEqual(out(`${view.usage}\n`));
  });
});

describe("put", () => {
  const run = (stdin: string, ...args: string[]) => put.run(args, io({ stdin }), {});

  it("writes stdin, creating parent directories, and leaves no temporary file", async () => {
    expect(await run("hi\n", "notes/a.txt")).toEqual(out("wrote notes/a.txt (3 bytes)\n"));
    expect(await file("notes/a.txt")).toBe("hi\n");
    expect(await fs.readdir(`${WORKSPACE}/notes`)).toEqual(["a.txt"]);
  });

  it("counts bytes, not characters", async () => {
    expect(await run("é✓\n", "/workspace/u.txt")).toEqual(out("wrote /workspace/u.txt (6 bytes)\n"));
    expect(await file("u.txt")).toBe("é✓\n");
  });

  it("refuses to overwrite without --force", async () => {
    await run("one\n", "a.txt");
    expect(await run("two\n", "a.txt")).toEqual(err("put: a.txt exists; add --force to replace it (sub changes part of it)\n"));
    expect(await file("a.txt")).toBe("one\n");
    expect(await run("two\n", "a.txt", "--force")).toEqual(out("wrote a.txt (4 bytes)\n"));
    expect(await file("a.txt")).toBe("two\n");
    expect(await fs.readdir(WORKSPACE)).toEqual(["a.txt"]);
  });

  it("refuses empty stdin unless --force", async () => {
    expect(await run("", "e.txt")).toEqual(err("put: nothing on stdin; pipe the content in (… | put e.txt, or a heredoc); touch makes an empty file\n"));
    expect(await fs.exists(`${WORKSPACE}/e.txt`)).toBe(false);
    expect(await run("", "e.txt", "--force")).toEqual(out("wrote e.txt (0 bytes)\n"));
  });

  it("refuses directories and paths under a file", async () => {
    await fs.mkdir(`${WORKSPACE}/d`);
    await fs.writeFile(`${WORKSPACE}/f.txt`, "x");
    expect(await run("x", "d")).toEqual(err("put: d is a directory\n"));
    expect(await run("x", "f.txt/g/h.txt")).toEqual(err("put: /workspace/f.txt is a file, so f.txt/g/h.txt cannot be created under it\n"));
  });

  it("rejects missing or extra arguments and unknown options", async () => {
    expect(await run("x")).toEqual(usage(put, "missing file"));
    expect(await run("x", "a", "b")).toEqual(usage(put, "put takes one file"));
    expect(await run("x", "a", "--forc")).toEqual(usage(put, "unknown option '--forc'"));
    expect(await run("", "--help")).toEqual(out(`${put.usage}\n`));
  });
});

describe("glob", () => {
  const run = (cwd: string, ...args: string[]) => glob.run(args, io({ cwd }), {});
  beforeEach(async () => {
    for (const p of ["src/a.ts", "src/b.tsx", "src/ünï.ts", "src/lib/c.ts", "src/lib/deep/d.ts", "src/.hidden/e.ts", "src/.env", "README.md", "docs/x.md"]) {
      await fs.mkdir(`${WORKSPACE}/${p}`.replace(/\/[^/]+$/, ""), { recursive: true });
      await fs.writeFile(`${WORKSPACE}/${p}`, "");
    }
  });

  it("matches * and ? within one directory, skipping hidden names", async () => {
    expect(await run(WORKSPACE, "*.md")).toEqual(out("README.md\n"));
    expect(await run(WORKSPACE, "src/*")).toEqual(out("src/a.ts\nsrc/b.tsx\nsrc/lib\nsrc/ünï.ts\n"));
    expect(await run(WORKSPACE, "src/?nï.ts")).toEqual(out("src/ünï.ts\n"));
    expect(await run(WORKSPACE, "src/[ab].ts*")).toEqual(out("src/a.ts\nsrc/b.tsx\n"));
    expect(await run(WORKSPACE, "src/[!a].*")).toEqual(out("src/b.tsx\n"));
  });

  it("matches ** across directories (not hidden ones), and zero of them", async () => {
    expect(await run(WORKSPACE, "src/**/*.ts")).toEqual(out("src/a.ts\nsrc/lib/c.ts\nsrc/lib/deep/d.ts\nsrc/ünï.ts\n"));
    expect(await run(WORKSPACE, "**/d.ts")).toEqual(out("src/lib/deep/d.ts\n"));
    expect(await run(WORKSPACE, "src/lib/**")).toEqual(out("src/lib\nsrc/lib/c.ts\nsrc/lib/deep\nsrc/lib/deep/d.ts\n"));
  });

  it("matches hidden names when the pattern starts with a dot", async () => {
    expect(await run(WORKSPACE, "src/.*")).toEqual(out("src/.env\nsrc/.hidden\n"));
    expect(await run(WORKSPACE, "src/.hidden/*")).toEqual(out("src/.hidden/e.ts\n"));
  });

  it("expands braces, nested too", async () => {
    expect(await run(WORKSPACE, "src/*.{ts,tsx}")).toEqual(out("src/a.ts\nsrc/b.tsx\nsrc/ünï.ts\n"));
    expect(await run(WORKSPACE, "src/{a,lib/{c,deep/d}}.ts")).toEqual(out("src/a.ts\nsrc/lib/c.ts\nsrc/lib/deep/d.ts\n"));
  });

  it("matches only directories for a pattern ending in /", async () => {
    expect(await run(WORKSPACE, "src/*/")).toEqual(out("src/lib/\n"));
  });

  it("prints absolute paths for absolute patterns and relative ones from cwd", async () => {
    expect(await run(WORKSPACE, "/workspace/src/?.ts")).toEqual(out("/workspace/src/a.ts\n"));
    expect(await run(`${WORKSPACE}/src`, "lib/*")).toEqual(out("lib/c.ts\nlib/deep\n"));
    expect(await run(`${WORKSPACE}/src`, "../docs/*.md")).toEqual(out("../docs/x.md\n"));
  });

  it("unites several patterns, sorted and without duplicates", async () => {
    expect(await run(WORKSPACE, "docs/*", "*.md", "src/a.*", "src/*.ts")).toEqual(out("README.md\ndocs/x.md\nsrc/a.ts\nsrc/ünï.ts\n"));
  });

  it("stops at GLOB_MAX_MATCHES and says so", async () => {
    await fs.mkdir(`${WORKSPACE}/many`);
    const names = Array.from({ length: GLOB_MAX_MATCHES + 1 }, (_, i) => `many/f${String(i).padStart(5, "0")}`);
    for (const n of names) await fs.writeFile(`${WORKSPACE}/${n}`, "");
    expect(await run(WORKSPACE, "many/*")).toEqual({
      stdout: names.slice(0, GLOB_MAX_MATCHES).map((n) => `${n}\n`).join(""),
      stderr: `glob: stopped at ${GLOB_MAX_MATCHES} matches; narrow the pattern\n`,
      exitCode: 0,
    });
  });

  it("exits 1 when nothing matches, and 2 without a pattern", async () => {
    expect(await run(WORKSPACE, "*.py")).toEqual(err("glob: nothing matches '*.py'\n"));
    expect(await run(WORKSPACE, "*.py", "nope/**")).toEqual(err("glob: nothing matches '*.py' 'nope/**'\n"));
    expect(await run(WORKSPACE)).toEqual(usage(glob, "missing pattern"));
    expect(await run(WORKSPACE, "--help")).toEqual(out(`${glob.usage}\n`));
  });
});

describe("sub", () => {
  const run = (...args: string[]) => sub.run(args, io(), {});
  beforeEach(async () => {
    await fs.writeFile(`${WORKSPACE}/f.txt`, "hello world\nsee a.*b and $1\n");
  });

  it("replaces one exact occurrence, regex characters and $ included", async () => {
    expect(await run("f.txt", "world", "there")).toEqual(out("replaced 1 occurrence in f.txt\n"));
    expect(await run("f.txt", "a.*b and $1", "$& [x]")).toEqual(out("replaced 1 occurrence in f.txt\n"));
    expect(await file("f.txt")).toBe("hello there\nsee $& [x]\n");
    expect(await fs.readdir(WORKSPACE)).toEqual(["f.txt"]);
  });

  it("handles multibyte text", async () => {
    await fs.writeFile(`${WORKSPACE}/u.txt`, "naïve café\n");
    expect(await run("u.txt", "café", "☕")).toEqual(out("replaced 1 occurrence in u.txt\n"));
    expect(await file("u.txt")).toBe("naïve ☕\n");
  });

  it("refuses text that is missing or not unique", async () => {
    expect(await run("f.txt", "xyz", "q")).toEqual(err("sub: 'xyz' not found in f.txt\n"));
    expect(await run("f.txt", "o", "0")).toEqual(err("sub: 'o' occurs 2 times in f.txt; give more context so it is unique\n"));
    expect(await run("f.txt", "world\nnope", "q")).toEqual(err("sub: 'world…' not found in f.txt\n"));
    expect(await file("f.txt")).toBe("hello world\nsee a.*b and $1\n");
  });

  it("reads multi-line old and new text from files", async () => {
    await fs.writeFile(`${WORKSPACE}/old.txt`, "world\nsee");
    await fs.writeFile(`${WORKSPACE}/new.txt`, "moon\nlook at");
    expect(await run("f.txt", "--old-file", "old.txt", "--new-file", "new.txt")).toEqual(out("replaced 1 occurrence in f.txt\n"));
    expect(await file("f.txt")).toBe("hello moon\nlook at a.*b and $1\n");
    expect(await run("f.txt", "--old-file", "old.txt", "x")).toEqual(err("sub: 'world…' not found in f.txt\n"));
    expect(await run("f.txt", "--old-file", "gone.txt", "x")).toEqual(err("sub: cannot read --old-file gone.txt\n"));
  });

  it("takes text starting with -- after --", async () => {
    await fs.writeFile(`${WORKSPACE}/o.txt`, "run --fast\n");
    expect(await run("o.txt", "--", "--fast", "--slow")).toEqual(out("replaced 1 occurrence in o.txt\n"));
    expect(await file("o.txt")).toBe("run --slow\n");
  });

  it("refuses missing and binary files, and bad arguments", async () => {
    await fs.writeFile(`${WORKSPACE}/bin.dat`, new Uint8Array([97, 0, 98]));
    expect(await run("nope.txt", "a", "b")).toEqual(err("sub: no such file nope.txt\n"));
    expect(await run("bin.dat", "a", "b")).toEqual(err("sub: bin.dat looks binary (it has NUL bytes); sub edits text files\n"));
    expect(await run("f.txt", "", "b")).toEqual(usage(sub, "<old> is empty; give the text to replace"));
    expect(await run("f.txt", "a")).toEqual(usage(sub, "expected 3 arguments, got 2"));
    expect(await run("f.txt", "--regex", "a", "b")).toEqual(usage(sub, "unknown option '--regex'"));
    expect(await run("--help")).toEqual(out(`${sub.usage}\n`));
  });
});

describe("mktemp", () => {
  let ids: ReturnType<typeof sequentialIds>;
  const run = (...args: string[]) => mktemp.run(args, io(), { ids });
  beforeEach(() => {
    ids = sequentialIds();
  });

  it("creates an empty file under /tmp, creating /tmp if needed", async () => {
    expect(await run()).toEqual(out("/tmp/tmp.0000000001\n"));
    expect(await fs.readFile("/tmp/tmp.0000000001")).toBe("");
  });

  it("creates a directory with -d, and fills a short template", async () => {
    expect(await run("-d", "work.XXX")).toEqual(out("/tmp/work.001\n"));
    expect((await fs.stat("/tmp/work.001")).isDirectory).toBe(true);
  });

  it("places a template with / from cwd, and one without in -p DIR", async () => {
    await fs.mkdir(`${WORKSPACE}/scratch`);
    expect(await run("scratch/x.XXXX")).toEqual(out("/workspace/scratch/x.0001\n"));
    expect(await run("-p", "scratch", "y.XXXX")).toEqual(out("/workspace/scratch/y.0002\n"));
  });

  it("draws again when a name is taken", async () => {
    await fs.mkdir("/tmp");
    await fs.writeFile("/tmp/t.001", "mine");
    expect(await run("t.XXX")).toEqual(out("/tmp/t.002\n"));
    expect(await fs.readFile("/tmp/t.001")).toBe("mine");
  });

  it("explains bad templates, missing directories and options", async () => {
    expect(await run("t.XX")).toEqual(err("mktemp: too few X's in template 't.XX'; end it with at least 3, like tmp.XXXXXXXXXX\n"));
    expect(await run("nope/t.XXX")).toEqual(err("mktemp: cannot create in /workspace/nope: no such directory\n"));
    expect(await run("-u")).toEqual(usage(mktemp, "unknown option '-u'"));
    expect(await run("a.XXX", "b.XXX")).toEqual(usage(mktemp, "give at most one TEMPLATE"));
    expect(await run("--help")).toEqual(out(`${mktemp.usage}\n`));
  });
});

describe("yes", () => {
  const run = (...args: string[]) => yes.run(args, io(), {});

  it("repeats y until 64 KiB, and says it stopped there", async () => {
    expect(YES_MAX_BYTES).toBe(65536);
    expect(await run()).toEqual({ ...out("y\n".repeat(32768)), stderr: "[reverie] yes stopped after 64 KiB (this shell's pipes pass whole outputs, not streams)\n" });
  });

  it("joins its arguments and counts bytes, so multibyte lines stay whole", async () => {
    expect((await run("hello", "world")).stdout).toBe("hello world\n".repeat(5461));
    expect((await run("é")).stdout).toBe("é\n".repeat(21845));
  });

  it("prints a line longer than the cap once", async () => {
    const long = "z".repeat(70_000);
    expect(await run(long)).toEqual({ ...out(`${long}\n`), stderr: YES_CUT_NOTE });
    expect(await run("--help")).toEqual(out(`${yes.usage}\n`));
  });
});

describe("inside just-bash", () => {
  const decoder = new TextDecoder();
  /** just-bash hands stdin over as one char per byte; the sandbox decodes it as UTF-8 the same way. */
  const stdinText = (stdin: unknown) => decoder.decode(Uint8Array.from(String(stdin), (c) => c.charCodeAt(0) & 0xff));

  it("runs yes | head, put from a pipe, mktemp and view", async () => {
    const ports = { ids: sequentialIds() };
    const wrap = <P,>(cmd: AgentCommand<P>, p: P) =>
      defineCommand(cmd.name, (args, ctx) =>
        cmd.run(args, { stdin: stdinText(ctx.stdin), cwd: ctx.cwd, env: ctx.env, fs: ctx.fs, signal: ctx.signal ?? new AbortController().signal }, p),
      );
    const bash = new Bash({ fs, cwd: WORKSPACE, customCommands: [wrap(yes, {}), wrap(put, {}), wrap(view, {}), wrap(mktemp, ports)] });
    const result = await bash.exec("yes | head -3\necho hi | put notes/a.txt\ncat notes/a.txt\nt=$(mktemp)\necho \"made $t\"\necho 'héllo ✓' | put u.txt\nview u.txt\n");
    expect({ stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode }).toEqual({
      ...out("y\ny\ny\nwrote notes/a.txt (3 bytes)\nhi\nmade /tmp/tmp.0000000001\nwrote u.txt (11 bytes)\n     1\théllo ✓\n"),
      stderr: YES_CUT_NOTE,
    });
    expect(await fs.readFile("/tmp/tmp.0000000001")).toBe("");
  });
});
