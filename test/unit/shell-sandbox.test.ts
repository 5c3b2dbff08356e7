// lib/shell/just-bash-sandbox.ts with the agent's commands (chat, traj), wired
// as workers/host.ts wires them: a Journal over the mind's log in IndexedDB,
// agentTools over the journal, and the workspace over mindFiles.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { agentTools } from "@/lib/mind/agent-tools";
import { Journal } from "@/lib/mind/journal";
import type { Clock, ShellPort, ShellResult } from "@/lib/mind/ports";
import { justBashSandbox } from "@/lib/shell/just-bash-sandbox";
import type * as realLimits from "@/lib/shell/limits";
import { SHELL_LIMITS, WORKSPACE } from "@/lib/shell/limits";
import { openPersistentFs, type FileStore } from "@/lib/shell/persistent-fs";
import { type ReverieDb } from "@/lib/store/db";
import { mindFiles } from "@/lib/store/files";
import { sendMessage } from "@/lib/store/messages";
import { createMind, type Mind } from "@/lib/store/minds";
import { mindLog, tailSteps } from "@/lib/store/steps";
import type { Step } from "@/lib/trajectory/schema";
import { stepLine } from "@/lib/trajectory/summary";
import { openTestDb } from "./helpers/db";

// The real limit is 30 s; tests lower it through the one limits module rather
// than waiting. Only `timeoutMs` is made adjustable; everything else is real.
const limits = vi.hoisted(() => ({ timeoutMs: 0 }));
vi.mock("@/lib/shell/limits", async (importOriginal) => {
  const real = await importOriginal<typeof realLimits>();
  limits.timeoutMs = real.SHELL_LIMITS.timeoutMs;
  return {
    ...real,
    SHELL_LIMITS: {
      ...real.SHELL_LIMITS,
      get timeoutMs() {
        return limits.timeoutMs;
      },
    },
  };
});
const REAL_TIMEOUT_MS = 30_000;

const NOW = Date.UTC(2026, 10, 30, 17, 44, 36, 123);
const TS = "2026-11-30T17:44:36.123Z";
const clock: Clock = { now: () => NOW, sleep: async () => undefined };
const RUN_ID = "5eed0000-0000-4000-8000-000000000001";
const TRIGGER = "5eed0000-0000-4000-8000-000000000002";

let db: ReverieDb;
let mind: Mind;
let idCount = 0;
/** Predictable ids for the journal: 0a000001-…, 0a000002-… */
const ids = { uuid: () => `0a${String(++idCount).padStart(6, "0")}-0000-4000-8000-000000000000` };

beforeEach(async () => {
  db = await openTestDb("sandbox-test");
  idCount = 0;
  mind = await createMind(db, { name: "Reverie", persona: "", model: { provider: "openai", model: "gpt-test", apiKey: "k" } }, NOW);
});

afterEach(async () => {
  limits.timeoutMs = REAL_TIMEOUT_MS;
  await db.delete();
});

interface Wired {
  shell: ShellPort;
  journal: Journal;
}

/** What workers/host.ts does for one mind, minus the model and the loop. */
async function wire(store: FileStore = mindFiles(db, mind.id), extra: { now?: () => number } = {}): Promise<Wired> {
  const { fs, flush } = await openPersistentFs(store);
  const journal = new Journal(mindLog(db, mind.id), ids, clock);
  const shell = justBashSandbox({ fs, flush, tools: agentTools(journal, mind.name), ...extra });
  return { shell, journal };
}

type State = { env: Record<string, string>; cwd: string };
const fresh = (): State => ({ env: {}, cwd: WORKSPACE });

function exec(shell: ShellPort, code: string, state: State = fresh(), signal = new AbortController().signal): Promise<ShellResult> {
  return shell.exec(code, { ...state, signal });
}

/** The parts of a result that do not depend on the machine. */
const outcome = (r: ShellResult) => ({ stdout: r.stdout, stderr: r.stderr, exit: r.exit, timedOut: r.timedOut });

const messages = async (): Promise<Step[]> => (await tailSteps(db, mind.id, 100)).filter((s) => s.type === "message");

