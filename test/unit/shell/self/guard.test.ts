// lib/shell/self/guard.ts through the real just-bash sandbox (issue 24): the
// mind's shell may change the texts in /workspace/self, but not remove, move
// or link them, nor replace the folder; and past the rate a write fails in the
// shell with a line the mind sees, and the result counts it. Each test starts
// from a workspace whose self/ holds the five texts and an empty watchers/,
// and after every refused attack the five are still plain files as they were.
import { InMemoryFs } from "just-bash";
import { beforeEach, describe, expect, it } from "vitest";
import { Journal } from "@/lib/mind/log/journal";
import { MemoryMindState } from "@/lib/mind/state/memory-state";
import { MindWriter, TrajectoryLog } from "@/lib/mind/log/mind-log";
import type { Clock, ShellSession } from "@/lib/mind/ports";
import { justBashSandbox } from "@/lib/shell/just-bash-sandbox";
import { FIXED_LIMITS, WORKSPACE } from "@/lib/shell/limits";
import { selfChanges } from "@/lib/shell/self/guard";
import { SELF_DIR, SELF_FILES } from "@/lib/shell/self/paths";
import { DEFAULT_PERMISSIONS } from "@/lib/trajectory/permissions";
import { ROOT_TRAJ } from "../../helpers/memory-log";
import { echoShellm, predictableIds, runScope } from "../../helpers/wired-sandbox";

const T0 = Date.UTC(2026, 10, 30, 17, 44, 36, 123);
const ids = predictableIds();

let now: number;
let fs: InMemoryFs;
let session: ShellSession;

beforeEach(async () => {
  now = T0;
  ids.reset();
  const clock: Clock = { now: () => now, sleep: async () => undefined };
  const log = new TrajectoryLog(new MindWriter(new MemoryMindState(ROOT_TRAJ)), ROOT_TRAJ);
  const run = await new Journal(log, ids, clock).openRun({ model: "test", launched_by: "monolith" });
  fs = new InMemoryFs();
  await fs.mkdir(`${SELF_DIR}/watchers`, { recursive: true });
  for (const file of SELF_FILES) await fs.writeFile(`${SELF_DIR}/${file}`, `${file} as shipped\n`);
  await fs.writeFile(`${WORKSPACE}/notes.md`, "my notes\n");
  session = justBashSandbox({ fs, flush: async () => undefined, permissions: DEFAULT_PERMISSIONS, ids, clock }).open(runScope(run, "Reverie", echoShellm()));
});

interface Outcome {
  stdout: string;
  stderr: string;
  exit: number;
  selfRefused?: number;
}

async function sh(code: string): Promise<Outcome> {
  const r = await session.exec(code, { env: {}, cwd: WORKSPACE, signal: new AbortController().signal });
  return { stdout: r.stdout, stderr: r.stderr, exit: r.exit, ...(r.selfRefused === undefined ? {} : { selfRefused: r.selfRefused }) };
}

/** Everything under self/ as lstat sees it (links not followed). */
async function selfTree(): Promise<string[]> {
  const out: string[] = [];
  async function walk(path: string) {
    const st = await fs.lstat(path);
    if (st.isSymbolicLink) return void out.push(`${path} -> ${await fs.readlink(path)}`);
    if (!st.isDirectory) return void out.push(`${path}: ${await fs.readFile(path)}`);
    out.push(`${path}/`);
    for (const name of (await fs.readdir(path)).sort()) await walk(`${path}/${name}`);
  }
  if (await fs.exists(SELF_DIR)) await walk(SELF_DIR);
  return out;
}

const AS_SHIPPED = [
  "/workspace/self/",
  "/workspace/self/first-look.md: first-look.md as shipped\n",
  "/workspace/self/instructions.md: instructions.md as shipped\n",
  "/workspace/self/persona.md: persona.md as shipped\n",
  "/workspace/self/responder.md: responder.md as shipped\n",
  "/workspace/self/summarizer.md: summarizer.md as shipped\n",
  "/workspace/self/watchers/",
];

const RATE = `self/ takes at most ${FIXED_LIMITS.selfWritesPerMinute} writes a minute; this one was not made`;

