// lib/context/project.ts (how each step reads) through lib/context/build.ts
// (the messages), for a tail short enough to be shown whole.
import { describe, expect, it } from "vitest";
import { arraySource, buildContext } from "../../../lib/context/build";
import { renderStep, type ChatMessage } from "../../../lib/context/project";
import { DEFAULT_TIERS } from "../../../lib/context/staircase";
import { TokenCounter } from "../../../lib/context/tokens";
import { DEFAULT_PACING } from "../../../lib/mind/pacing/pacing";
import { selfEditStep } from "../../../lib/shell/self/edit";
import { isKind, type Step } from "../../../lib/trajectory/schema";
import { stepMaker } from "../helpers/steps";

const F = "```";
const SELF = "Reverie";

/** The steps verbatim, with `elided` earlier steps not at hand, as the mind's run builds them (no summaries). */
const projectMessages = (steps: Step[], opts: { selfName: string; elided: number }): ChatMessage[] =>
  buildContext(arraySource(steps), { selfName: opts.selfName, budget: 1_000_000, maxVerbatim: 1_000_000, tiers: DEFAULT_TIERS, summary: () => undefined, counter: new TokenCounter(), before: opts.elided }).messages;

function aTrajectory() {
  const mk = stepMaker();
  const traj = mk("trajectory", { name: SELF });
  const config = mk("config", { pacing: DEFAULT_PACING, max_iterations: 12, model: "scripted", provider: "openai-compatible" });
  const wake = mk("wake", { reason: "start", level: 0, delay_s: 0, source: "monolith" });
  const run = mk("shellm-run", { model: "openai-compatible/scripted", launched_by: "monolith", wake: wake.step_id });
  const inRun = { run_id: run.step_id, trigger_step: wake.step_id };
  const prompt = mk("prompt", { ...inRun, content: "You are starting up." });
  const r1 = mk("reasoning", { ...inRun, thought: "Let me look around.", cmd: "ls", in_tok: 1234, out_tok: 56 });
  const o1 = mk("shell-output", { ...inRun, stdout: "notes.md\n", stderr: "", exit: 0, exec_s: 0.021, timed_out: false });
  const r2 = mk("reasoning", { ...inRun, thought: "", cmd: "sleep 100" });
  const o2 = mk("shell-output", { ...inRun, stdout: "", stderr: "killed\n", exit: 124, exec_s: 30, timed_out: true });
  const fb = mk("feedback", { ...inRun, content: "A message arrived while you were busy." });
  const msg = mk("message", { from: "alice", to: SELF, content: "Are you there?" });
  const r3 = mk("reasoning", { ...inRun, thought: "Alice wrote.", cmd: `chat reply ${msg.step_id.slice(0, 8)} "Yes."` });
  const sent = mk("message", { ...inRun, from: SELF, to: "alice", content: "Yes.", reply_to: msg.step_id, source: "chat" });
  const o3 = mk("shell-output", { ...inRun, stdout: "sent\n", stderr: "", exit: 0, exec_s: 0.004, timed_out: false });
  const fin = mk("final", { ...inRun, content: "replied" });
  const thought = mk("thought", { content: "The sea is calm.", source: "monolith" });
  const obs = mk("observation", { content: "I was away for 5 min.", source: "system" });
  const err = mk("error", { reason: "stall", content: "Run stopped: 10 commands failed in a row." });
  const old = mk("monolith-wake", {});
  const dream = mk("dream", { content: "a red door" });
  const summary = mk("run-summary", {});
  const beat = mk("heartbeat", { bpm: 60 });
  const steps = [traj, config, wake, run, prompt, r1, o1, r2, o2, fb, msg, r3, sent, o3, fin, thought, obs, err, old, dream, summary, beat];
  return { steps, run, msg, sent };
}

function checkShape(messages: ChatMessage[]) {
  expect(messages.length).toBeGreaterThan(0);
  expect(messages[0]?.role).toBe("user");
  expect(messages[messages.length - 1]?.role).toBe("user");
  for (let i = 1; i < messages.length; i++) expect(messages[i]?.role).not.toBe(messages[i - 1]?.role);
}