describe("exec", () => {
  it("returns stdout, stderr and the exit code", async () => {
    const { shell } = await wire();
    const r = await exec(shell, "echo out; echo err >&2; printf 'ü\\n'; exit 3");
    expect(outcome(r)).toEqual({ stdout: "out\nü\n", stderr: "err\n", exit: 3, timedOut: false });
  });

  it("measures exec time with the given clock", async () => {
    let t = 1_000;
    const { shell } = await wire(undefined, { now: () => (t += 250) });
    const r = await exec(shell, "true");
    expect([r.execS, r.exit]).toEqual([0.25, 0]);
  });

  it("starts in the workspace with HOME there", async () => {
    const { shell } = await wire();
    const r = await exec(shell, "pwd; echo $HOME; ls -d /tmp");
    expect(outcome(r)).toEqual({ stdout: `${WORKSPACE}\n${WORKSPACE}\n/tmp\n`, stderr: "", exit: 0, timedOut: false });
  });

  it("gives back env and cwd, and takes them in again", async () => {
    const { shell } = await wire();
    const r1 = await exec(shell, "cd /tmp; export A=1; B='two words'");
    expect(outcome(r1)).toEqual({ stdout: "", stderr: "", exit: 0, timedOut: false });
    expect(r1.cwd).toBe("/tmp");
    expect([r1.env.A, r1.env.B, r1.env.PWD]).toEqual(["1", "two words", "/tmp"]);

    const r2 = await exec(shell, 'pwd; echo "$A/$B"', { env: r1.env, cwd: r1.cwd });
    expect(outcome(r2)).toEqual({ stdout: "/tmp\n1/two words\n", stderr: "", exit: 0, timedOut: false });
    expect(r2.cwd).toBe("/tmp");
  });

  it("falls back to the workspace when the cwd it is given is gone", async () => {
    const { shell } = await wire();
    const r = await exec(shell, "pwd", { env: {}, cwd: "/workspace/deleted/dir" });
    expect([r.stdout, r.cwd]).toEqual([`${WORKSPACE}\n`, WORKSPACE]);
  });

  it("shows FINAL in the returned env", async () => {
    const { shell } = await wire();
    const r = await exec(shell, "x=3\nFINAL=\"done with $x\"");
    expect(r.env.FINAL).toBe("done with 3");
    const multi = await exec(shell, "FINAL=$'line 1\\nline 2'");
    expect(multi.env.FINAL).toBe("line 1\nline 2");
    const none = await exec(shell, "echo no final");
    expect(none.env.FINAL).toBeUndefined();
  });

  it("keeps files across execs and across a fresh sandbox over the same db", async () => {
    const a = await wire();
    const w = await exec(a.shell, "mkdir -p notes/deep && printf 'hello\\n' > notes/deep/a.txt && echo kept > /tmp/scratch && chmod 700 notes");
    expect(outcome(w)).toEqual({ stdout: "", stderr: "", exit: 0, timedOut: false });
    expect((await exec(a.shell, "cat notes/deep/a.txt")).stdout).toBe("hello\n");

    const b = await wire(); // a reload: new filesystem, new interpreter, same database
    const r = await exec(b.shell, "cat notes/deep/a.txt /tmp/scratch; ls -R notes; stat -c %a notes");
    expect(outcome(r)).toEqual({ stdout: "hello\nkept\nnotes:\ndeep\n\nnotes/deep:\na.txt\n700\n", stderr: "", exit: 0, timedOut: false });

    // Deleting persists too.
    await exec(b.shell, "rm -r notes");
    const c = await wire();
    expect(outcome(await exec(c.shell, "ls"))).toEqual({ stdout: "", stderr: "", exit: 0, timedOut: false });
  });

  it("does not share one mind's files with another", async () => {
    const other = await createMind(db, { name: "Other", persona: "", model: mind.model }, NOW);
    const a = await wire();
    await exec(a.shell, "echo mine > secret.txt");
    const b = await wire(mindFiles(db, other.id));
    const r = await exec(b.shell, "cat secret.txt");
    expect([r.stdout, r.exit]).toEqual(["", 1]);
  });

  it("reports a failed save in stderr without failing the command", async () => {
    const store: FileStore = {
      loadAll: async () => [],
      save: async () => {
        throw new Error("QuotaExceededError");
      },
    };
    const { shell } = await wire(store);
    const r = await exec(shell, "echo data > f.txt; cat f.txt");
    expect(outcome(r)).toEqual({
      stdout: "data\n",
      stderr: "[reverie] the workspace could not be saved (QuotaExceededError); files written in this block may be lost on reload\n",
      exit: 0,
      timedOut: false,
    });
  });

  it("stops a command that runs over the time limit", async () => {
    const { shell } = await wire();
    await exec(shell, "true"); // warm up, so the first command surely runs within the limit
    limits.timeoutMs = 500;
    const r = await exec(shell, "echo started > started.txt; sleep 60; echo never > never.txt");
    // just-bash drops the output of an aborted exec, even what came before the abort.
    expect(outcome(r)).toEqual({
      stdout: "",
      stderr: "bash: execution aborted\n[reverie] stopped after 0.5 s (time limit)\n",
      exit: 124,
      timedOut: true,
    });
    limits.timeoutMs = REAL_TIMEOUT_MS;
    expect(outcome(await exec(shell, "ls"))).toEqual({ stdout: "started.txt\n", stderr: "", exit: 0, timedOut: false });
  });

  it("stops a command when the request is aborted, without calling it a timeout", async () => {
    const { shell, journal } = await wire();
    const stop = new AbortController();
    // Abort from inside the script, once it has got as far as sending a message.
    journal.onAppend(() => stop.abort());
    const r = await exec(shell, "chat send --to ada bye; sleep 60; echo never > never.txt", fresh(), stop.signal);
    expect(outcome(r)).toEqual({
      stdout: "",
      stderr: "bash: execution aborted\n",
      exit: 124,
      timedOut: false,
    });
    expect((await messages()).map((m) => (m as { content: string }).content)).toEqual(["bye"]);
    expect(outcome(await exec(shell, "ls"))).toEqual({ stdout: "", stderr: "", exit: 0, timedOut: false });
  });

  it("cuts huge output with a note", async () => {
    const { shell } = await wire();
    // seq stops at the loop limit (100,000), so two runs make the > 1 MiB.
    const r = await exec(shell, "seq 1 99999; seq 100000 199999");
    const full = `${Array.from({ length: 199_999 }, (_, i) => i + 1).join("\n")}\n`;
    const max = SHELL_LIMITS.maxOutputBytes;
    expect(max).toBe(1024 * 1024);
    expect(full.length).toBeGreaterThan(max);
    expect(outcome(r)).toEqual({
      stdout: `${full.slice(0, max)}\n[reverie] stdout cut at ${max} bytes\n`,
      stderr: "",
      exit: 0,
      timedOut: false,
    });
  });

  it("cuts huge stderr the same way", async () => {
    const { shell } = await wire();
    const r = await exec(shell, "seq 1 99999 >&2; seq 100000 199999 >&2; echo fine");
    expect(r.stdout).toBe("fine\n");
    expect(r.stderr.endsWith(`\n[reverie] stderr cut at ${SHELL_LIMITS.maxOutputBytes} bytes\n`)).toBe(true);
    expect(r.stderr.startsWith("1\n2\n3\n")).toBe(true);
  });

  it("keeps ``` fences inside a quoted heredoc", async () => {
    const { shell } = await wire();
    const code = [
      "cat > notes.md <<'EOF'",
      "# plan",
      "```bash",
      'echo "$HOME" `date`',
      "```",
      "EOF",
      "cat notes.md",
    ].join("\n");
    const r = await exec(shell, code);
    expect(outcome(r)).toEqual({ stdout: '# plan\n```bash\necho "$HOME" `date`\n```\n', stderr: "", exit: 0, timedOut: false });
  });
});

