// lib/mind/run/nested.ts: `shellm` from inside a run forks a child trajectory,
// runs it to FINAL with its own budget, and merges the answer back. The real
// Journal and shellmRun over the in-memory multi-trajectory log; the model is
// MockLanguageModelV4 through the real modelPort; the shell is a scripted
// fake that hands `shellm "<task>"` to the scope's port as the command does.
import { describe, expect, it } from "vitest";
import { Journal } from "../../../../lib/mind/log/journal";
import type { ShellScope } from "../../../../lib/mind/ports";
import { DEFAULT_RUN_LIMITS, shellmRun, type Nesting } from "../../../../lib/mind/run/run";
import { trajDirName } from "../../../../lib/trajectory/headlong";
import { formatTs } from "../../../../lib/trajectory/schema";
import { FakeClock } from "../../helpers/fake-clock";
import { FakeShell, finalResult } from "../../helpers/fake-shell";
import { MemoryStepLog, ROOT_TRAJ, sequentialIds } from "../../helpers/memory-log";
import { scriptedModel, type Turn } from "../../helpers/mock-model";
import { id } from "../../helpers/steps";

const F = "```";
const T0 = Date.parse("2025-01-01T00:00:00.000Z");
const TS = formatTs(T0);
const jid = (n: number) => id(n, "000000000000");
const bash = (reasoning: string, code: string) => `${reasoning}\n\n${F}bash\n${code}\n${F}`;

/** Run one thinker run whose model answers `turns` in call order (parent and children share one model). */
async function runWith(turns: Turn[], nesting: Nesting = { maxDepth: 2, childIterations: 3 }) {
  const log = new MemoryStepLog();
  const clock = new FakeClock(T0);
  const journal = new Journal(log, sequentialIds(), clock);
  const model = scriptedModel(turns);
  const beacons: number[] = [];
  const shell = new FakeShell(async (code, req, _call, scope: ShellScope) => {
    const m = /^shellm "(.*)"$/.exec(code.split("\n")[0] ?? "");
    if (m) {
      const r = await scope.shellm.run(m[1] ?? "", { signal: req.signal, beacon: () => beacons.push(scope.depth), shell: { env: req.env, cwd: req.cwd } });
      const final = /FINAL=(\S+)/.exec(code);
      const out = r.ok ? { stdout: `${r.answer}\n` } : { stderr: `${r.error}\n`, exit: 1 };
      return final ? finalResult(req, final[1] ?? "", out) : out;
    }
    // `alarm in <n>s <note>`, as the alarm command calls its port.
    const a = /^alarm in (\d+)s (.+)$/.exec(code.split("\n")[0] ?? "");
    if (a) {
      const r = await scope.alarms.set(clock.now() + Number(a[1]) * 1000, a[2] ?? "");
      return r.ok ? { stdout: `alarm ${r.alarm.id.slice(0, 8)} set\n` } : { stderr: `${r.error}\n`, exit: 1 };
    }
    const final = /FINAL=(\S+)/.exec(code);
    return final ? finalResult(req, final[1] ?? "") : { stdout: `ran: ${code}\n` };
  });
  const scope = await journal.openRun({ model: model.port.name, launched_by: "monolith" });
  const outcome = await shellmRun(
    { ports: { model: model.port, shell }, config: { selfName: "Reverie", limits: DEFAULT_RUN_LIMITS, nesting }, view: { instructions: "You are Reverie." }, depth: 0, signal: new AbortController().signal },
    scope,
    { prompt: "Wake: count the notes.", shell: { env: {}, cwd: "/workspace" } },
  );
  return { log, model, outcome, beacons, shell };
}

