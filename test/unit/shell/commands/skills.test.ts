// skills (install, list, show, remove), listSkills for the prompt builder, and
// the front matter they share, over an in-memory workspace and a fake network.
import { InMemoryFs } from "just-bash";
import { beforeEach, describe, expect, it } from "vitest";
import type { CommandIO } from "@/lib/shell/commands/command";
import { skills } from "@/lib/shell/commands/skills";
import { formatFrontMatter } from "@/lib/shell/front-matter";
import { WORKSPACE } from "@/lib/shell/limits";
import type { FetchTextResult, NetPort } from "@/lib/shell/ports";
import type { FileRecord } from "@/lib/mind/state/state";
import { openPersistentFs } from "@/lib/shell/persistent-fs";
import { listSkills, parseFrontMatter, recordsReader, SKILL_DESCRIPTION_CHARS } from "@/lib/shell/skills";

const SKILL_URL = "https://skills.example/deploy.md";
const DEPLOY = "---\nname: deploy\ndescription: Ship the app to fly.io\n---\n# Deploy\nfly deploy\n";

/** FAKE NetPort: one allowed URL with a canned skill; every other URL is denied as the real port would. */
function fakeNet(): NetPort & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async fetchText(url: string, signal: AbortSignal): Promise<FetchTextResult> {
      calls.push(`${url}${signal.aborted ? " (aborted)" : ""}`);
      if (url === SKILL_URL) return { ok: true, status: 200, text: DEPLOY };
      return { ok: false, error: `network: ${url} is not in this mind's allow-list` };
    },
  };
}

