// lib/mind/budget/budget.ts: a mind's spend caps, checked before every model call of
// every thinker. The mind runs under a fake clock; its models are
// MockLanguageModelV4 through the REAL modelPort, priced, so each call's usage
// (and cost) lands on its step; the spend port sums those steps, as the
// browser's usage table does.
import { afterEach, describe, expect, it } from "vitest";
import { modelPort } from "../../../../lib/llm/complete";
import { budgetedModel, budgetProblems, DEFAULT_BUDGET, pauseText, periods, reachedCap, spendTally, type SpendPort } from "../../../../lib/mind/budget/budget";
import { Journal } from "../../../../lib/mind/log/journal";
import { Mind } from "../../../../lib/mind/mind";
import { DEFAULT_PACING } from "../../../../lib/mind/pacing/pacing";
import { DEFAULT_RUN_LIMITS, shellmRun } from "../../../../lib/mind/run/run";
import { RESPONDER } from "../../../../lib/mind/thinkers/responder";
import type { MindStatus } from "../../../../lib/protocol";
import { NewMindInput } from "../../../../lib/store/minds/minds";
import { formatTs, type BudgetConfig, type Step } from "../../../../lib/trajectory/schema";
import { FakeClock, settle, until } from "../../helpers/fake-clock";
import { FakeShell, finalResult } from "../../helpers/fake-shell";
import { MemoryStepLog, sequentialIds } from "../../helpers/memory-log";
import { scriptedModel } from "../../helpers/mock-model";
import { on } from "@/lib/mind/events";

const F = "```";
const SELF = "Reverie";
// 12:30 UTC: the hour resets at 13:00, the day at midnight.
const T0 = Date.parse("2025-01-01T12:30:00.000Z");
const NEXT_HOUR = Date.parse("2025-01-01T13:00:00.000Z");
const WORK = `Working.\n\n${F}bash\necho step\n${F}`;
const IDLE = `Nothing to do.\n\n${F}bash\nFINAL=idle\n${F}`;
// USD 1000 per million tokens: a scripted call (10 in, 5 out) costs 0.015.
const PRICE = { input: 1000, output: 1000 };

/** What the log's steps cost from `since` on: the usage table's sum, read off the steps. */
function logSpend(log: MemoryStepLog): SpendPort {
  return {
    async spentSince(since) {
      return log.steps.reduce((sum, s) => {
        const usd = (s as { usage?: { usd?: number } }).usage?.usd ?? 0;
        return Date.parse(s.ts) >= since ? sum + usd : sum;
      }, 0);
    },
  };
}

let running: Mind | null = null;
afterEach(async () => {
  await running?.stop();
  running = null;
});

function setup(caps: BudgetConfig, turns: string[]) {
  const store = new MemoryStepLog();
  const clock = new FakeClock(T0);
  const journal = new Journal(store, sequentialIds(), clock);
  const inner = scriptedModel(turns, "mock/inner");
  const responder = scriptedModel(["Hello."], "mock/responder");
  const statuses: MindStatus[] = [];
  const shell = new FakeShell(async (code, req) => (code.includes("FINAL=idle") ? finalResult(req, "idle") : { stdout: "step\n" }));
  const mind = new Mind({
    journal,
    model: modelPort(inner.mock, "mock/inner", { price: PRICE }),
    responderModel: modelPort(responder.mock, "mock/responder", { price: PRICE }),
    budget: { caps, spend: logSpend(store) },
    persona: "Calm.",
    shell,
    clock,
    selfName: SELF,
    instructions: "You are Reverie.",
    pacing: DEFAULT_PACING,
    limits: DEFAULT_RUN_LIMITS,
    shellState: { env: {}, cwd: "/workspace" },
    emit: on("status", ({ status }) => statuses.push(status)),
  });
  running = mind;
  return { store, clock, inner, responder, statuses, mind, paused: () => statuses.filter((s) => s.state === "paused") };
}