describe("shellm: a nested run", () => {
  it("sets its mind's alarms: in the root trajectory, through the outermost run", async () => {
    const t = await runWith([bash("Delegating.", 'shellm "remind me"'), bash("Setting it.", "alarm in 60s stretch"), bash("Set.", "FINAL=ok"), bash("Done.", "FINAL=done")]);
    const child = t.log.traj(jid(4));
    expect(child.steps.filter((s) => s.type === "alarm")).toEqual([]);
    const alarms = t.log.steps.filter((s) => s.type === "alarm");
    expect(alarms).toEqual([{ type: "alarm", step_id: alarms[0]!.step_id, ts: TS, run_id: jid(1), op: "set", alarm: alarms[0]!.step_id, at: formatTs(T0 + 60_000), note: "stretch" }]);
    expect(child.steps.find((s) => s.type === "shell-output")).toMatchObject({ stdout: `alarm ${alarms[0]!.step_id.slice(0, 8)} set\n`, exit: 0 });
  });

  it("forks a child, runs it to FINAL, merges the answer into the parent and prints it", async () => {
    const t = await runWith([
      bash("I will delegate the counting.", 'shellm "count the notes"'),
      bash("Counting.", "FINAL=3"),
      bash("The child said 3.", "FINAL=done"),
    ]);
    expect(t.outcome.end).toBe("final");
    // Parent: the fork and the merge stand between the reasoning and its output.
    const child = jid(4); // the child's id is drawn before the fork step that names it
    const childRef = trajDirName(child, "shellm count the notes");
    expect(t.log.steps.map((s) => s.type)).toEqual(["shellm-run", "prompt", "reasoning", "fork", "merge", "shell-output", "reasoning", "shell-output", "final"]);
    const run = { run_id: jid(1) };
    expect(t.log.steps[3]).toEqual({ type: "fork", step_id: jid(5), ts: TS, ...run, child, child_ref: childRef });
    expect(t.log.steps[4]).toEqual({ type: "merge", step_id: jid(11), ts: TS, ...run, content: "3", from_traj: child, from_step: jid(10), from_traj_ref: childRef });
    expect(t.log.steps[5]).toMatchObject({ type: "shell-output", stdout: "3\n", exit: 0 });

    // Child: its own trajectory, pointing back at the fork.
    const kid = t.log.traj(child);
    expect(kid.steps.map((s) => s.type)).toEqual(["trajectory", "shellm-run", "prompt", "reasoning", "shell-output", "final"]);
    expect(kid.steps[0]).toEqual({ type: "trajectory", step_id: child, ts: TS, name: "shellm count the notes", parent_traj: ROOT_TRAJ, parent_step: jid(5), parent_traj_ref: "..", source: "system" });
    expect(kid.steps[1]).toEqual({ type: "shellm-run", step_id: jid(6), ts: TS, model: "mock/scripted", trigger_step: jid(5), launched_by: "shellm" });
    expect(kid.steps[2]).toEqual({
      type: "prompt",
      step_id: jid(7),
      ts: TS,
      run_id: jid(6),
      trigger_step: jid(5),
      content: `You are a nested run at depth 1 of at most 2, forked from trajectory ${ROOT_TRAJ.slice(0, 8)} to do one task. Your parent waits for your answer: set FINAL to it within 3 blocks.\n\nTask: count the notes\n\nWhy you were forked (the parent's reasoning):\nI will delegate the counting.`,
    });
    expect(kid.steps[5]).toEqual({ type: "final", step_id: jid(10), ts: TS, run_id: jid(6), trigger_step: jid(5), content: "3" });
    // The parent's shell waited on the child: it was told the child was alive.
    expect(t.beacons.length).toBeGreaterThan(0);
  });

  it("the child sees its ancestors' recent steps; the parent never sees the child's", async () => {
    const t = await runWith([
      bash("I will delegate the counting.", 'shellm "count the notes"'),
      bash("Counting in the child, secretly.", "echo CHILD-ONLY\nFINAL=3"),
      bash("Done.", "FINAL=done"),
    ]);
    const [parentFirst, childCall, parentSecond] = t.model.calls();
    // The child's context opens with its background: the parent's steps up to the fork.
    const background = childCall?.find((m) => m.text.startsWith("[Background:"));
    expect(background?.text).toContain("Wake: count the notes.");
    expect(background?.text).toContain("I will delegate the counting.");
    expect(background?.text).toContain("[fork]");
    // The child's own prompt follows it.
    expect(childCall?.some((m) => m.text.includes("Task: count the notes"))).toBe(true);
    // Back in the parent: the merge and the answer, none of the child's own steps.
    const parentText = JSON.stringify(parentSecond);
    expect(parentText).toContain("[merge] 3");
    expect(parentText).not.toContain("secretly");
    expect(parentText).not.toContain("CHILD-ONLY");
    expect(parentText).not.toContain("nested run at depth");
    expect(parentFirst?.length).toBeGreaterThan(0);
  });

  it("respects the depth limit: a run at the limit cannot fork again, and says why", async () => {
    const t = await runWith(
      [
        bash("Delegate.", 'shellm "outer task"'),
        bash("Delegate again.", 'shellm "inner task"'),
        bash("I could not nest; answer myself.", "FINAL=inner-done-here"),
        bash("Done.", "FINAL=ok"),
      ],
      { maxDepth: 1, childIterations: 3 },
    );
    const fork = t.log.steps.find((s) => s.type === "fork") as { child: string };
    const kid = t.log.traj(fork.child);
    // The child tried to fork: no fork step, an error output saying why.
    expect(kid.steps.map((s) => s.type)).toEqual(["trajectory", "shellm-run", "prompt", "reasoning", "shell-output", "reasoning", "shell-output", "final"]);
    expect(kid.steps[4]).toMatchObject({ type: "shell-output", stderr: "shellm: the nesting limit is 1 (this run is at depth 1); do this part in the current run\n", exit: 1 });
    expect(t.log.all.size).toBe(2);
    expect(t.log.steps.find((s) => s.type === "merge")).toMatchObject({ content: "inner-done-here" });
  });

  it("depth 0 allows no nesting at all", async () => {
    const t = await runWith([bash("Delegate.", 'shellm "task"'), bash("Fine.", "FINAL=ok")], { maxDepth: 0, childIterations: 3 });
    expect(t.log.all.size).toBe(1);
    expect(t.log.steps[3]).toMatchObject({ type: "shell-output", stderr: "shellm: the nesting limit is 0 (this run is at depth 0); do this part in the current run\n", exit: 1 });
  });

  it("a child out of iterations is merged as a failure, and the parent goes on", async () => {
    const t = await runWith([bash("Delegate.", 'shellm "endless"'), bash("Still going.", "echo more"), bash("Still going.", "echo more"), bash("Back.", "FINAL=parent-ok")], {
      maxDepth: 2,
      childIterations: 2,
    });
    const merge = t.log.steps.find((s) => s.type === "merge") as { content: string; from_step: string; from_traj: string };
    expect(merge.content).toBe("[the nested run ended without FINAL: error]");
    const kid = t.log.traj(merge.from_traj);
    expect(kid.steps.at(-1)).toMatchObject({ type: "error", reason: "iterations", content: "No FINAL after 2 iterations; the run was ended.", step_id: merge.from_step });
    expect(t.log.steps.find((s) => s.type === "shell-output")).toMatchObject({ stderr: "[the nested run ended without FINAL: error]\n", exit: 1 });
    expect(t.outcome.end).toBe("final");
  });
});