let fs: InMemoryFs;
let net: ReturnType<typeof fakeNet>;
const io = (): CommandIO => ({ stdin: "", cwd: WORKSPACE, env: new Map(), fs, signal: new AbortController().signal });
const run = (...args: string[]) => skills.run(args, io(), { net });
const out = (stdout: string) => ({ stdout, stderr: "", exitCode: 0 });
const err = (stderr: string, exitCode = 1) => ({ stdout: "", stderr, exitCode });
const usage = (problem: string) => err(`skills: ${problem}\n${skills.usage}\n`, 2);
const write = async (path: string, text: string | Uint8Array) => {
  await fs.mkdir(`${WORKSPACE}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
  await fs.writeFile(`${WORKSPACE}/${path}`, text);
};
const installed = (name: string) => fs.readFile(`${WORKSPACE}/skills/${name}.md`);

beforeEach(async () => {
  fs = new InMemoryFs();
  await fs.mkdir(WORKSPACE, { recursive: true });
  net = fakeNet();
});

describe("skills install", () => {
  it("installs a workspace file with front matter, keeping its other fields", async () => {
    await write("drafts/git.md", "---\nname: git-tips\ndescription: Everyday git in this workspace\nauthor: me\n---\nUse git status.\n");
    expect(await run("install", "drafts/git.md")).toEqual(out("installed git-tips: Everyday git in this workspace\n"));
    expect(await installed("git-tips")).toBe("---\nname: git-tips\ndescription: Everyday git in this workspace\nauthor: me\n---\nUse git status.\n");
  });

  it("takes the description from the first line and the name from the file or --name", async () => {
    await write("notes/search.md", "\n# How to search the web\n\nUse rg.\n");
    expect(await run("install", "notes/search.md")).toEqual(out("installed search: How to search the web\n"));
    expect(await installed("search")).toBe("---\nname: search\ndescription: How to search the web\n---\n\n# How to search the web\n\nUse rg.\n");
    await write("notes/Café Tips.md", "Coffee: grind fresh ☕\n");
    expect(await run("install", "notes/Café Tips.md")).toEqual(
      err("skills install: 'Café Tips' cannot be a skill name (lowercase letters, digits, '.', '_', '-'; at most 60); choose one with --name\n"),
    );
    expect(await run("install", "notes/Café Tips.md", "--name", "cafe")).toEqual(out("installed cafe: Coffee: grind fresh ☕\n"));
    expect(await run("install", "--name=bad name", "notes/search.md")).toEqual(
      err("skills install: 'bad name' cannot be a skill name (lowercase letters, digits, '.', '_', '-'; at most 60); choose one with --name\n"),
    );
  });

  it("refuses files without a description, binary files and missing files", async () => {
    await write("empty.md", "---\nname: empty\n---\n\n  \n");
    await write("blob.md", new Uint8Array([35, 32, 104, 0, 105]));
    expect(await run("install", "empty.md")).toEqual(
      err("skills install: empty.md has no description; start it with front matter 'description: <what it is for>' or a line saying what it is for\n"),
    );
    expect(await run("install", "blob.md")).toEqual(err("skills install: blob.md is binary; a skill is a Markdown text file\n"));
    expect(await run("install", "gone.md")).toEqual(err("skills install: no file gone.md\n"));
    expect(await run("install", "ftp://skills.example/x.md")).toEqual(err("skills install: only http(s) URLs and workspace files can be installed, not ftp://skills.example/x.md\n"));
    expect(await fs.exists(`${WORKSPACE}/skills`)).toBe(false);
  });

  it("refuses to replace an installed skill unless --force", async () => {
    await write("a.md", "---\ndescription: first\n---\nA\n");
    await write("b.md", "---\ndescription: second\n---\nB\n");
    await run("install", "a.md", "--name", "tool");
    expect(await run("install", "b.md", "--name", "tool")).toEqual(
      err("skills install: 'tool' is already installed; add --force to replace it, or --name to install it under another name\n"),
    );
    expect(await installed("tool")).toBe("---\nname: tool\ndescription: first\n---\nA\n");
    expect(await run("install", "b.md", "--name", "tool", "--force")).toEqual(out("installed tool: second\n"));
    expect(await installed("tool")).toBe("---\nname: tool\ndescription: second\n---\nB\n");
  });

  it("installs from a URL through the net port, and reports what the port refuses", async () => {
    expect(await run("install", SKILL_URL)).toEqual(out("installed deploy: Ship the app to fly.io\n"));
    expect(await installed("deploy")).toBe(DEPLOY);
    expect(await run("install", "https://evil.example/x.md")).toEqual(err("skills install: network: https://evil.example/x.md is not in this mind's allow-list\n"));
    expect(net.calls).toEqual([SKILL_URL, "https://evil.example/x.md"]);
  });

  it("reports an HTTP error status", async () => {
    // FAKE NetPort that reaches the server but gets a 404.
    const notFound: NetPort = { fetchText: async () => ({ ok: true, status: 404, text: "Not Found" }) };
    expect(await skills.run(["install", "https://skills.example/nope.md"], io(), { net: notFound })).toEqual(
      err("skills install: https://skills.example/nope.md answered HTTP 404\n"),
    );
  });

  it("rejects bad calls", async () => {
    expect(await run("install")).toEqual(usage("install takes one file or URL"));
    expect(await run("install", "a.md", "b.md")).toEqual(usage("install takes one file or URL"));
    expect(await run("install", "a.md", "--name")).toEqual(usage("--name needs a value"));
    expect(await run("install", "a.md", "-f")).toEqual(usage("unknown option '-f'"));
  });
});

describe("skills list, show, remove", () => {
  beforeEach(async () => {
    await run("install", SKILL_URL);
    await write("skills/notes-on-rg.md", "Searching code with rg, fast\n\nrg -n PATTERN\n");
  });

  it("lists installed skills by name, aligned", async () => {
    expect(await run("list")).toEqual(out("deploy       Ship the app to fly.io\nnotes-on-rg  Searching code with rg, fast\n"));
  });

  it("shows a skill's file", async () => {
    expect(await run("show", "deploy")).toEqual(out(DEPLOY));
    expect(await run("show", "nope")).toEqual(err("skills show: no skill 'nope'; skills list shows the installed ones\n"));
    expect(await run("show", "../focus")).toEqual(err("skills show: no skill '../focus'; skills list shows the installed ones\n"));
  });

  it("removes a skill", async () => {
    expect(await run("remove", "deploy")).toEqual(out("removed deploy\n"));
    expect(await run("list")).toEqual(out("notes-on-rg  Searching code with rg, fast\n"));
    expect(await run("remove", "deploy")).toEqual(err("skills remove: no skill 'deploy'; skills list shows the installed ones\n"));
    await run("remove", "notes-on-rg");
    expect(await run("list")).toEqual(out("no skills installed; skills install <file or URL> adds one\n"));
  });

  it("prints usage for --help and rejects unknown or missing subcommands", async () => {
    expect(await run("--help")).toEqual(out(`${skills.usage}\n`));
    expect(await run()).toEqual(usage("missing subcommand"));
    expect(await run("add", "x")).toEqual(usage("unknown subcommand 'add'"));
    expect(await run("show")).toEqual(usage("show takes one skill name"));
    expect(await run("list", "-a")).toEqual(usage("list takes no arguments, not '-a'"));
  });
});

describe("listSkills", () => {
  it("is empty without a skills directory", async () => {
    expect(await listSkills(fs)).toEqual([]);
  });

  it("returns valid skills sorted by name, skipping what it cannot use, cutting long descriptions", async () => {
    await write("skills/zeta.md", "---\ndescription: 'quoted, last'\n---\nz\n");
    await write("skills/alpha.md", `---\nname: other-name\ndescription: ${"é".repeat(300)}\n---\n`);
    await write("skills/blank.md", "---\nname: blank\n---\n\n");
    await write("skills/Upper.md", "---\ndescription: bad file name\n---\n");
    await write("skills/notes.txt", "not markdown");
    await write("skills/bin.md", new Uint8Array([0, 1, 2]));
    await fs.mkdir(`${WORKSPACE}/skills/dir.md`);
    expect(await listSkills(fs)).toEqual([
      { name: "alpha", description: `${"é".repeat(SKILL_DESCRIPTION_CHARS - 1)}…` },
      { name: "zeta", description: "quoted, last" },
    ]);
  });
});

describe("listSkills from saved rows (recordsReader, what the browser's worker reads before its sandbox is loaded)", () => {
  it("lists what the workspace made from the same rows lists", async () => {
    const enc = new TextEncoder();
    const file = (path: string, data: string | Uint8Array): FileRecord => ({ path: `${WORKSPACE}/${path}`, kind: "file", data: typeof data === "string" ? enc.encode(data) : data, mode: 0o644, mtime: 1 });
    const dir = (path: string): FileRecord => ({ path: `${WORKSPACE}/${path}`, kind: "dir", mode: 0o755, mtime: 1 });
    const records: FileRecord[] = [
      dir("skills"),
      file("skills/zeta.md", "---\ndescription: 'quoted, last'\n---\nz\n"),
      file("skills/alpha.md", "# Alpha\nfirst line\n"),
      file("skills/blank.md", "---\nname: blank\n---\n\n"),
      file("skills/Upper.md", "---\ndescription: bad file name\n---\n"),
      file("skills/bin.md", new Uint8Array([0, 1, 2])),
      dir("skills/dir.md"),
      file("skills/deeper/inner.md", "not a skill of the top level\n"),
      file("notes.md", "outside the skills directory\n"),
    ];
    const { fs: workspace } = await openPersistentFs({ loadAll: async () => structuredClone(records), save: async () => undefined });
    const fromRows = await listSkills(recordsReader(records));
    expect(fromRows).toEqual([
      { name: "alpha", description: "Alpha" },
      { name: "zeta", description: "quoted, last" },
    ]);
    expect(fromRows).toEqual(await listSkills(workspace));
    // No skills directory: none, as from the workspace.
    expect(await listSkills(recordsReader(records.slice(-1)))).toEqual([]);
  });
});

describe("front matter", () => {
  it("reads flat fields and lists, unquoting values", () => {
    expect(parseFrontMatter("---\nid: ab12\ntags: [a, 'b c', ]\ntitle: \"x: y\"\n---\nbody\n")).toEqual({
      fields: { id: "ab12", tags: ["a", "b c"], title: "x: y" },
      body: "body\n",
      hasFrontMatter: true,
    });
  });

  it("treats text without a closed block as all body, and accepts CRLF and empty blocks", () => {
    expect(parseFrontMatter("# Title\n---\n")).toEqual({ fields: {}, body: "# Title\n---\n", hasFrontMatter: false });
    expect(parseFrontMatter("---\nid: x\nno end\n")).toEqual({ fields: {}, body: "---\nid: x\nno end\n", hasFrontMatter: false });
    expect(parseFrontMatter("---\r\nid: x\r\n---\r\nbody")).toEqual({ fields: { id: "x" }, body: "body", hasFrontMatter: true });
    expect(parseFrontMatter("---\n---\nbody")).toEqual({ fields: {}, body: "body", hasFrontMatter: true });
  });

  it("writes what it reads", () => {
    const text = formatFrontMatter({ id: "ab12", tags: ["a", "b"], note: "two\nlines" }, "body\n");
    expect(text).toBe("---\nid: ab12\ntags: [a, b]\nnote: two lines\n---\nbody\n");
    expect(parseFrontMatter(text)).toEqual({ fields: { id: "ab12", tags: ["a", "b"], note: "two lines" }, body: "body\n", hasFrontMatter: true });
  });
});
