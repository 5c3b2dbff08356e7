// lib/shell/just-bash-sandbox.ts with the agent's commands, wired as
// workers/host.ts wires a mind: the workspace over mindFiles, a Journal over
// the root's TrajectoryLog over the mind's writer over indexedDbMindState (what
// the page writes handed to the log as the host's watch hands it), one run
// opened, and a session scoped to that run the way lib/mind/run/run.ts shellmRun
// scopes it (helpers/wired-sandbox.ts).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Journal, type RunScope } from "@/lib/mind/log/journal";
import { MindWriter, TrajectoryLog } from "@/lib/mind/log/mind-log";
import { InMemoryFs } from "just-bash";
import type { Clock, ShellmPort, ShellPort, ShellResult, ShellSession, ShellState, TrajPort } from "@/lib/mind/ports";
import { chat } from "@/lib/shell/commands/chat";
import type { CommandIO } from "@/lib/shell/commands/command";
import { COMMANDS } from "@/lib/shell/commands/registry";
import { traj } from "@/lib/shell/commands/traj";
import { justBashSandbox } from "@/lib/shell/just-bash-sandbox";
import { WORKSPACE } from "@/lib/shell/limits";
import { openPersistentFs, type FileStore } from "@/lib/shell/persistent-fs";
import type { RuntimePort } from "@/lib/shell/ports";
import type { ReverieDb } from "@/lib/store/db/db";
import { mindFiles } from "@/lib/store/minds/files";
import { sendMessage } from "@/lib/store/steps/messages";
import { leave, waiting } from "@/lib/store/steps/door";
import { createMind } from "@/lib/store/minds/minds";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import { tailSteps } from "@/lib/store/steps/steps";
import { trajDirName } from "@/lib/trajectory/headlong";
import { blobFields, INLINE_OUTPUT_BYTES, splitOutput } from "@/lib/trajectory/large-output";
import { DEFAULT_PERMISSIONS, DEFAULT_SANDBOX_LIMITS, type Permissions, type SandboxLimits } from "@/lib/trajectory/permissions";
import { stampStep, type NewStep, type Step } from "@/lib/trajectory/schema";
import { stepLine } from "@/lib/trajectory/summary";
import { openTestDb } from "../helpers/db";
import { echoShellm, outcome, predictableIds, runScope, slowShellm } from "../helpers/wired-sandbox";
import { openaiStyle } from "../../fixtures/fake-keys";
import type { MindSettings } from "@/lib/mind/settings/settings";

const NOW = Date.UTC(2026, 10, 30, 17, 44, 36, 123);
const TS = "2026-11-30T17:44:36.123Z";
const clock: Clock = { now: () => NOW, sleep: async () => undefined };
const TRIGGER = "5eed0000-0000-4000-8000-000000000002";
/** The n-th id the journal hands out; the first is the run's header. */
const jid = (n: number) => `0a${String(n).padStart(6, "0")}-0000-4000-8000-000000000000`;
const RUN = jid(1);
const ids = predictableIds();

let db: ReverieDb;
let mind: MindSettings;
/** The root logs wired in this test (workers/host.ts has one per mind). */
const wiredLogs: TrajectoryLog[] = [];
/** The journals of the mind's own trajectory wired in this test: the newest takes what waits at its door. */
const rootJournals: Journal[] = [];

beforeEach(async () => {
  db = await openTestDb("sandbox-test");
  ids.reset();
  wiredLogs.length = 0;
  rootJournals.length = 0;
  mind = await createMind(db, { name: "Reverie", persona: "", model: { provider: "openai", model: "gpt-test", apiKey: "k" } }, NOW);
});

afterEach(async () => {
  for (const log of wiredLogs) await log.writer.flushed().catch(() => undefined);
  await db.delete();
});

/** The mind's steps as stored: read once the wired logs' writes (which go behind their appends) are in. */
async function storedTail(mindId: string, n: number, trajId = mindId): Promise<Step[]> {
  for (const log of wiredLogs) await log.writer.flushed();
  return tailSteps(db, mindId, n, trajId);
}

/**
 * The page sends a message to the running mind (lib/store/steps/messages.ts):
 * it waits at the door until the mind's writer takes it, its id kept and
 * stamped by the mind's clock, as the host's way in does (lib/store/state/inbound.ts).
 */
async function pageSends(msg: { from: string; to: string; content: string }): Promise<Step> {
  const sent = await sendMessage(db, mind.id, msg);
  const journal = rootJournals.at(-1);
  if (!journal) throw new Error("pageSends: wire() the mind first");
  const [waits] = await waiting(db, mind.id);
  if (waits?.step?.step_id !== sent.step_id) throw new Error("pageSends: the message is not at the door");
  const taken = await journal.take(waits.step);
  await leave(db, mind.id, [waits.id]);
  return taken;
}

interface Wired {
  shell: ShellPort;
  session: ShellSession;
  journal: Journal;
  run: RunScope;
}

interface WireOptions {
  mindId?: string;
  selfName?: string;
  store?: FileStore;
  permissions?: Permissions;
  now?: () => number;
  shellm?: ShellmPort;
  runtime?: RuntimePort;
}

/** What workers/host.ts does for one mind, and what shellmRun does for one run, minus the model. */
async function wire(o: WireOptions = {}): Promise<Wired> {
  const mindId = o.mindId ?? mind.id;
  const permissions = o.permissions ?? mind.permissions;
  const { fs, flush } = await openPersistentFs(o.store ?? mindFiles(db, mindId), { maxBytes: permissions.limits.max_workspace_bytes });
  const log = new TrajectoryLog(new MindWriter(indexedDbMindState(db, mindId)), mindId);
  wiredLogs.push(log);
  const journal = new Journal(log, ids, clock);
  if (mindId === mind.id) rootJournals.push(journal);
  const shell = justBashSandbox({ fs, flush, permissions, ids, clock, ...(o.now ? { now: o.now } : {}), ...(o.runtime ? { runtime: o.runtime } : {}) });
  const run = await journal.openRun({ model: "test", launched_by: "monolith", trigger_step: TRIGGER });
  const session = shell.open(runScope(run, o.selfName ?? mind.name, o.shellm ?? echoShellm()));
  return { shell, session, journal, run };
}

const withLimits = (limits: Partial<SandboxLimits>, allow: string[] = []): Permissions => ({
  ...DEFAULT_PERMISSIONS,
  network: { allow },
  limits: { ...DEFAULT_SANDBOX_LIMITS, ...limits },
});

const fresh = (): ShellState => ({ env: {}, cwd: WORKSPACE });

function exec(session: ShellSession, code: string, state: ShellState = fresh(), signal = new AbortController().signal): Promise<ShellResult> {
  return session.exec(code, { ...state, signal });
}

