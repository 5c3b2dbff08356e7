// An idle (scheduled) wake's lean first look, through the real InnerLife and
// shellmRun: its first call has the first look's instructions and budget; if
// the mind acts, the next call of the same run has the full instructions and
// budget; the number of calls does not change. Message and start-up wakes are
// as before. The model is MockLanguageModelV4 through the real modelPort; the
// shell is a scripted fake that understands `FINAL=…`.
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_BUDGET } from "../../../../lib/context/build";
import { LEAN_BUDGET } from "../../../../lib/context/lean";
import type { SeenCall } from "../../../../lib/context/replay";
import { Journal } from "../../../../lib/mind/log/journal";
import { DEFAULT_PACING } from "../../../../lib/mind/pacing/pacing";
import { instructionsFor, type WakeTask } from "../../../../lib/mind/run/prompt";
import { DEFAULT_RUN_LIMITS } from "../../../../lib/mind/run/run";
import { idleFirstLook } from "../../../../lib/mind/thinkers/first-look";
import { InnerLife } from "../../../../lib/mind/thinkers/inner-life";
import { commandList } from "../../../../lib/shell/commands/registry";
import { formatTs, type Step } from "../../../../lib/trajectory/schema";
import { FakeClock, until } from "../../helpers/fake-clock";
import { FakeShell, finalResult } from "../../helpers/fake-shell";
import { MemoryStepLog, sequentialIds } from "../../helpers/memory-log";
import { scriptedModel, type Turn } from "../../helpers/mock-model";
import { id } from "../../helpers/steps";
import { silent } from "@/lib/mind/events";

const F = "```";
const SELF = "Reverie";
const T0 = Date.parse("2025-01-01T12:00:00.000Z");
const PERSONA = "I tend a garden of notes and answer the people who write to me.";
const FULL = instructionsFor({ name: SELF, persona: PERSONA }, { commands: commandList(), skills: [{ name: "tidy", description: "How I tidy my notes." }] });
const LEAN = idleFirstLook(FULL)?.instructions as string;
const ACT = `Let me look at my notes.\n\n${F}bash\nls notes\n${F}`;
const IDLE = `Nothing needs doing.\n\n${F}bash\nFINAL=idle\n${F}`;

let running: InnerLife | null = null;
afterEach(async () => {
  if (running) await running.stop();
  running = null;
});

/** One wake of `task` with `turns` (after `offered` came), until the mind waits again: the system prompt of each call and what each call's record says. */
async function oneWake(task: WakeTask, turns: Turn[], initial: Step[] = [], offered: Step[] = []) {
  const log = new MemoryStepLog(initial);
  const clock = new FakeClock(T0);
  const journal = new Journal(log, sequentialIds(), clock);
  const model = scriptedModel(turns);
  const seen: SeenCall[] = [];
  const shell = new FakeShell(async (code, req, _call, scope) => {
    // `shellm "<task>"` hands the task to the scope's port, as the command does.
    const nested = /^shellm "(.*)"$/m.exec(code);
    if (nested) {
      const r = await scope.shellm.run(nested[1] ?? "", { signal: req.signal, beacon: () => undefined, shell: { env: req.env, cwd: req.cwd } });
      return { stdout: r.ok ? `${r.answer}\n` : `${r.error}\n` };
    }
    const final = /^FINAL=(?:"([^"]*)"|(\S*))$/m.exec(code);
    return final ? finalResult(req, final[1] ?? final[2] ?? "") : { stdout: "notes/garden.md\n" };
  });
  const life = new InnerLife({
    journal,
    model: model.port,
    shell,
    clock,
    selfName: SELF,
    instructions: async () => FULL,
    pacing: DEFAULT_PACING,
    limits: DEFAULT_RUN_LIMITS,
    shellState: { env: {}, cwd: "/workspace" },
    emit: silent,
    contexts: { record: (call) => seen.push(call) },
  });
  running = life;
  // Offered while it waited (the dispatcher's steps for it): the wake is the one they cut short.
  for (const step of offered) life.offer(step);
  void life.start(task);
  await until(() => clock.requested.length >= 1 && clock.sleeping.length === 1, "the mind to wait");
  // The first wake's calls only (a wake with no pause after it is followed by the next at once): its run's, and its nested runs' before its last.
  const last = seen.findLastIndex((c) => c.run_id === seen[0]?.run_id);
  const first = seen.slice(0, last + 1);
  const systems = model.mock.doStreamCalls.slice(0, first.length).map((c) => c.prompt.filter((m) => m.role === "system").map((m) => m.content as string).join(""));
  return { systems, seen: first, log };
}