describe("caps are required", () => {
  it("a missing, zero, negative or non-numeric cap is refused with a message that says which", () => {
    expect(budgetProblems(DEFAULT_BUDGET)).toEqual([]);
    expect(budgetProblems(undefined)).toEqual([
      "The hourly spend cap is missing: give one in USD (e.g. 1).",
      "The daily spend cap is missing: give one in USD (e.g. 5).",
    ]);
    expect(budgetProblems({ hour_usd: 0, day_usd: -2 })).toEqual([
      "The hourly spend cap must be a positive number of USD (it is 0).",
      "The daily spend cap must be a positive number of USD (it is -2).",
    ]);
    expect(budgetProblems({ hour_usd: Number.NaN, day_usd: Number.POSITIVE_INFINITY })).toEqual([
      "The hourly spend cap is missing: give one in USD (e.g. 1).",
      "The daily spend cap must be a positive number of USD (it is Infinity).",
    ]);
  });

  it("a new mind with a non-positive cap is not created", () => {
    const input = { name: "Ada", persona: "", model: { provider: "openai" as const, model: "gpt-4o-mini", apiKey: "k" } };
    expect(NewMindInput.safeParse({ ...input, budget: { hour_usd: 0, day_usd: 5 } }).error?.issues.map((i) => i.message)).toEqual(["the hourly cap must be more than 0 USD"]);
    expect(NewMindInput.parse({ ...input, budget: { hour_usd: 2, day_usd: 10 } }).budget).toEqual({ hour_usd: 2, day_usd: 10 });
  });
});

describe("periods and caps", () => {
  it("hours and days are UTC calendar periods", () => {
    expect(periods(T0)).toEqual({
      hourStart: Date.parse("2025-01-01T12:00:00.000Z"),
      hourEnd: NEXT_HOUR,
      dayStart: Date.parse("2025-01-01T00:00:00.000Z"),
      dayEnd: Date.parse("2025-01-02T00:00:00.000Z"),
    });
  });

  it("the daily cap is reported before the hourly one; under both, no cap", async () => {
    const spend = (hour: number, day: number): SpendPort => ({ spentSince: async (since) => (since === periods(T0).hourStart ? hour : day) });
    const caps = { hour_usd: 1, day_usd: 5 };
    expect(await reachedCap(caps, spend(0.5, 4), T0)).toBeNull();
    expect(await reachedCap(caps, spend(1, 4), T0)).toEqual({ scope: "mind", cap: "hour", limitUsd: 1, spentUsd: 1, resetsAt: NEXT_HOUR });
    expect(await reachedCap(caps, spend(1, 5.5), T0)).toEqual({ scope: "mind", cap: "day", limitUsd: 5, spentUsd: 5.5, resetsAt: Date.parse("2025-01-02T00:00:00.000Z") });
  });

  it("a call at a cap is not made; with the cap raised the same call goes through", async () => {
    const model = scriptedModel(["hi"]);
    const spent: SpendPort = { spentSince: async () => 0.02 };
    const clock = { now: () => T0 };
    const req = { instructions: "x", messages: [{ role: "user" as const, content: "hi" }], signal: new AbortController().signal };
    const capped = await budgetedModel(model.port, { hour_usd: 0.01, day_usd: 5 }, spent, clock).complete(req);
    const pause = { scope: "mind", cap: "hour", limitUsd: 0.01, spentUsd: 0.02, resetsAt: NEXT_HOUR } as const;
    expect(capped).toEqual({ ok: false, aborted: false, paused: pause, error: pauseText(pause) });
    expect(pauseText(pause)).toBe("The mind's hourly spend cap of $0.01 is reached ($0.02 spent): no model calls until it resets at 2025-01-01T13:00:00.000Z, or its human raises the cap.");
    expect(model.mock.doStreamCalls).toHaveLength(0);
    const raised = await budgetedModel(model.port, { hour_usd: 1, day_usd: 5 }, spent, clock).complete(req);
    expect(raised).toMatchObject({ ok: true, text: "hi" });
    expect(model.mock.doStreamCalls).toHaveLength(1);
  });
});