const ok = (stdout: string) => ({ stdout, stderr: "", exit: 0, timedOut: false });
const failed = (stderr: string, exit: number) => ({ stdout: "", stderr, exit, timedOut: false });

const messages = async (): Promise<Step[]> => (await storedTail(mind.id, 100)).filter((s) => s.type === "message");
const contents = async () => (await messages()).map((m) => (m as { content: string }).content);
const storedStep = async (stepId: string, trajId = mind.id) => (await storedTail(mind.id, 500, trajId)).find((s) => s.step_id === stepId);
const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

describe("exec", () => {
  it("returns stdout, stderr and the exit code", async () => {
    const { session } = await wire();
    const r = await exec(session, "echo out; echo err >&2; printf 'ü\\n'; exit 3");
    expect(outcome(r)).toEqual({ stdout: "out\nü\n", stderr: "err\n", exit: 3, timedOut: false });
    expect(r.limit).toBeUndefined();
  });

  it("measures exec time with the given clock", async () => {
    let t = 1_000;
    const { session } = await wire({ now: () => (t += 250) });
    const r = await exec(session, "true");
    expect([r.execS, r.exit]).toEqual([0.25, 0]);
  });

  it("starts in the workspace with HOME there", async () => {
    const { session } = await wire();
    expect(outcome(await exec(session, "pwd; echo $HOME; ls -d /tmp"))).toEqual(ok(`${WORKSPACE}\n${WORKSPACE}\n/tmp\n`));
  });

  it("gives back env and cwd, and takes them in again", async () => {
    const { session } = await wire();
    const r1 = await exec(session, "cd /tmp; export A=1; B='two words'");
    expect(outcome(r1)).toEqual(ok(""));
    expect(r1.cwd).toBe("/tmp");
    expect([r1.env.A, r1.env.B, r1.env.PWD]).toEqual(["1", "two words", "/tmp"]);

    const r2 = await exec(session, 'pwd; echo "$A/$B"', { env: r1.env, cwd: r1.cwd });
    expect(outcome(r2)).toEqual(ok("/tmp\n1/two words\n"));
    expect(r2.cwd).toBe("/tmp");
  });

  it("falls back to the workspace when the cwd it is given is gone", async () => {
    const { session } = await wire();
    const r = await exec(session, "pwd", { env: {}, cwd: "/workspace/deleted/dir" });
    expect([r.stdout, r.cwd]).toEqual([`${WORKSPACE}\n`, WORKSPACE]);
  });

  it("shows FINAL in the returned env", async () => {
    const { session } = await wire();
    expect((await exec(session, 'x=3\nFINAL="done with $x"')).env.FINAL).toBe("done with 3");
    expect((await exec(session, "FINAL=$'line 1\\nline 2'")).env.FINAL).toBe("line 1\nline 2");
    expect((await exec(session, "echo no final")).env.FINAL).toBeUndefined();
  });

  it("keeps files across execs and across a fresh sandbox over the same db", async () => {
    const a = await wire();
    const w = await exec(a.session, "mkdir -p notes/deep && printf 'hello\\n' > notes/deep/a.txt && echo kept > /tmp/scratch && chmod 700 notes");
    expect(outcome(w)).toEqual(ok(""));
    expect(outcome(await exec(a.session, "cat notes/deep/a.txt"))).toEqual(ok("hello\n"));

    const b = await wire(); // a reload: new filesystem, new interpreter, same database
    const r = await exec(b.session, "cat notes/deep/a.txt /tmp/scratch; ls -R notes; stat -c %a notes");
    expect(outcome(r)).toEqual(ok("hello\nkept\nnotes:\ndeep\n\nnotes/deep:\na.txt\n700\n"));

    // Deleting persists too.
    await exec(b.session, "rm -r notes");
    const c = await wire();
    expect(outcome(await exec(c.session, "ls"))).toEqual(ok(""));
  });

  it("does not share one mind's files with another", async () => {
    const other = await createMind(db, { name: "Other", persona: "", model: mind.model }, NOW);
    const a = await wire();
    await exec(a.session, "echo mine > secret.txt");
    const b = await wire({ mindId: other.id, selfName: other.name });
    expect(outcome(await exec(b.session, "cat secret.txt; ls"))).toEqual({
      stdout: "",
      stderr: "cat: secret.txt: No such file or directory\n",
      exit: 0,
      timedOut: false,
    });
  });

  it("reports a failed save in stderr without failing the command", async () => {
    const store: FileStore = {
      loadAll: async () => [],
      save: async () => {
        throw new Error("QuotaExceededError");
      },
    };
    const { session } = await wire({ store });
    expect(outcome(await exec(session, "echo data > f.txt; cat f.txt"))).toEqual({
      stdout: "data\n",
      stderr: "[reverie] the workspace could not be saved (QuotaExceededError); files written in this block may be lost on reload\n",
      exit: 0,
      timedOut: false,
    });
  });

  it("stops a block when the request is aborted, keeps what it printed, and does not call it a timeout", async () => {
    const { session, journal } = await wire();
    const stop = new AbortController();
    // Abort from inside the script, once it has got as far as sending a message.
    journal.onAppend((s) => s.type === "message" && stop.abort());
    const r = await exec(session, "echo first; chat send --to ada bye; sleep 60; echo never > never.txt", fresh(), stop.signal);
    // The command under way when the abort came (chat send) loses its output; what finished before keeps it.
    expect(outcome(r)).toEqual({ stdout: "first\n", stderr: "bash: execution aborted\n", exit: 124, timedOut: false });
    expect(r.limit).toBeUndefined();
    expect(await contents()).toEqual(["bye"]);
    expect(outcome(await exec(session, "ls"))).toEqual(ok(""));
  });

  it("cuts huge output at the permissions' max_output_bytes, with a note", async () => {
    const { session } = await wire();
    // seq stops at the loop limit (max_commands, 100,000), so two runs make the > 1 MiB.
    const r = await exec(session, "seq 1 99999; seq 100000 199999");
    const full = `${Array.from({ length: 199_999 }, (_, i) => i + 1).join("\n")}\n`;
    const max = DEFAULT_PERMISSIONS.limits.max_output_bytes;
    expect(max).toBe(1024 * 1024);
    expect(full.length).toBeGreaterThan(max);
    expect(outcome(r)).toEqual(ok(`${full.slice(0, max)}\n[reverie] stdout cut at ${max} bytes\n`));
  });

  it("takes the cut from this mind's permissions", async () => {
    const { session } = await wire({ permissions: withLimits({ max_output_bytes: 1000 }) });
    const full = `${Array.from({ length: 1000 }, (_, i) => i + 1).join("\n")}\n`;
    expect(outcome(await exec(session, "seq 1 1000"))).toEqual(ok(`${full.slice(0, 1000)}\n[reverie] stdout cut at 1000 bytes\n`));
  });

  it("cuts huge stderr the same way", async () => {
    const { session } = await wire({ permissions: withLimits({ max_output_bytes: 1000 }) });
    const full = `${Array.from({ length: 1000 }, (_, i) => i + 1).join("\n")}\n`;
    expect(outcome(await exec(session, "seq 1 1000 >&2; echo fine"))).toEqual({
      stdout: "fine\n",
      stderr: `${full.slice(0, 1000)}\n[reverie] stderr cut at 1000 bytes\n`,
      exit: 0,
      timedOut: false,
    });
  });

  it("keeps ``` fences inside a quoted heredoc", async () => {
    const { session } = await wire();
    const code = ["cat > notes.md <<'EOF'", "# plan", "```bash", 'echo "$HOME" `date`', "```", "EOF", "cat notes.md"].join("\n");
    expect(outcome(await exec(session, code))).toEqual(ok('# plan\n```bash\necho "$HOME" `date`\n```\n'));
  });
});