describe("self/ keeps its shape", () => {
  it("its texts cannot be removed or moved, one at a time or with the folder", async () => {
    expect(await sh("rm self/instructions.md")).toEqual({
      stdout: "",
      stderr: "rm: cannot remove 'self/instructions.md': self/instructions.md can be changed, not removed or moved\n",
      exit: 1,
    });
    // rm -f prints no error of its own: the sandbox says what was refused.
    expect(await sh("rm -rf self")).toEqual({ stdout: "", stderr: "[reverie] self/ can be changed, not removed or moved\n", exit: 0 });
    expect(await sh("mv self s2; ls -A")).toEqual({ stdout: "notes.md\nself\n", stderr: "mv: cannot move 'self': self/ can be changed, not removed or moved\n", exit: 0 });
    expect(await sh("mv self/instructions.md /tmp/x; ls /tmp")).toEqual({
      stdout: "",
      stderr: "mv: cannot move 'self/instructions.md': self/instructions.md can be changed, not removed or moved\n",
      exit: 0,
    });
    expect(await sh("rm -r self/watchers")).toEqual({ stdout: "", stderr: "rm: cannot remove 'self/watchers': self/watchers/ can be changed, not removed or moved\n", exit: 1 });
    expect(await selfTree()).toEqual(AS_SHIPPED);
  });

  it("removing the whole workspace is refused whole: nothing in it is removed, self/ or not", async () => {
    // One rm call takes the whole tree (just-bash's rm -r is a single fs.rm), so it is kept or refused as one.
    expect(await sh("rm -rf /workspace; ls -A /workspace")).toEqual({ stdout: "notes.md\nself\n", stderr: "[reverie] self/ can be changed, not removed or moved\n", exit: 0 });
    expect(await sh("rm -r /workspace")).toEqual({ stdout: "", stderr: "rm: cannot remove '/workspace': self/ can be changed, not removed or moved\n", exit: 1 });
    // What is next to self/ can still go, one by one.
    expect(await sh("rm -rf /workspace/*; ls -A /workspace")).toEqual({ stdout: "self\n", stderr: "[reverie] self/ can be changed, not removed or moved\n", exit: 0 });
    expect(await selfTree()).toEqual(AS_SHIPPED);
  });

  it("no link is made in self/, to it from inside, or out of it by a hard link", async () => {
    const NO_LINKS = "ln: self/ holds plain files only: no links\n";
    expect(await sh("echo secret > /tmp/x; ln -s /tmp/x self/evil")).toEqual({ stdout: "", stderr: NO_LINKS, exit: 1 });
    expect(await sh("ln -s /tmp/x self/watchers/evil.sh")).toEqual({ stdout: "", stderr: NO_LINKS, exit: 1 });
    expect(await sh("rm -rf self; ln -s /tmp/x self")).toEqual({
      stdout: "",
      stderr: "ln: failed to create symbolic link 'self': File exists\n[reverie] self/ can be changed, not removed or moved\n",
      exit: 1,
    });
    expect(await sh("ln -sf /tmp/x self")).toEqual({ stdout: "", stderr: "ln: cannot remove 'self': Permission denied\n[reverie] self/ can be changed, not removed or moved\n", exit: 1 });
    expect(await sh("ln /workspace/self/instructions.md /tmp/h; ls /tmp")).toEqual({ stdout: "x\n", stderr: NO_LINKS, exit: 0 });
    expect(await sh("ln /tmp/x self/watchers/h.sh")).toEqual({ stdout: "", stderr: NO_LINKS, exit: 1 });
    expect(await selfTree()).toEqual(AS_SHIPPED);
  });

  it("nothing copied or moved in brings a link, or replaces the folder", async () => {
    await sh("mkdir -p /tmp/self/d && echo x > /tmp/x && ln -s /tmp/x /tmp/self/d/link && ln -s /tmp/x /tmp/link");
    expect(await sh("cp /tmp/link self/watchers/a.sh")).toEqual({ stdout: "", stderr: "cp: cannot copy '/tmp/link': self/ holds plain files only: no links\n", exit: 1 });
    expect(await sh("cp -r /tmp/self/d self/watchers/")).toEqual({ stdout: "", stderr: "cp: cannot copy '/tmp/self/d': self/ holds plain files only: no links\n", exit: 1 });
    expect(await sh("mv /tmp/self/d self/watchers/")).toEqual({ stdout: "", stderr: "mv: cannot move '/tmp/self/d': self/ holds plain files only: no links\n", exit: 1 });
    expect(await sh("cp -r /tmp/self /workspace/")).toEqual({ stdout: "", stderr: "cp: cannot copy '/tmp/self': self/ can be changed, not replaced\n", exit: 1 });
    expect(await sh("mv /tmp/self /workspace/")).toEqual({ stdout: "", stderr: "mv: cannot move '/tmp/self': self/ can be changed, not replaced\n", exit: 1 });
    // A file written over the folder (InMemoryFs would let it, leaving the texts unseen behind it); tee hides why.
    expect(await sh("echo x | tee /workspace/self >/dev/null")).toEqual({
      stdout: "",
      stderr: "tee: /workspace/self: No such file or directory\n[reverie] self/ can be changed, not removed or moved\n",
      exit: 1,
    });
    expect(await selfTree()).toEqual(AS_SHIPPED);
  });

  it("what goes in is plain: a text replaced by a file, and watchers added, renamed and removed", async () => {
    expect(await sh("echo 'be brief' > /tmp/new.md && mv /tmp/new.md self/instructions.md && cat self/instructions.md")).toEqual({ stdout: "be brief\n", stderr: "", exit: 0 });
    expect(await sh("echo 'echo hi' > self/watchers/a.sh; mv self/watchers/a.sh self/watchers/b.sh; ls self/watchers; rm self/watchers/b.sh; ls self/watchers")).toEqual({
      stdout: "b.sh\n",
      stderr: "",
      exit: 0,
    });
    expect(await sh("cp notes.md self/watchers/notes.sh && rm -r self/watchers/* && ls -A self/watchers")).toEqual({ stdout: "", stderr: "", exit: 0 });
    expect(await selfTree()).toEqual(AS_SHIPPED.map((l) => (l.startsWith("/workspace/self/instructions.md") ? "/workspace/self/instructions.md: be brief\n" : l)));
  });

  it("a write through a link to self/ lands in the real file, and counts toward the rate", async () => {
    expect(await sh("ln -s /workspace/self /tmp/s && echo x > /tmp/s/instructions.md && cat self/instructions.md && ls -A /tmp/s")).toEqual({
      stdout: "x\nfirst-look.md\ninstructions.md\npersona.md\nresponder.md\nsummarizer.md\nwatchers\n",
      stderr: "",
      exit: 0,
    });
    // And the folder it goes through is seen for what it is: removing through it is removing.
    expect(await sh("cd /tmp/s && rm persona.md")).toEqual({ stdout: "", stderr: "rm: cannot remove 'persona.md': self/persona.md can be changed, not removed or moved\n", exit: 1 });
    // Its redirect took two of the minute's writes: 14 more redirects are left.
    expect(await sh("for i in $(seq 20); do echo $i > /tmp/s/instructions.md; done; cat self/instructions.md")).toEqual({
      stdout: "14\n",
      stderr: `self/instructions.md: refused: ${RATE}\n`,
      exit: 0,
      selfRefused: 1,
    });
    // Removing the link removes the link (just-bash's rm wants -r for a link to a folder).
    expect(await sh("rm -r /tmp/s; ls /tmp; cat self/persona.md")).toEqual({ stdout: "persona.md as shipped\n", stderr: "", exit: 0 });
  });
});