describe("the spend tally", () => {
  it("reads the store once (a day back), then counts each call as it is made, by its time", async () => {
    let now = T0;
    const clock = { now: () => now };
    const loads: number[] = [];
    const tally = spendTally(async (since) => {
      loads.push(since);
      return [
        { ts: T0 - 7_200_000, usd: 0.5 }, // two hours ago: this day, not this hour
        { ts: T0 - 60_000, usd: 0.25 },
      ];
    }, clock);
    const hour = periods(T0).hourStart;
    const day = periods(T0).dayStart;
    expect(await tally.spentSince(hour)).toBeCloseTo(0.25, 10);
    expect(await tally.spentSince(day)).toBeCloseTo(0.75, 10);
    expect(loads).toEqual([T0 - 86_400_000]);
    // A call through the capped model adds its cost, with no new read of the store.
    const model = scriptedModel(["hi"]);
    const priced = { ...model.port, complete: async (r: Parameters<typeof model.port.complete>[0]) => ({ ...(await model.port.complete(r)), usage: { input_tokens: 1, output_tokens: 1, usd: 0.1 } }) };
    now = T0 + 1000;
    await budgetedModel(priced, { hour_usd: 1, day_usd: 5 }, tally, clock).complete({ instructions: "x", messages: [{ role: "user", content: "hi" }], signal: new AbortController().signal });
    expect(await tally.spentSince(hour)).toBeCloseTo(0.35, 10);
    expect(await tally.spentSince(T0 + 2000)).toBe(0);
    expect(loads).toHaveLength(1);
  });
});

describe("a mind at its cap", () => {
  it("pauses visibly, keeps every step, makes no model call, and resumes when the hour rolls over", async () => {
    // The first call costs 0.015, over the hourly cap of 0.01: the second call of the run is refused.
    const t = setup({ hour_usd: 0.01, day_usd: 5 }, [WORK, IDLE]);
    void t.mind.start();
    await until(() => t.paused().length === 1, "the pause");
    expect(t.inner.mock.doStreamCalls).toHaveLength(1);
    expect(t.paused()[0]).toEqual({ state: "paused", reason: "budget", scope: "mind", cap: "hour", limitUsd: 0.01, spentUsd: 0.015, resetsAt: NEXT_HOUR });
    const run = t.store.ofType("shellm-run")[0]!.step_id;
    const inRun = t.store.steps.filter((s) => s.run_id === run);
    expect(inRun.map((s) => s.type)).toEqual(["prompt", "reasoning", "shell-output", "error"]);
    expect(inRun[1]).toMatchObject({ usage: { input_tokens: 10, output_tokens: 5, usd: 0.015, model: "mock/inner" } });
    const pause = { scope: "mind" as const, cap: "hour", limitUsd: 0.01, spentUsd: 0.015, resetsAt: NEXT_HOUR };
    expect(inRun[3]).toEqual({ type: "error", step_id: expect.any(String), ts: formatTs(T0), run_id: run, trigger_step: expect.any(String), reason: "budget", content: pauseText(pause) });
    // It sleeps until the hour is over, and makes no call meanwhile.
    expect(t.clock.sleeping).toEqual([NEXT_HOUR - T0]);
    t.clock.advance(NEXT_HOUR - T0 - 1000);
    await settle();
    expect(t.inner.mock.doStreamCalls).toHaveLength(1);

    t.clock.advance(1000);
    await until(() => t.inner.mock.doStreamCalls.length === 2, "the call after the rollover");
    // That call (0.015 in the new hour) reaches the cap again: one idle wake, then the next pause, until 14:00.
    await until(() => t.paused().length === 2, "the pause in the new hour");
    expect(t.store.ofType("idle")).toHaveLength(1);
    expect(t.paused()[1]).toMatchObject({ cap: "hour", spentUsd: 0.015, resetsAt: NEXT_HOUR + 3_600_000 });
    expect(t.inner.mock.doStreamCalls).toHaveLength(2);
    // Nothing was rewritten or dropped: an error step for each pause, the steps around them kept.
    expect(t.store.ofType("error").map((e) => (e as Step & { reason: string }).reason)).toEqual(["budget", "budget"]);
    expect(t.store.ofType("wake").map((w) => (w as Step & { reason: string }).reason)).toEqual(["start", "scheduled", "scheduled"]);
  });

  it("the responder makes no call at the cap either: it records that it could not answer, and why", async () => {
    const t = setup({ hour_usd: 0.01, day_usd: 0.01 }, [WORK]);
    void t.mind.start();
    await until(() => t.paused().length === 1, "the pause");
    const message = { type: "message", step_id: "0000000c-0000-4000-8000-cccccccccccc", ts: formatTs(T0), from: "ada", to: SELF, content: "Hello?" } as const;
    await t.store.append(message);
    t.mind.notify(message);
    await until(() => t.store.steps.some((s) => s.type === "observation" && s.source === RESPONDER), "the responder's decision");
    expect(t.responder.mock.doStreamCalls).toHaveLength(0);
    const decision = t.store.steps.find((s) => s.type === "observation" && s.source === RESPONDER);
    expect(decision).toMatchObject({ decision: "reply-failed", content: expect.stringContaining("Could not answer ada: The mind's daily spend cap of $0.01 is reached") });
  });
});