describe("chat", () => {
  it("send appends a message from the mind, inside the run", async () => {
    const { session } = await wire();
    expect(outcome(await exec(session, "chat send --to ada hello there"))).toEqual(ok("sent 0a000002 to ada\n"));
    expect(await messages()).toEqual([
      { type: "message", step_id: jid(2), ts: TS, run_id: RUN, trigger_step: TRIGGER, from: "Reverie", to: "ada", content: "hello there", source: "chat" },
    ]);
  });

  it("send takes --to=, and trims the text", async () => {
    const { session } = await wire();
    expect(outcome(await exec(session, "chat send --to=ada '  spaced   out  '"))).toEqual(ok("sent 0a000002 to ada\n"));
    expect(await messages()).toEqual([
      { type: "message", step_id: jid(2), ts: TS, run_id: RUN, trigger_step: TRIGGER, from: "Reverie", to: "ada", content: "spaced   out", source: "chat" },
    ]);
  });

  it("send reads its text from stdin", async () => {
    const { session } = await wire();
    expect(outcome(await exec(session, "echo hi | chat send --to ada"))).toEqual(ok("sent 0a000002 to ada\n"));
    expect(await contents()).toEqual(["hi"]);
  });

  it("send takes multibyte text and ``` fences from a quoted heredoc", async () => {
    const { session } = await wire();
    const code = ["chat send --to ada <<'EOF'", "voilà 🧠:", "```sh", "echo $PATH", "```", "EOF"].join("\n");
    expect(outcome(await exec(session, code))).toEqual(ok("sent 0a000002 to ada\n"));
    expect(await contents()).toEqual(["voilà 🧠:\n```sh\necho $PATH\n```"]);
  });

  it("send without a recipient or text fails with usage, exit 2, and writes nothing", async () => {
    const { session } = await wire();
    const needs = failed(`chat: send needs --to <name> and a text\n${chat.usage}\n`, 2);
    expect(outcome(await exec(session, "chat send hello"))).toEqual(needs);
    expect(outcome(await exec(session, "chat send --to ada < /dev/null"))).toEqual(needs);
    expect(outcome(await exec(session, "chat send --to"))).toEqual(needs);
    expect(outcome(await exec(session, "chat"))).toEqual(failed(`chat: a subcommand is needed\n${chat.usage}\n`, 2));
    expect(outcome(await exec(session, "chat shout x"))).toEqual(failed(`chat: unknown subcommand 'shout'\n${chat.usage}\n`, 2));
    expect(await messages()).toEqual([]);
  });

  it("reply <8-hex prefix> answers that message, to its sender", async () => {
    const { session } = await wire();
    const first = await pageSends({ from: "you", to: "Reverie", content: "how are you?" });
    await pageSends({ from: "you", to: "Reverie", content: "and another thing" });
    const r = await exec(session, `chat reply ${first.step_id.slice(0, 8)} fine, thanks`);
    expect(outcome(r)).toEqual(ok(`sent 0a000002 to you (reply to ${first.step_id.slice(0, 8)})\n`));
    expect((await messages()).at(-1)).toEqual({
      type: "message",
      step_id: jid(2),
      ts: TS,
      run_id: RUN,
      trigger_step: TRIGGER,
      from: "Reverie",
      to: "you",
      content: "fine, thanks",
      reply_to: first.step_id,
      source: "chat",
    });
  });

  it("reply <name> answers that person's latest message", async () => {
    const { session } = await wire();
    await pageSends({ from: "you", to: "Reverie", content: "first" });
    const latest = await pageSends({ from: "you", to: "Reverie", content: "second" });
    await pageSends({ from: "ada", to: "Reverie", content: "from someone else" });
    expect(outcome(await exec(session, "chat reply you got both"))).toEqual(ok(`sent 0a000002 to you (reply to ${latest.step_id.slice(0, 8)})\n`));
    expect((await messages()).at(-1)).toEqual({
      type: "message",
      step_id: jid(2),
      ts: TS,
      run_id: RUN,
      trigger_step: TRIGGER,
      from: "Reverie",
      to: "you",
      content: "got both",
      reply_to: latest.step_id,
      source: "chat",
    });
  });

  it("reply to an unknown id or name fails with exit 1, says why, and writes nothing", async () => {
    const { session } = await wire();
    await pageSends({ from: "you", to: "Reverie", content: "hello" });
    const before = await messages();
    for (const who of ["deadbeef", "grace"]) {
      expect(outcome(await exec(session, `chat reply ${who} hi`))).toEqual(
        failed(`chat reply: no message '${who}' (give a message id, or the name of someone who wrote to you)\n`, 1),
      );
    }
    expect(outcome(await exec(session, "chat reply deadbeef"))).toEqual(failed(`chat: reply needs a message id (or name) and a text\n${chat.usage}\n`, 2));
    expect(await messages()).toEqual(before);
  });

  it("reply by id to a step that is not a message fails", async () => {
    const { session } = await wire();
    const config = (await storedTail(mind.id, 5)).find((s) => s.type === "config");
    const prefix = config?.step_id.slice(0, 8) ?? "";
    expect(outcome(await exec(session, `chat reply ${prefix} hi`))).toEqual(
      failed(`chat reply: no message '${prefix}' (give a message id, or the name of someone who wrote to you)\n`, 1),
    );
  });

  it("reply to the mind's own message is refused", async () => {
    const { session } = await wire();
    await exec(session, "chat send --to ada first");
    expect(outcome(await exec(session, "chat reply 0a000002 again"))).toEqual(failed("chat reply: that message is your own; use chat send --to <name>\n", 1));
    expect(await messages()).toHaveLength(1);
  });

  describe("history", () => {
    /** Three messages with the test clock's time: ada's, the mind's reply, and one from you. */
    async function conversation(w: Wired) {
      await w.journal.append({ type: "message", from: "ada", to: "Reverie", content: "hi\nthere", source: "chat" });
      await w.run.append({ type: "message", from: "Reverie", to: "ada", content: "hello ada", reply_to: jid(2), source: "chat" });
      await w.journal.append({ type: "message", from: "you", to: "Reverie", content: "and me?", source: "chat" });
      await w.journal.append({ type: "thought", content: "not a message" });
    }
    const ADA = "0a000002 2026-11-30 17:44 ada → Reverie: hi there\n";
    const REPLY = "0a000003 2026-11-30 17:44 Reverie → ada (re 0a000002): hello ada\n";
    const YOU = "0a000004 2026-11-30 17:44 you → Reverie: and me?\n";

    it("lists the recent messages, oldest first, one line each", async () => {
      const w = await wire();
      expect(outcome(await exec(w.session, "chat history"))).toEqual(ok("no messages yet\n"));
      await conversation(w);
      expect(outcome(await exec(w.session, "chat history"))).toEqual(ok(ADA + REPLY + YOU));
    });

    it("--with <name> keeps the messages from or to that person", async () => {
      const w = await wire();
      await conversation(w);
      expect(outcome(await exec(w.session, "chat history --with ada"))).toEqual(ok(ADA + REPLY));
      expect(outcome(await exec(w.session, "chat history --with=you"))).toEqual(ok(YOU));
      expect(outcome(await exec(w.session, "chat history --with grace"))).toEqual(ok("no messages with grace\n"));
    });

    it("-n N keeps the newest N", async () => {
      const w = await wire();
      await conversation(w);
      expect(outcome(await exec(w.session, "chat history -n 2"))).toEqual(ok(REPLY + YOU));
      expect(outcome(await exec(w.session, "chat history --with ada -n 1"))).toEqual(ok(REPLY));
    });

    it("refuses what it does not understand, with usage and exit 2", async () => {
      const w = await wire();
      await conversation(w);
      expect(outcome(await exec(w.session, "chat history -n 0"))).toEqual(failed(`chat: history: -n takes a whole number above 0\n${chat.usage}\n`, 2));
      expect(outcome(await exec(w.session, "chat history --all"))).toEqual(failed(`chat: history: unexpected '--all'\n${chat.usage}\n`, 2));
      expect(outcome(await exec(w.session, "chat history --with ''"))).toEqual(failed(`chat: history: --with needs a name\n${chat.usage}\n`, 2));
      // A --with that lost its name must not quietly show everyone's messages.
      expect(outcome(await exec(w.session, "chat history --with"))).toEqual(failed(`chat: history: --with needs a name\n${chat.usage}\n`, 2));
    });
  });

  describe("people", () => {
    /** A step as it was written at `minute` past 17:00 (a synced or imported step keeps its own time). */
    const at = (w: Wired, minute: number, step: NewStep) => w.journal.log.append(stampStep(step, { id: ids.uuid(), now: Date.UTC(2026, 10, 30, 17, minute, 5) }));
    const from = (name: string, more: { source: string; role?: string }) => ({ type: "message" as const, from: name, to: "Reverie", content: "hi", ...more });
    const to = (name: string) => ({ type: "message" as const, from: "Reverie", to: name, content: "hello", source: "chat" });

    it("says so when nobody has written", async () => {
      const w = await wire();
      expect(outcome(await exec(w.session, "chat people"))).toEqual(ok("nobody has written to you yet\n"));
      await w.journal.append({ type: "thought", content: "alone" });
      expect(outcome(await exec(w.session, "chat people"))).toEqual(ok("nobody has written to you yet\n"));
    });

    it("lists who wrote and whom the mind wrote to: latest to speak first, with the role of their latest message and their count", async () => {
      const w = await wire();
      await at(w, 38, from("you", { source: "invite", role: "operator" }));
      await at(w, 40, from("you", { source: "chat" }));
      await at(w, 41, from("ada", { source: "invite", role: "guest" }));
      await at(w, 42, to("ada"));
      await at(w, 42, to("grace"));
      // An invite from before roles: a member's.
      await at(w, 43, from("lin", { source: "invite" }));
      await at(w, 45, from("ada", { source: "invite", role: "member" }));
      await at(w, 46, to("carl"));
      await at(w, 47, { type: "thought", content: "who else?" });
      expect(outcome(await exec(w.session, "chat people"))).toEqual(
        ok(
          [
            "ada (member): last spoke 2026-11-30 17:45, 2 messages\n",
            "lin (member): last spoke 2026-11-30 17:43, 1 message\n",
            "you (owner): last spoke 2026-11-30 17:40, 2 messages\n",
            "carl (role unknown): never spoke, 0 messages\n",
            "grace (role unknown): never spoke, 0 messages\n",
          ].join(""),
        ),
      );
      // Someone the mind wrote to first moves up once they speak.
      await at(w, 50, from("grace", { source: "invite", role: "guest" }));
      expect((await exec(w.session, "chat people")).stdout.split("\n")[0]).toBe("grace (guest): last spoke 2026-11-30 17:50, 1 message");
    });

    it("refuses arguments, with usage and exit 2", async () => {
      const w = await wire();
      expect(outcome(await exec(w.session, "chat people ada"))).toEqual(failed(`chat: people: unexpected 'ada'\n${chat.usage}\n`, 2));
    });

    it("looks at the last 5000 steps and says so when the trajectory is longer", async () => {
      const message = (n: number, name: string): Step => stampStep(from(name, { source: "chat" }), { id: jid(n), now: NOW + n * 60_000 });
      const steps: Step[] = [message(0, "early")];
      for (let n = 1; n < 5002; n++) steps.push(n === 5001 ? message(n, "late") : stampStep({ type: "thought", content: `${n}` }, { id: jid(n), now: NOW }));
      const tailed: number[] = [];
      const traj: TrajPort = {
        tail: async (n) => (tailed.push(n), steps.slice(-n)),
        count: async () => steps.length,
        find: async () => [],
        search: async () => [],
        blob: async () => undefined,
      };
      const io: CommandIO = { stdin: "", cwd: WORKSPACE, env: new Map(), fs: new InMemoryFs(), signal: new AbortController().signal };
      const ports = { chat: { selfName: "Reverie", send: () => Promise.reject(new Error("people sends nothing")) }, traj };
      expect(await chat.run(["people"], io, ports)).toEqual({
        stdout: "late (owner): last spoke 2026-12-04 05:05, 1 message\n(looked at the last 5000 steps)\n",
        stderr: "",
        exitCode: 0,
      });
      expect(tailed).toEqual([5000]);
      // Short enough to see whole: no note.
      steps.splice(0, 3);
      expect((await chat.run(["people"], io, ports)).stdout).toBe("late (owner): last spoke 2026-12-04 05:05, 1 message\n");
    });
  });
});