const message = (content: string): Step => ({ type: "message", step_id: id(1, "cccccccccccc"), ts: formatTs(T0), from: "ada", to: SELF, content });

describe("an idle wake's first look", () => {
  it("is made from the standing instructions, and is much smaller", () => {
    expect(LEAN).toBeTruthy();
    expect(LEAN.length).toBeLessThan(FULL.length / 2);
    expect(idleFirstLook("You are a test mind.")).toBeUndefined();
  });

  it("a scheduled wake that acts: the first call has the first look, the second the full instructions and budget; two calls, as before", async () => {
    const { systems, seen } = await oneWake({ reason: "scheduled", level: 2 }, [ACT, IDLE]);
    expect(systems).toEqual([LEAN, FULL]);
    expect(seen.map((c) => [c.iteration, c.budget])).toEqual([
      [1, LEAN_BUDGET],
      [2, DEFAULT_BUDGET],
    ]);
    // "What the model saw" records each call's own instructions, in their parts.
    expect(seen[0]?.system.map((s) => s.kind)).toEqual(["persona", "first-look", "commands"]);
    expect(seen[0]?.system.map((s) => s.text).join("")).toBe(LEAN);
    expect(seen[1]?.system.map((s) => s.kind)).toEqual(["persona", "how-to-act", "commands", "people", "skills"]);
    expect(seen[1]?.system.map((s) => s.text).join("")).toBe(FULL);
    expect(seen[0]?.tokens).toBeLessThanOrEqual(LEAN_BUDGET);
  });

  it("a scheduled wake with nothing to do: one call, the first look only", async () => {
    const { systems, seen, log } = await oneWake({ reason: "scheduled", level: 0 }, [IDLE]);
    expect(systems).toEqual([LEAN]);
    expect(seen.map((c) => c.budget)).toEqual([LEAN_BUDGET]);
    expect(log.ofType("idle").length).toBeGreaterThanOrEqual(1);
  });

  it("a nested shellm from the first look's block is its task's run: full instructions and budget from its first call", async () => {
    const DELEGATE = `Let me have a helper count the notes.\n\n${F}bash\nshellm "count the notes"\n${F}`;
    const CHILD = `Counting.\n\n${F}bash\nFINAL=3\n${F}`;
    const { systems, seen } = await oneWake({ reason: "scheduled", level: 1 }, [DELEGATE, CHILD, IDLE]);
    const parent = seen[0]?.run_id;
    expect(seen.map((c) => [c.run_id === parent ? "parent" : "child", c.iteration, c.budget])).toEqual([
      ["parent", 1, LEAN_BUDGET],
      ["child", 1, DEFAULT_BUDGET],
      ["parent", 2, DEFAULT_BUDGET],
    ]);
    expect(systems).toEqual([LEAN, FULL, FULL]);
  });

  it("a message wake is unchanged: full instructions and the whole budget from its first call", async () => {
    const m = message("How is the garden?");
    const { systems, seen } = await oneWake({ reason: "message", messages: [m as Extract<Step, { type: "message" }>] }, [ACT, IDLE], [m]);
    expect(systems).toEqual([FULL, FULL]);
    expect(seen.map((c) => c.budget)).toEqual([DEFAULT_BUDGET, DEFAULT_BUDGET]);
    expect(seen[0]?.system.map((s) => s.kind)).not.toContain("first-look");
  });

  it("a scheduled wake an alert or a person's change to its memory cut short is not idle: full instructions and the whole budget from its first call", async () => {
    const news: Step[] = [
      { type: "observation", step_id: id(2, "cccccccccccc"), ts: formatTs(T0), source: "alert", content: "Alert (error) from the alert link \"CI\": build 42 failed" },
      { type: "observation", step_id: id(3, "cccccccccccc"), ts: formatTs(T0), source: "curation", content: "Ada (owner) edited your memory 1a2b3c4d. It said: x\nIt now says: y" },
    ];
    for (const step of news) {
      const { systems, seen } = await oneWake({ reason: "scheduled", level: 1 }, [IDLE], [step], [step]);
      expect(systems).toEqual([FULL]);
      expect(seen.map((c) => c.budget)).toEqual([DEFAULT_BUDGET]);
      await running?.stop();
      running = null;
    }
  });

  it("a start-up wake and a retry are unchanged", async () => {
    for (const task of [{ reason: "start" }, { reason: "retry", failures: 1 }] as WakeTask[]) {
      const { systems, seen } = await oneWake(task, [IDLE]);
      expect(systems).toEqual([FULL]);
      expect(seen.map((c) => c.budget)).toEqual([DEFAULT_BUDGET]);
      await running?.stop();
      running = null;
    }
  });
});