describe("chat", () => {
  it("send appends a message from the mind, in the current run", async () => {
    const { shell, journal } = await wire();
    journal.run = { runId: RUN_ID, triggerStep: TRIGGER };
    const r = await exec(shell, "chat send --to ada hello there");
    expect(outcome(r)).toEqual({ stdout: "sent 0a000001 to ada\n", stderr: "", exit: 0, timedOut: false });
    expect(await messages()).toEqual([
      {
        type: "message",
        step_id: "0a000001-0000-4000-8000-000000000000",
        ts: TS,
        run_id: RUN_ID,
        trigger_step: TRIGGER,
        from: "Reverie",
        to: "ada",
        content: "hello there",
        source: "chat",
      },
    ]);
  });

  it("send outside a run carries no run_id; --to= works", async () => {
    const { shell } = await wire();
    const r = await exec(shell, "chat send --to=ada '  spaced   out  '");
    expect(r.exit).toBe(0);
    expect(await messages()).toEqual([
      { type: "message", step_id: "0a000001-0000-4000-8000-000000000000", ts: TS, from: "Reverie", to: "ada", content: "spaced   out", source: "chat" },
    ]);
  });

  it("send reads its text from stdin", async () => {
    const { shell } = await wire();
    const r = await exec(shell, "echo hi | chat send --to ada");
    expect(outcome(r)).toEqual({ stdout: "sent 0a000001 to ada\n", stderr: "", exit: 0, timedOut: false });
    expect((await messages()).map((m) => (m as { content: string }).content)).toEqual(["hi"]);
  });

  it("send takes multibyte text and ``` fences from a quoted heredoc", async () => {
    const { shell } = await wire();
    const code = ["chat send --to ada <<'EOF'", "voilà 🧠:", "```sh", "echo $PATH", "```", "EOF"].join("\n");
    const r = await exec(shell, code);
    expect(r.exit).toBe(0);
    expect((await messages()).map((m) => (m as { content: string }).content)).toEqual(["voilà 🧠:\n```sh\necho $PATH\n```"]);
  });

  it("send without a recipient or text fails with usage, exit 2, and writes nothing", async () => {
    const { shell } = await wire();
    const usage = "usage: chat reply <message-id> <text…> | chat send --to <name> <text…>";
    expect(outcome(await exec(shell, "chat send hello"))).toEqual({
      stdout: "",
      stderr: `chat send: --to <name> and a text are needed\n${usage}\n`,
      exit: 2,
      timedOut: false,
    });
    expect((await exec(shell, "chat send --to ada < /dev/null")).exit).toBe(2);
    expect(outcome(await exec(shell, "chat"))).toEqual({ stdout: "", stderr: `${usage}\n`, exit: 2, timedOut: false });
    expect((await exec(shell, "chat shout x")).stderr).toBe(`chat: unknown subcommand 'shout'\n${usage}\n`);
    expect(await messages()).toEqual([]);
  });

  it("reply <8-hex prefix> answers that message, to its sender", async () => {
    const { shell } = await wire();
    const first = await sendMessage(db, mind.id, { from: "you", to: "Reverie", content: "how are you?" });
    await sendMessage(db, mind.id, { from: "you", to: "Reverie", content: "and another thing" });
    const r = await exec(shell, `chat reply ${first.step_id.slice(0, 8)} fine, thanks`);
    expect(outcome(r)).toEqual({
      stdout: `sent 0a000001 to you (reply to ${first.step_id.slice(0, 8)})\n`,
      stderr: "",
      exit: 0,
      timedOut: false,
    });
    expect((await messages()).at(-1)).toEqual({
      type: "message",
      step_id: "0a000001-0000-4000-8000-000000000000",
      ts: TS,
      from: "Reverie",
      to: "you",
      content: "fine, thanks",
      reply_to: first.step_id,
      source: "chat",
    });
  });

  it("reply you answers the latest message from you", async () => {
    const { shell, journal } = await wire();
    await sendMessage(db, mind.id, { from: "you", to: "Reverie", content: "first" });
    const latest = await sendMessage(db, mind.id, { from: "you", to: "Reverie", content: "second" });
    await sendMessage(db, mind.id, { from: "ada", to: "Reverie", content: "from someone else" });
    journal.run = { runId: RUN_ID };
    const r = await exec(shell, "chat reply you got both");
    expect(r.exit).toBe(0);
    expect((await messages()).at(-1)).toEqual({
      type: "message",
      step_id: "0a000001-0000-4000-8000-000000000000",
      ts: TS,
      run_id: RUN_ID,
      from: "Reverie",
      to: "you",
      content: "got both",
      reply_to: latest.step_id,
      source: "chat",
    });
  });

  it("reply to an unknown id or name fails with exit 1, says why, and writes nothing", async () => {
    const { shell } = await wire();
    await sendMessage(db, mind.id, { from: "you", to: "Reverie", content: "hello" });
    const before = await messages();
    expect(outcome(await exec(shell, "chat reply deadbeef hi"))).toEqual({
      stdout: "",
      stderr: "chat reply: no message 'deadbeef' (give a message id, or the name of someone who wrote to you)\n",
      exit: 1,
      timedOut: false,
    });
    expect(outcome(await exec(shell, "chat reply grace hi"))).toEqual({
      stdout: "",
      stderr: "chat reply: no message 'grace' (give a message id, or the name of someone who wrote to you)\n",
      exit: 1,
      timedOut: false,
    });
    expect(await messages()).toEqual(before);
  });

  it("reply by id to a step that is not a message fails", async () => {
    const { shell } = await wire();
    const config = (await tailSteps(db, mind.id, 5)).find((s) => s.type === "config");
    const r = await exec(shell, `chat reply ${config?.step_id.slice(0, 8)} hi`);
    expect([r.exit, r.stderr.startsWith(`chat reply: no message '${config?.step_id.slice(0, 8)}'`)]).toEqual([1, true]);
  });

  it("reply to the mind's own message is refused", async () => {
    const { shell } = await wire();
    await exec(shell, "chat send --to ada first");
    const r = await exec(shell, "chat reply 0a000001 again");
    expect(outcome(r)).toEqual({
      stdout: "",
      stderr: "chat reply: that message is your own; use chat send --to <name>\n",
      exit: 1,
      timedOut: false,
    });
    expect(await messages()).toHaveLength(1);
  });
});