/** A shell-output as lib/mind/run/run.ts records one: over 4096 bytes, the head inline and the whole in a blob. */
async function appendLargeOutput(run: RunScope, text: string): Promise<Step> {
  const stepId = run.journal.newId();
  const stdout = splitOutput(text, `${stepId}.stdout`);
  if (stdout.blob) await run.journal.log.putBlob(stdout.blob.name, stdout.blob.text);
  return run.append({ type: "shell-output", stdout: stdout.inline, stderr: "", exit: 0, exec_s: 0.5, timed_out: false, ...blobFields("stdout", stdout), step_id: stepId });
}

const LARGE = Array.from({ length: 700 }, (_, i) => `line ${i} é\n`).join("");

describe("traj", () => {
  it("tail -n 3 prints the newest three steps, one stepLine each", async () => {
    const { session, journal, run } = await wire();
    await pageSends({ from: "you", to: "Reverie", content: "are you\nthere?" });
    await journal.append({ type: "thought", content: "I should answer.", source: "reverie" });
    await run.append({ type: "final", content: "answered" });
    const r = await exec(session, "traj tail -n 3");
    const steps = await storedTail(mind.id, 3);
    expect(outcome(r)).toEqual(
      ok(
        [
          // The message keeps the id the page gave it; the mind's writer stamps it with the test clock as it takes it.
          `${steps[0]?.step_id.slice(0, 8)} 17:44:36 message [chat] you → Reverie: are you there?\n`,
          "0a000002 17:44:36 thought [reverie] I should answer.\n",
          "0a000003 17:44:36 final answered\n",
        ].join(""),
      ),
    );
    expect(r.stdout).toBe(steps.map((s) => `${stepLine(s)}\n`).join(""));
  });

  it("tail defaults to 20 and takes -nN", async () => {
    const { session, journal } = await wire();
    for (let i = 0; i < 25; i++) await journal.append({ type: "thought", content: `t${i}` });
    const twenty = Array.from({ length: 20 }, (_, i) => `${jid(i + 7).slice(0, 8)} 17:44:36 thought t${i + 5}\n`).join("");
    expect(outcome(await exec(session, "traj tail"))).toEqual(ok(twenty));
    expect(outcome(await exec(session, "traj tail -n2"))).toEqual(ok("0a000025 17:44:36 thought t23\n0a000026 17:44:36 thought t24\n"));
  });

  for (const [args, problem] of [
    ["-n 0", "-n takes a whole number above 0, not '0'"],
    ["-n -4", "-n takes a whole number above 0, not '-4'"],
    ["-n 2.5", "-n takes a whole number above 0, not '2.5'"],
    ["-n many", "-n takes a whole number above 0, not 'many'"],
    ["-n", "tail: unexpected '-n'"],
    ["--lines 3", "tail: unexpected '--lines'"],
  ] as const) {
    it(`tail ${args} fails with usage and exit 2`, async () => {
      const { session } = await wire();
      expect(outcome(await exec(session, `traj tail ${args}`))).toEqual(failed(`traj: ${problem}\n${traj.usage}\n`, 2));
    });
  }

  it("an unknown or missing subcommand fails with usage and exit 2", async () => {
    const { session } = await wire();
    expect(outcome(await exec(session, "traj rm"))).toEqual(failed(`traj: unknown subcommand 'rm'\n${traj.usage}\n`, 2));
    expect(outcome(await exec(session, "traj"))).toEqual(failed(`traj: a subcommand is needed\n${traj.usage}\n`, 2));
  });

  describe("show", () => {
    it("<8-hex> prints the step as pretty JSON", async () => {
      const { session, run } = await wire();
      await run.append({ type: "thought", content: "a line\nand another", source: "monolith" });
      const expected = { type: "thought", step_id: jid(2), ts: TS, run_id: RUN, trigger_step: TRIGGER, content: "a line\nand another", source: "monolith" };
      const stored = await storedStep(jid(2));
      expect(stored).toEqual(expected);
      expect(outcome(await exec(session, "traj show 0a000002"))).toEqual(ok(pretty(stored)));
      // The whole id, in upper case, finds it too.
      expect(outcome(await exec(session, `traj show ${jid(2).toUpperCase()}`))).toEqual(ok(pretty(stored)));
    });

    it("--full replaces a truncated stdout with the blob's whole text", async () => {
      const { session, run } = await wire();
      const step = await appendLargeOutput(run, LARGE);
      const stored = await storedStep(step.step_id);
      const head = new TextDecoder().decode(new TextEncoder().encode(LARGE).subarray(0, INLINE_OUTPUT_BYTES)).replace(/\uFFFD$/, "");
      expect(stored).toEqual({
        type: "shell-output",
        step_id: jid(2),
        ts: TS,
        run_id: RUN,
        trigger_step: TRIGGER,
        stdout: head,
        stderr: "",
        exit: 0,
        exec_s: 0.5,
        timed_out: false,
        stdout_ref: `blobs/${jid(2)}.stdout`,
        stdout_bytes: new TextEncoder().encode(LARGE).length,
        stdout_truncated: true,
      });
      expect(outcome(await exec(session, "traj show 0a000002"))).toEqual(ok(pretty(stored)));
      expect(outcome(await exec(session, "traj show 0a000002 --full"))).toEqual(ok(pretty({ ...stored, stdout: LARGE })));
      expect(outcome(await exec(session, "traj show --full 0a000002"))).toEqual(ok(pretty({ ...stored, stdout: LARGE })));
    });

    it("--full reads a child trajectory's blob from that child's folder", async () => {
      const { session, run, journal } = await wire();
      const childId = journal.newId();
      const fork = await run.append({ type: "fork", child: childId, child_ref: trajDirName(childId, "child") });
      const child = await journal.fork({ trajId: childId, name: "child", forkStepId: fork.step_id });
      const childRun = await child.openRun({ model: "test", launched_by: "shellm", trigger_step: fork.step_id });
      const step = await appendLargeOutput(childRun, LARGE);
      const stored = await storedStep(step.step_id, childId);
      expect(stored?.stdout_ref).toBe(`blobs/${step.step_id}.stdout`);
      expect(outcome(await exec(session, `traj show ${step.step_id.slice(0, 8)} --full`))).toEqual(ok(pretty({ ...stored, stdout: LARGE })));
    });

    it("--full says so when the blob is missing", async () => {
      const { session, run } = await wire();
      const step = await run.append({ type: "shell-output", stdout: "head", stderr: "", exit: 0, exec_s: 0.1, timed_out: false, stdout_ref: "blobs/gone.stdout", stdout_truncated: true });
      const stored = await storedStep(step.step_id);
      expect(outcome(await exec(session, "traj show 0a000002 --full"))).toEqual(ok(pretty({ ...stored, stdout: "head\n[the rest (blobs/gone.stdout) could not be read]" })));
    });

    it("an ambiguous prefix names the candidates and asks for more", async () => {
      const { session, journal } = await wire();
      await journal.append({ type: "thought", content: "one", step_id: "abcdef01-1111-4000-8000-000000000000" });
      await journal.append({ type: "thought", content: "two", step_id: "abcdef01-2222-4000-8000-000000000000" });
      for (let i = 0; i < 5; i++) await journal.append({ type: "thought", content: `t${i}` }); // 0a000002…0a000006
      expect(outcome(await exec(session, "traj show abcdef01"))).toEqual(
        failed("traj show: 'abcdef01' matches 2 steps (abcdef01-1111, abcdef01-2222); give more of the id\n", 1),
      );
      expect(outcome(await exec(session, "traj show 0a00"))).toEqual(
        failed("traj show: '0a00' matches several steps (0a000001-0000, 0a000002-0000, 0a000003-0000, 0a000004-0000, 0a000005-0000); give more of the id\n", 1),
      );
      expect(JSON.parse((await exec(session, "traj show abcdef01-2222")).stdout)).toMatchObject({ content: "two" });
    });

    it("refuses an unknown id, a word that is not hex, and a wrong number of ids", async () => {
      const { session } = await wire();
      expect(outcome(await exec(session, "traj show deadbeef"))).toEqual(failed("traj show: no step 'deadbeef'\n", 1));
      expect(outcome(await exec(session, "traj show zzzz1234"))).toEqual(failed("traj show: 'zzzz1234' is not a step id (hex digits, at least 4)\n", 1));
      expect(outcome(await exec(session, "traj show abc"))).toEqual(failed("traj show: 'abc' is not a step id (hex digits, at least 4)\n", 1));
      const oneId = failed(`traj: show takes one step id (or its first 8 characters)\n${traj.usage}\n`, 2);
      expect(outcome(await exec(session, "traj show"))).toEqual(oneId);
      expect(outcome(await exec(session, "traj show 0a000001 0a000002"))).toEqual(oneId);
    });
  });

  describe("search and count", () => {
    async function fruit(w: Wired) {
      await w.journal.append({ type: "thought", content: "apple pie" }); // 0a000002
      await w.journal.append({ type: "thought", content: "banana" }); // 0a000003
      await w.run.append({ type: "thought", content: "Apple tart" }); // 0a000004
    }

    it("search prints matching steps, newest first, case-insensitively", async () => {
      const w = await wire();
      await fruit(w);
      expect(outcome(await exec(w.session, "traj search APPLE"))).toEqual(ok("0a000004 17:44:36 thought Apple tart\n0a000002 17:44:36 thought apple pie\n"));
      expect(outcome(await exec(w.session, "traj search apple -n 1"))).toEqual(ok("0a000004 17:44:36 thought Apple tart\n"));
      expect(outcome(await exec(w.session, "traj search apple pie"))).toEqual(ok("0a000002 17:44:36 thought apple pie\n"));
    });

    it("search with no match exits 1 and says so; with no text it shows usage", async () => {
      const w = await wire();
      await fruit(w);
      expect(outcome(await exec(w.session, "traj search kiwi"))).toEqual(failed("traj search: nothing matches 'kiwi'\n", 1));
      expect(outcome(await exec(w.session, "traj search"))).toEqual(failed(`traj: search needs a text\n${traj.usage}\n`, 2));
    });

    it("count prints how many steps the trajectory has", async () => {
      const w = await wire();
      // The mind's first line, its config, and this run's header.
      expect(outcome(await exec(w.session, "traj count"))).toEqual(ok("3\n"));
      await fruit(w);
      expect(outcome(await exec(w.session, "traj count"))).toEqual(ok("6\n"));
      expect(outcome(await exec(w.session, "traj count all"))).toEqual(failed(`traj: count takes no arguments\n${traj.usage}\n`, 2));
    });
  });

  it("reads only its own trajectory; show still finds a child's step", async () => {
    const { session, run, journal } = await wire();
    const childId = journal.newId(); // 0a000002
    const fork = await run.append({ type: "fork", child: childId, child_ref: trajDirName(childId, "child") }); // 0a000003
    const child = await journal.fork({ trajId: childId, name: "child", forkStepId: fork.step_id });
    const thought = await child.append({ type: "thought", content: "a thought only the child has" }); // 0a000004

    const root = await storedTail(mind.id, 500);
    expect(root.map((s) => s.type)).toEqual(["trajectory", "config", "shellm-run", "fork"]);
    expect(outcome(await exec(session, "traj tail -n 500"))).toEqual(ok(root.map((s) => `${stepLine(s)}\n`).join("")));
    expect(outcome(await exec(session, "traj search only the child"))).toEqual(failed("traj search: nothing matches 'only the child'\n", 1));
    expect(outcome(await exec(session, "traj count"))).toEqual(ok("4\n"));
    expect(outcome(await exec(session, "traj show 0a000004"))).toEqual(ok(pretty(await storedStep(thought.step_id, childId))));
    expect(JSON.parse((await exec(session, "traj show 0a000004")).stdout)).toEqual({ type: "thought", step_id: jid(4), ts: TS, content: "a thought only the child has" });
  });
});