describe("a tail as model messages", () => {
  it("renders a whole run: reasoning before code, messages as sent or received, bookkeeping left out", () => {
    const { steps, msg, sent } = aTrajectory();
    expect(projectMessages(steps, { selfName: SELF, elided: 0 })).toEqual([
      { role: "user", content: "[woke: start, after 0 s]\n\nYou are starting up." },
      { role: "assistant", content: `Let me look around.\n\n${F}bash\nls\n${F}` },
      { role: "user", content: "[output exit=0]\nnotes.md\n" },
      { role: "assistant", content: `${F}bash\nsleep 100\n${F}` },
      {
        role: "user",
        content:
          "[output exit=124 timed out]\n\n[stderr]\nkilled\n" +
          "\n\n[feedback] A message arrived while you were busy." +
          `\n\n[message ${msg.step_id} from alice to ${SELF}]\nAre you there?`,
      },
      { role: "assistant", content: `Alice wrote.\n\n${F}bash\nchat reply ${msg.step_id.slice(0, 8)} "Yes."\n${F}` },
      {
        role: "user",
        content: `[sent message ${sent.step_id} to alice re ${msg.step_id.slice(0, 8)}]\nYes.\n\n[output exit=0]\nsent\n\n\n[run ended: FINAL=replied]`,
      },
      { role: "assistant", content: "The sea is calm." },
      {
        role: "user",
        content: "[observation] I was away for 5 min.\n\n[error: stall] Run stopped: 10 commands failed in a row.\n\n[dream] a red door\n\n[run-summary]\n\n[heartbeat]",
      },
    ]);
  });

  it("shows no bookkeeping: no run ids, token counts, timings or config", () => {
    const { steps, run } = aTrajectory();
    const all = projectMessages(steps, { selfName: SELF, elided: 0 })
      .map((m) => m.content)
      .join("\n");
    for (const hidden of [run.step_id, "1234", "0.021", "exec_s", "in_tok", "openai-compatible", "trajectory", "monolith", "bpm"]) {
      expect(all).not.toContain(hidden);
    }
  });

  it("a message from someone else reads as [message <id> from X to Y], one from the mind as [sent message …]", () => {
    const mk = stepMaker();
    const incoming = mk("message", { from: "bob", to: SELF, content: "hi" });
    const outgoing = mk("message", { from: SELF, to: "bob", content: "hello bob" });
    const other = mk("message", { from: "bob", to: "carol", content: "psst" });
    expect(projectMessages([incoming, outgoing, other], { selfName: SELF, elided: 0 })).toEqual([
      {
        role: "user",
        content: `[message ${incoming.step_id} from bob to ${SELF}]\nhi\n\n[sent message ${outgoing.step_id} to bob]\nhello bob\n\n[message ${other.step_id} from bob to carol]\npsst`,
      },
    ]);
  });

  it("tags a message through an invite with its sender's role, an operator's control as an observation, and an alert as an alert", () => {
    const mk = stepMaker();
    const guest = mk("message", { from: "Bo", to: SELF, content: "hi", source: "invite", role: "guest" });
    const operator = mk("message", { from: "Cy", to: SELF, content: "focus on the garden", source: "invite", role: "operator" });
    const paused = mk("observation", { content: "Cy (operator) paused you, from an invite link.", source: "control" });
    const alert = mk("observation", { content: 'Alert (error) from the alert link "CI": build 42 failed', source: "alert" });
    expect(projectMessages([guest, operator, paused, alert], { selfName: SELF, elided: 0 })).toEqual([
      {
        role: "user",
        content: `[message ${guest.step_id} from Bo (guest) to ${SELF}]\nhi\n\n[message ${operator.step_id} from Cy (operator) to ${SELF}]\nfocus on the garden\n\n[observation] Cy (operator) paused you, from an invite link.\n\n[alert] Alert (error) from the alert link "CI": build 42 failed`,
      },
    ]);
  });

  it("a cut output names the command that reads it whole", () => {
    const mk = stepMaker();
    const out = mk("shell-output", {
      stdout: "aaaa",
      stderr: "bbbb",
      exit: 0,
      exec_s: 1,
      timed_out: false,
      stdout_ref: "blobs/x.stdout",
      stdout_bytes: 9000,
      stdout_truncated: true,
      stderr_ref: "blobs/x.stderr",
      stderr_bytes: 5000,
      stderr_truncated: true,
    });
    expect(projectMessages([out], { selfName: SELF, elided: 0 })).toEqual([
      {
        role: "user",
        content:
          `[output exit=0]\naaaa\n[… 9000 bytes in all; \`traj show ${out.step_id.slice(0, 8)} --full\` reads the rest]\n[stderr]\nbbbb\n[… 5000 bytes in all; \`traj show ${out.step_id.slice(0, 8)} --full\` reads the rest]`,
      },
    ]);
  });

  it("a long field is cut on a character boundary, with a hint naming how to read it whole", () => {
    const mk = stepMaker();
    // 🧠 is two UTF-16 units: no cut may fall between them.
    // With one letter first, the head's end (unit 1500) falls inside a pair: it steps back one unit.
    const long = `a${"🧠".repeat(1500)}`;
    const t = mk("thought", { content: long });
    const [m] = projectMessages([t], { selfName: SELF, elided: 0 }).filter((x) => x.role === "assistant");
    const hint = `\n[… 1101 more characters here; \`traj show ${t.step_id.slice(0, 8)} --full\` reads it all]\n`;
    expect(m?.content).toBe(`a${"🧠".repeat(749)}${hint}${"🧠".repeat(200)}`);
    // A prompt (the task) is never cut.
    const p = mk("prompt", { content: "x".repeat(3000) });
    expect(projectMessages([p], { selfName: SELF, elided: 0 })[0]?.content).toBe("x".repeat(3000));
  });

  it("a change to the mind's own texts reads as [self-edit], its line then its diff: its human's too, never left out as bookkeeping", async () => {
    const mk = stepMaker();
    const mine = mk("self-edit", { ...(await selfEditStep("self/instructions.md", "Be kind.\nBe brief.\n", "Be kind.\nBe very brief.\n", { kind: "mind", run: "1a2b3c4d-0000-4000-8000-aaaaaaaaaaaa", traj: "5e6f7a8b-0000-4000-8000-aaaaaaaaaaaa" })) });
    const theirs = mk("self-edit", { ...(await selfEditStep("self/persona.md", "I am calm.\n", null, { kind: "human", name: "ada", via: "settings" })) });
    expect(projectMessages([mine, theirs], { selfName: SELF, elided: 0 })).toEqual([
      {
        role: "user",
        content:
          "[self-edit] I changed self/instructions.md (+1 −1).\n--- a/self/instructions.md\n+++ b/self/instructions.md\n@@ -1,2 +1,2 @@\n Be kind.\n-Be brief.\n+Be very brief.\n" +
          "\n\n[self-edit] ada removed your self/persona.md in Settings.\n--- a/self/persona.md\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-I am calm.\n",
      },
    ]);
  });

  it("a long self-edit diff is cut like any long field, with the hint naming how to read it whole", async () => {
    const mk = stepMaker();
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i}`).join("\n");
    const edit = mk("self-edit", { ...(await selfEditStep("self/instructions.md", null, `${lines}\n`, { kind: "harness", why: "unrecorded" })) });
    if (!isKind(edit, "self-edit")) throw new Error("not a self-edit");
    const diff = edit.diff;
    expect(diff.length).toBeGreaterThan(2000);
    const hint = `\n[… ${diff.length - 1900} more characters here; \`traj show ${edit.step_id.slice(0, 8)} --full\` reads it all]\n`;
    expect(renderStep(edit, SELF)).toEqual({
      role: "user",
      content: `[self-edit] Created self/instructions.md (300 lines) with no step to say so; recorded now, when my harness found it.\n${diff.slice(0, 1500)}${hint}${diff.slice(-400)}`,
    });
  });

  it("where the texts began (the harness's first-start record, whole texts the mind ran with before) is not shown", async () => {
    const first = stepMaker()("self-edit", { ...(await selfEditStep("self/persona.md", null, "calm", { kind: "harness", why: "first-start" })) });
    expect(renderStep(first, SELF)).toBeNull();
  });

  it("the elided note comes first and counts the steps not shown", () => {
    const mk = stepMaker();
    const r = mk("reasoning", { thought: "Again.", cmd: "date" });
    expect(projectMessages([r], { selfName: SELF, elided: 40 })).toEqual([
      { role: "user", content: "[40 earlier steps not shown (not summarized yet). `traj tail -n N`, `traj search` and `traj show` reach them.]" },
      { role: "assistant", content: `Again.\n\n${F}bash\ndate\n${F}` },
      { role: "user", content: "[continue]" },
    ]);
  });

  it("the elided note joins a first user step", () => {
    const mk = stepMaker();
    const p = mk("prompt", { content: "Go on." });
    expect(projectMessages([p], { selfName: SELF, elided: 3 })).toEqual([
      { role: "user", content: "[3 earlier steps not shown (not summarized yet). `traj tail -n N`, `traj search` and `traj show` reach them.]\n\nGo on." },
    ]);
  });

  it("a tail that starts with the model's own step gets a user turn before it", () => {
    const mk = stepMaker();
    const t = mk("thought", { content: "Hm." });
    const o = mk("observation", { content: "Rain." });
    expect(projectMessages([t, o], { selfName: SELF, elided: 0 })).toEqual([
      { role: "user", content: "[the trajectory so far]" },
      { role: "assistant", content: "Hm." },
      { role: "user", content: "[observation] Rain." },
    ]);
  });

  it("nothing to show (only bookkeeping) is still a valid conversation", () => {
    const mk = stepMaker();
    const steps = [mk("trajectory", { name: SELF }), mk("shellm-run", {}), mk("monolith-wake", {})];
    expect(projectMessages(steps, { selfName: SELF, elided: 0 })).toEqual([{ role: "user", content: "[the trajectory so far]" }]);
    expect(projectMessages([], { selfName: SELF, elided: 0 })).toEqual([{ role: "user", content: "[the trajectory so far]" }]);
  });

  it("consecutive assistant steps are joined into one turn", () => {
    const mk = stepMaker();
    const steps = [mk("prompt", { content: "p" }), mk("thought", { content: "one" }), mk("reasoning", { thought: "two", cmd: "true" })];
    expect(projectMessages(steps, { selfName: SELF, elided: 0 })).toEqual([
      { role: "user", content: "p" },
      { role: "assistant", content: `one\n\ntwo\n\n${F}bash\ntrue\n${F}` },
      { role: "user", content: "[continue]" },
    ]);
  });

  it("does not change the steps it is given", () => {
    const { steps } = aTrajectory();
    const before = structuredClone(steps);
    projectMessages(steps, { selfName: SELF, elided: 2 });
    expect(steps).toEqual(before);
  });

  it("alternates, starts and ends with user, for many mixes of steps", () => {
    const kinds: ((mk: ReturnType<typeof stepMaker>) => Step)[] = [
      (mk) => mk("thought", { content: "t" }),
      (mk) => mk("reasoning", { thought: "r", cmd: "c" }),
      (mk) => mk("shell-output", { stdout: "o", stderr: "", exit: 0, exec_s: 0, timed_out: false }),
      (mk) => mk("message", { from: "you", to: SELF, content: "m" }),
      (mk) => mk("message", { from: SELF, to: "you", content: "m" }),
      (mk) => mk("shellm-run", {}),
      (mk) => mk("config", { pacing: DEFAULT_PACING, max_iterations: 1, model: "m", provider: "p" }),
      (mk) => mk("final", { content: "f" }),
      (mk) => mk("mystery", {}),
    ];
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let trial = 0; trial < 300; trial++) {
      const mk = stepMaker();
      const steps = Array.from({ length: rand(12) }, () => kinds[rand(kinds.length)]!(mk));
      const messages = projectMessages(steps, { selfName: SELF, elided: rand(3) });
      checkShape(messages);
      // Every step that is shown appears in the projection.
      const text = messages.map((m) => m.content).join("\n");
      for (const s of steps) if (s.type === "message") expect(text).toContain(s.step_id);
    }
  });
});