describe("the rate of writes to self/", () => {
  it("a flood fails in the shell after the minute's writes; the file keeps the last that went in; a minute later it takes writes again", async () => {
    // `echo $i > f` is two calls (the redirect opens f with an empty write, then writes),
    // so the 30 writes of a minute are 15 redirects. A refused redirect is an fs error
    // just-bash does not catch per command: it ends the loop (or { } group) it is in.
    expect(await sh('for i in $(seq 1000); do echo $i > self/instructions.md; done; echo "after $?"; cat self/instructions.md')).toEqual({
      stdout: "after 1\n15\n",
      stderr: `self/instructions.md: refused: ${RATE}\n`,
      exit: 0,
      selfRefused: 1,
    });
    expect(await sh("echo again > self/instructions.md; echo unreached")).toEqual({ stdout: "", stderr: `self/instructions.md: refused: ${RATE}\n`, exit: 1, selfRefused: 1 });
    // Commands print it as their own error, and go on.
    expect(await sh("touch self/persona.md; mkdir self/watchers/d; echo $?")).toEqual({
      stdout: "1\n",
      stderr: `touch: cannot touch 'self/persona.md': self/persona.md: refused: ${RATE}\nmkdir: cannot create directory 'self/watchers/d': self/watchers/d: refused: ${RATE}\n`,
      exit: 0,
      selfRefused: 2,
    });
    // tee and sed print "No such file or directory" for any error: the sandbox adds what it was.
    expect(await sh("echo z | tee self/persona.md; sed -i s/as/was/ self/persona.md")).toEqual({
      stdout: "z\n",
      stderr: `tee: self/persona.md: No such file or directory\nsed: self/persona.md: No such file or directory\n[reverie] self/persona.md: refused: ${RATE}\n`,
      exit: 1,
      selfRefused: 2,
    });
    now += 59_000;
    expect(await sh("echo still > self/instructions.md")).toEqual({ stdout: "", stderr: `self/instructions.md: refused: ${RATE}\n`, exit: 1, selfRefused: 1 });
    now += 2_000;
    expect(await sh("echo later > self/instructions.md; cat self/instructions.md")).toEqual({ stdout: "later\n", stderr: "", exit: 0 });
    expect(await selfTree()).toEqual(AS_SHIPPED.map((l) => (l.startsWith("/workspace/self/instructions.md") ? "/workspace/self/instructions.md: later\n" : l)));
  });

  it("a redirect is never cut in two: with one write left it is refused whole, and the file keeps its text", async () => {
    expect(await sh("for i in $(seq 14); do echo $i > self/instructions.md; done; touch self/persona.md")).toEqual({ stdout: "", stderr: "", exit: 0 });
    expect(await sh("echo cut > self/instructions.md")).toEqual({ stdout: "", stderr: `self/instructions.md: refused: ${RATE}\n`, exit: 1, selfRefused: 1 });
    expect(await sh("cat self/instructions.md")).toEqual({ stdout: "14\n", stderr: "", exit: 0 });
  });

  it("writes elsewhere in the workspace are neither refused nor counted", async () => {
    expect(await sh("for i in $(seq 500); do echo $i > notes.md; echo $i >> /tmp/log; done; cat notes.md; wc -l < /tmp/log")).toEqual({ stdout: "500\n500\n", stderr: "", exit: 0 });
    expect(await sh("for i in $(seq 20); do echo $i > self/instructions.md; done; cat self/instructions.md")).toEqual({
      stdout: "15\n",
      stderr: `self/instructions.md: refused: ${RATE}\n`,
      exit: 0,
      selfRefused: 1,
    });
  });
});