describe("--help", () => {
  it("covers every registered command", () => {
    expect(COMMANDS.map((c) => c.name)).toEqual(expect.arrayContaining(["chat", "traj", "shellm"]));
  });

  for (const command of COMMANDS.filter((c) => !c.nativeHelp)) {
    it(`${command.name} --help and -h print its usage with exit 0`, async () => {
      const { session } = await wire();
      expect(command.usage.endsWith("\n")).toBe(false);
      expect(outcome(await exec(session, `${command.name} --help`))).toEqual(ok(`${command.usage}\n`));
      expect(outcome(await exec(session, `${command.name} -h`))).toEqual(ok(`${command.usage}\n`));
    });
  }

  // A real tool (node, npm) answers --help itself: the call reaches it.
  for (const command of COMMANDS.filter((c) => c.nativeHelp)) {
    it(`${command.name} --help reaches the tool`, async () => {
      const runtime: RuntimePort = {
        status: () => ({ state: "ready" }),
        spawn: async (req) => ({ output: `the tool's own help for ${req.command} ${req.args.join(" ")}\n`, exit: 0, files: [] }),
      };
      const { session } = await wire({ runtime });
      expect(command.usage.endsWith("\n")).toBe(false);
      expect(outcome(await exec(session, `${command.name} --help`))).toEqual(ok(`the tool's own help for ${command.name} --help\n`));
    });
  }
});