describe("traj", () => {
  it("tail -n 3 prints the newest three steps, one stepLine each", async () => {
    const { shell, journal } = await wire();
    await sendMessage(db, mind.id, { from: "you", to: "Reverie", content: "are you\nthere?" });
    await journal.append({ type: "thought", content: "I should answer.", source: "reverie" });
    await journal.append({ type: "final", content: "answered" });
    const r = await exec(shell, "traj tail -n 3");
    const steps = await tailSteps(db, mind.id, 3);
    expect(outcome(r)).toEqual({
      stdout: [
        // sendMessage stamps the wall clock; the journal stamps the test clock.
        `${steps[0]?.step_id.slice(0, 8)} ${steps[0]?.ts.slice(11, 19)} message [chat] you → Reverie: are you there?\n`,
        "0a000001 17:44:36 thought [reverie] I should answer.\n",
        "0a000002 17:44:36 final answered\n",
      ].join(""),
      stderr: "",
      exit: 0,
      timedOut: false,
    });
    expect(r.stdout).toBe(steps.map((s) => `${stepLine(s)}\n`).join(""));
    expect(r.stdout.split("\n")).toHaveLength(4);
  });

  it("tail defaults to 20 and takes -nN", async () => {
    const { shell, journal } = await wire();
    for (let i = 0; i < 25; i++) await journal.append({ type: "thought", content: `t${i}` });
    expect((await exec(shell, "traj tail")).stdout.trimEnd().split("\n")).toHaveLength(20);
    const r = await exec(shell, "traj tail -n2");
    expect(r.stdout).toBe("0a000024 17:44:36 thought t23\n0a000025 17:44:36 thought t24\n");
  });

  for (const [args, stderr] of [
    ["-n 0", "traj tail: -n takes a whole number above 0, not '0'\n"],
    ["-n -4", "traj tail: -n takes a whole number above 0, not '-4'\n"],
    ["-n 2.5", "traj tail: -n takes a whole number above 0, not '2.5'\n"],
    ["-n many", "traj tail: -n takes a whole number above 0, not 'many'\n"],
    ["-n", "traj tail: unexpected '-n'\nusage: traj tail [-n N]\n"],
    ["--lines 3", "traj tail: unexpected '--lines'\nusage: traj tail [-n N]\n"],
  ] as const) {
    it(`tail ${args} fails with exit 2`, async () => {
      const { shell } = await wire();
      expect(outcome(await exec(shell, `traj tail ${args}`))).toEqual({ stdout: "", stderr, exit: 2, timedOut: false });
    });
  }

  it("an unknown subcommand fails with exit 2", async () => {
    const { shell } = await wire();
    expect(outcome(await exec(shell, "traj rm"))).toEqual({
      stdout: "",
      stderr: "traj: unknown subcommand 'rm'\nusage: traj tail [-n N]\n",
      exit: 2,
      timedOut: false,
    });
  });
});