describe("a nested shellm run at the cap", () => {
  it("makes no call either: the child ends with the budget error, the parent's merge says so", async () => {
    const log = new MemoryStepLog();
    const clock = new FakeClock(T0);
    const journal = new Journal(log, sequentialIds(), clock);
    const model = scriptedModel([`Delegating.\n\n${F}bash\nshellm "count the notes"\n${F}`, IDLE]);
    const shell = new FakeShell(async (code, req, _call, scope) => {
      const r = await scope.shellm.run("count the notes", { signal: req.signal, beacon: () => {}, shell: { env: req.env, cwd: req.cwd } });
      return r.ok ? { stdout: r.answer } : { stderr: `${r.error}\n`, exit: 1 };
    });
    // The parent's one call (0.015) reaches the cap of 0.01: the child's first call is refused.
    const capped = budgetedModel(modelPort(model.mock, "mock/inner", { price: PRICE }), { hour_usd: 0.01, day_usd: 5 }, logSpend(log), clock);
    const scope = await journal.openRun({ model: capped.name, launched_by: "monolith" });
    const outcome = await shellmRun(
      { ports: { model: capped, shell }, config: { selfName: SELF, limits: DEFAULT_RUN_LIMITS, nesting: { maxDepth: 2, childIterations: 3 } }, view: { instructions: "You are Reverie." }, depth: 0, signal: new AbortController().signal },
      scope,
      { prompt: "Wake.", shell: { env: {}, cwd: "/workspace" } },
    );
    expect(model.mock.doStreamCalls).toHaveLength(1);
    const child = log.traj((log.ofType("fork")[0] as Step & { child: string }).child);
    expect(child.steps.map((s) => [s.type, (s as { reason?: string }).reason])).toEqual([["trajectory", undefined], ["shellm-run", undefined], ["prompt", undefined], ["error", "budget"]]);
    expect(log.ofType("merge")[0]).toMatchObject({ content: expect.stringContaining("[the nested run ended without FINAL: budget (The mind's hourly spend cap of $0.01 is reached") });
    // The parent's next call is refused too: the run ends paused.
    expect(outcome).toMatchObject({ end: "budget", paused: { scope: "mind", cap: "hour", resetsAt: NEXT_HOUR } });
  });
});