const SILENCE_NOTE = "[reverie] stopped: no sign of life for 0.3 s (the watchdog); the output above is what it printed before\n";
const WALL_NOTE = "[reverie] stopped: the block ran for 0.5 s (the wall-time limit); the output above is what it printed before\n";
/** Small limits, so a stop comes quickly. */
const WATCHED = withLimits({ silence_s: 0.3, wall_s: 5 });

/** The limits a stop lowered are back: a 1000-iteration loop runs to its end. */
async function expectLimitsRestored(session: ShellSession) {
  expect(outcome(await exec(session, "for i in $(seq 1 1000); do :; done; echo $i"))).toEqual(ok("1000\n"));
}

describe("the watchdog", () => {
  it("stops a silent block after silence_s, keeping what it printed", async () => {
    const { session } = await wire({ permissions: WATCHED });
    const r = await exec(session, "echo a; echo b; sleep 60; echo never > never.txt");
    expect(outcome(r)).toEqual({ stdout: "a\nb\n", stderr: SILENCE_NOTE, exit: 124, timedOut: true });
    expect(r.limit).toBe("silence");
    expect(r.execS).toBeGreaterThanOrEqual(0.29);
    expect(r.execS).toBeLessThan(1.5);
    expect(outcome(await exec(session, "ls"))).toEqual(ok(""));
    await expectLimitsRestored(session);
  });

  it("keeps the lines of a loop it stops", async () => {
    const { session } = await wire({ permissions: WATCHED });
    const r = await exec(session, "while true; do sleep 0.05; echo x; done");
    expect(r.stdout).toMatch(/^(x\n){2,}$/);
    expect({ ...outcome(r), stdout: "" }).toEqual({ stdout: "", stderr: SILENCE_NOTE, exit: 124, timedOut: true });
    expect(r.limit).toBe("silence");
    await expectLimitsRestored(session);
  });

  it("does not stop a command whose nested run beacons", async () => {
    const shellm = slowShellm({ ms: 1000, everyMs: 100, beacons: true });
    const { session } = await wire({ permissions: WATCHED, shellm });
    const r = await exec(session, "echo a; shellm 'think hard'; echo b");
    expect(outcome(r)).toEqual(ok("a\n42\nb\n"));
    expect(r.limit).toBeUndefined();
    expect(r.execS).toBeGreaterThanOrEqual(0.95);
    expect(shellm.calls.map((c) => [c.task, c.beacons])).toEqual([["think hard", 10]]);
  });

  it("stops the same command when it gives no sign of life", async () => {
    const shellm = slowShellm({ ms: 1000, everyMs: 100, beacons: false });
    const { session } = await wire({ permissions: WATCHED, shellm });
    const r = await exec(session, "echo a; shellm 'think hard'; echo b");
    // The command itself ran to its end (its answer is kept); the script ended there.
    expect(outcome(r)).toEqual({ stdout: "a\n42\n", stderr: SILENCE_NOTE, exit: 124, timedOut: true });
    expect(r.limit).toBe("silence");
    await expectLimitsRestored(session);
  });

  it("stops a beaconing block at wall_s, and tells the waiting command at once", async () => {
    const shellm = slowShellm({ ms: Number.POSITIVE_INFINITY, everyMs: 50, beacons: true, honoursSignal: true });
    const { session } = await wire({ permissions: withLimits({ silence_s: 0.3, wall_s: 0.5 }), shellm });
    const r = await exec(session, "echo a; shellm forever; echo b");
    expect(outcome(r)).toEqual({ stdout: "a\n", stderr: `shellm: the nested run was stopped\n${WALL_NOTE}`, exit: 124, timedOut: true });
    expect(r.limit).toBe("wall");
    // Told when the block was stopped, not after the grace period.
    expect(shellm.calls[0]?.abortedAfterMs).toBeLessThan(1000);
    await expectLimitsRestored(session);
  });
});