describe("the count of changes to self/ (what the self ledger asks before it reads self/ again)", () => {
  it("moves with every change that reaches self/, however it gets there, and with nothing else", async () => {
    const moved = async (code: string) => {
      const before = selfChanges(fs);
      await sh(code);
      return selfChanges(fs) - before;
    };
    expect(await moved("echo a > notes.md; cat self/persona.md; ls self; mkdir -p /tmp/x; cp notes.md /tmp/x/")).toBe(0);
    expect(await moved("echo b > self/instructions.md")).toBeGreaterThan(0);
    expect(await moved("ln -s /workspace/self/watchers /tmp/w")).toBe(0);
    expect(await moved("touch /tmp/w/a.sh")).toBeGreaterThan(0);
    expect(await moved("mv self/watchers/a.sh /tmp/a.sh")).toBeGreaterThan(0);
    expect(await moved("cp /tmp/a.sh self/watchers/b.sh")).toBeGreaterThan(0);
    // A refused change changes nothing, and is counted as refused, not here.
    expect(await moved("rm self/persona.md")).toBe(0);
    expect(await moved("echo a > notes.md")).toBe(0);
    // Another sandbox over the same workspace counts in the same place.
    const other = justBashSandbox({ fs, flush: async () => undefined, permissions: DEFAULT_PERMISSIONS, ids, clock: { now: () => now } });
    const before = selfChanges(fs);
    const log = new TrajectoryLog(new MindWriter(new MemoryMindState(ROOT_TRAJ)), ROOT_TRAJ);
    const run = await new Journal(log, ids, { now: () => now, sleep: async () => undefined }).openRun({ model: "test", launched_by: "monolith" });
    await other.open(runScope(run, "Reverie", echoShellm())).exec("rm self/watchers/b.sh", { env: {}, cwd: WORKSPACE, signal: new AbortController().signal });
    expect(selfChanges(fs) - before).toBeGreaterThan(0);
    expect(selfChanges(new InMemoryFs())).toBe(0);
  });
});