describe("hostile scripts", () => {
  /** The files written before (and early in) the block are saved, and the session still works. */
  async function expectNothingLost(session: ShellSession, permissions: Permissions) {
    const reloaded = await wire({ permissions });
    expect(outcome(await exec(reloaded.session, "cat before.txt early.txt"))).toEqual(ok("before\nearly\n"));
    expect(outcome(await exec(session, "echo still here"))).toEqual(ok("still here\n"));
  }

  async function hostile(permissions: Permissions, code: string) {
    const { session } = await wire({ permissions });
    expect(outcome(await exec(session, "echo before > before.txt"))).toEqual(ok(""));
    const r = await exec(session, `echo early > early.txt; echo started; ${code}; echo never`);
    return { session, r };
  }

  it("an endless loop ends at the command limit", async () => {
    const permissions = withLimits({ max_commands: 10_000 });
    const { session, r } = await hostile(permissions, "while true; do :; done");
    expect(outcome(r)).toEqual({
      stdout: "started\n",
      stderr: "bash: too many commands executed (>10000), increase executionLimits.maxCommandCount\n[reverie] ended by the command limit (max_commands per block)\n",
      exit: 126,
      timedOut: false,
    });
    expect(r.limit).toBe("commands");
    await expectNothingLost(session, permissions);
  });

  it("runaway recursion ends at the recursion limit", async () => {
    const { session, r } = await hostile(DEFAULT_PERMISSIONS, "f(){ f; }; f");
    expect(outcome(r)).toEqual({
      stdout: "started\n",
      stderr: "bash: f: maximum recursion depth (100) exceeded, increase executionLimits.maxCallDepth\n[reverie] ended by the recursion limit\n",
      exit: 126,
      timedOut: false,
    });
    expect(r.limit).toBe("recursion");
    await expectNothingLost(session, DEFAULT_PERMISSIONS);
  });

  it("60 MB of output is cut at max_output_bytes and the block returns", async () => {
    const max = DEFAULT_PERMISSIONS.limits.max_output_bytes;
    const { session, r } = await hostile(DEFAULT_PERMISSIONS, 'for i in $(seq 1 60); do printf "%1048576s" ""; done');
    expect(outcome(r)).toEqual({
      stdout: `started\n${" ".repeat(max - "started\n".length)}\n[reverie] stdout cut at ${max} bytes\n`,
      stderr: `bash: pipeline: total output size exceeded (>${max * 4} bytes), increase executionLimits.maxOutputSize\n[reverie] ended by the output limit\n`,
      exit: 126,
      timedOut: false,
    });
    expect(r.limit).toBe("output");
    await expectNothingLost(session, DEFAULT_PERMISSIONS);
  });

  it("paths out of the workspace show nothing of the host", async () => {
    const { session } = await wire();
    expect(outcome(await exec(session, "cat ../../../etc/passwd"))).toEqual(failed("cat: ../../../etc/passwd: No such file or directory\n", 1));
    expect(outcome(await exec(session, "cat /etc/passwd /etc/shadow"))).toEqual(
      failed("cat: /etc/passwd: No such file or directory\ncat: /etc/shadow: No such file or directory\n", 1),
    );
    const root = await exec(session, "cd /; ls");
    expect(outcome(root)).toEqual(ok("bin\ndev\nproc\ntmp\nusr\nworkspace\n"));
    expect(root.cwd).toBe("/");
    expect(outcome(await exec(session, "cat /proc/self/environ"))).toEqual(failed("cat: /proc/self/environ: No such file or directory\n", 1));
    expect(outcome(await exec(session, "cat /proc/version"))).toEqual(ok("Linux version 5.15.0-generic (just-bash) #1 SMP PREEMPT\n"));
    expect(outcome(await exec(session, "ls /home"))).toEqual(failed("ls: /home: No such file or directory\n", 2));
    expect(outcome(await exec(session, `ls ${process.cwd()}`))).toEqual(failed(`ls: ${process.cwd()}: No such file or directory\n`, 2));
  });

  it("the network is off with default permissions", async () => {
    const { session } = await wire();
    for (const cmd of ["curl", "wget"]) {
      expect(outcome(await exec(session, `${cmd} https://example.com`))).toEqual(
        failed(`${cmd}: the network is off for this mind. Its human can allow URL prefixes in Settings; nothing inside the sandbox can.\n`, 1),
      );
    }
  });

  it("nothing inside can change the permissions or limits", async () => {
    const permissions = withLimits({ max_commands: 2_000 });
    const { session } = await wire({ permissions });
    const attempt = await exec(
      session,
      [
        `export REVERIE_LIMITS='{"max_commands":100000000}' REVERIE_PERMISSIONS='{"network":{"allow":["https://"]}}'`,
        "mkdir -p .reverie /etc",
        `echo '{"limits":{"max_commands":100000000},"network":{"allow":["https://"]}}' | tee .reverie/permissions.json permissions.json /etc/reverie.json > /dev/null`,
        "ulimit -n unlimited",
      ].join("\n"),
    );
    expect(outcome(attempt)).toEqual(failed("bash: ulimit: command not found\n", 127));
    const next = await exec(session, "echo $REVERIE_LIMITS; curl https://example.com; while true; do :; done", { env: attempt.env, cwd: attempt.cwd });
    expect(outcome(next)).toEqual({
      stdout: '{"max_commands":100000000}\n',
      stderr:
        "curl: the network is off for this mind. Its human can allow URL prefixes in Settings; nothing inside the sandbox can.\n" +
        "bash: too many commands executed (>2000), increase executionLimits.maxCommandCount\n[reverie] ended by the command limit (max_commands per block)\n",
      exit: 126,
      timedOut: false,
    });
    // Not even a fresh sandbox over the same workspace reads them.
    const reloaded = await wire({ permissions });
    expect((await exec(reloaded.session, "while true; do :; done")).stderr).toBe(
      "bash: too many commands executed (>2000), increase executionLimits.maxCommandCount\n[reverie] ended by the command limit (max_commands per block)\n",
    );
  });

  it("nothing inside can stop the mind: kill and exit end only the block", async () => {
    const { session } = await wire();
    expect(outcome(await exec(session, "echo a; kill -9 $$; echo b"))).toEqual({ stdout: "a\nb\n", stderr: "bash: kill: command not found\n", exit: 0, timedOut: false });
    expect(outcome(await exec(session, "kill 1; echo $?"))).toEqual({ stdout: "127\n", stderr: "bash: kill: command not found\n", exit: 0, timedOut: false });
    expect(outcome(await exec(session, "echo a; exit 0; echo b"))).toEqual(ok("a\n"));
    expect(outcome(await exec(session, "echo a; exit 7"))).toEqual({ stdout: "a\n", stderr: "", exit: 7, timedOut: false });
    expect(outcome(await exec(session, "echo still here"))).toEqual(ok("still here\n"));
  });

  describe("with the network allowed", () => {
    let server: http.Server;
    let base = "";
    const seen: string[] = [];

    beforeAll(async () => {
      server = http.createServer((req, res) => {
        seen.push(req.url ?? "");
        res.end(`hello from ${req.url}\n`);
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it("curl reaches the allowed prefix and nothing else", async () => {
      const { session } = await wire({ permissions: withLimits({}, [`${base}/ok`]) });
      expect(outcome(await exec(session, `curl -s ${base}/ok`))).toEqual(ok("hello from /ok\n"));
      expect(outcome(await exec(session, `curl -s ${base}/ok/deeper`))).toEqual(ok("hello from /ok/deeper\n"));
      expect(outcome(await exec(session, `curl ${base}/other`))).toEqual(failed(`curl: (7) Network access denied: URL not in allow-list: ${base}/other\n`, 7));
      expect(outcome(await exec(session, "curl https://example.com/"))).toEqual(failed("curl: (7) Network access denied: URL not in allow-list: https://example.com/\n", 7));
      expect(seen).toEqual(["/ok", "/ok/deeper"]);
    });
  });
});

describe("the model's key", () => {
  it("is never visible inside the sandbox", async () => {
    const keyed = await createMind(db, { name: "Keyed", persona: "", model: { provider: "openai", model: "gpt-test", apiKey: openaiStyle("test-SECRET-123") } }, NOW);
    const { session } = await wire({ mindId: keyed.id, selfName: keyed.name, permissions: keyed.permissions });
    const config = (await storedTail(keyed.id, 5)).find((s) => s.type === "config");
    const r = await exec(
      session,
      `env; set; cat /proc/self/environ; grep -r SECRET / 2>/dev/null; grep -ri test-SEC / 2>/dev/null; traj tail -n 500; traj search test-SEC; traj show ${config?.step_id}; chat history`,
    );
    expect(r.stdout).toContain("HOME=/workspace"); // env and set did run
    expect(r.stdout).toContain(`"provider": "openai"`); // and so did traj show of the config step
    for (const text of [r.stdout, r.stderr, JSON.stringify(r.env)]) {
      expect(text).not.toContain("SECRET");
      expect(text).not.toContain("test-SECRET");
    }
    // The search ran and found nothing: the only SECRET in its answer is the word searched for.
    expect(outcome(await exec(session, "traj search SECRET"))).toEqual(failed("traj search: nothing matches 'SECRET'\n", 1));
  });
});
