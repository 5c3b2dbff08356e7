// lib/mind/summaries/summarizer.ts over the real store (indexedDbMindState on
// fake-indexeddb, written through the mind's writer), the real Journal and the model through the REAL modelPort around
// MockLanguageModelV4: complete blocks are summarized once and sealed, a
// failure falls back and is logged and retried, summaries wait for the
// thinkers, and a run goes on while a summary call hangs, seeing the sealed past.
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { buildContext } from "@/lib/context/build";
import { SealedPast } from "@/lib/context/sealed-past";
import { DEFAULT_TIERS } from "@/lib/context/staircase";
import { TokenCounter } from "@/lib/context/tokens";
import { Journal } from "@/lib/mind/log/journal";
import { DEFAULT_NESTING, DEFAULT_RUN_LIMITS, shellmRun } from "@/lib/mind/run/run";
import { MindWriter, TrajectoryLog, WINDOW } from "@/lib/mind/log/mind-log";
import { SUMMARY_FAILED, Summarizer } from "@/lib/mind/summaries/summarizer";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import { appendStep, tailSteps } from "@/lib/store/steps/steps";
import { readTiers } from "@/lib/store/derived/tiers";
import { openTestDb } from "../../helpers/db";
import { FakeClock, settle, until } from "../../helpers/fake-clock";
import { FakeShell, finalResult } from "../../helpers/fake-shell";
import { sequentialIds } from "../../helpers/memory-log";
import { promptText, scriptedModel, type Turn } from "../../helpers/mock-model";
import { id, stepMaker } from "../../helpers/steps";

const MIND = id(1, "dddddddddddd");
const T0 = Date.parse("2026-01-01T00:00:00.000Z");

/** The scripted summary: first person, citing the first step the prompt names. */
function summaryOf(options: LanguageModelV4CallOptions): string {
  const text = promptText(options.prompt).filter((m) => m.role === "user").map((m) => m.text).join("\n");
  const first = /\[([0-9a-f]{8})\]/.exec(text)?.[1] ?? "none";
  const tier = text.includes("consecutive summaries") ? "a longer stretch" : "a few steps";
  return `I spent ${tier} thinking; it began at [${first}] and I kept my reasons.`;
}

const hang = (options: LanguageModelV4CallOptions): Promise<Turn> =>
  new Promise((_, reject) => options.abortSignal?.addEventListener("abort", () => reject(options.abortSignal?.reason), { once: true }));

async function setup(opts: { steps: number; script: (n: number, options: LanguageModelV4CallOptions) => Turn | Promise<Turn> }) {
  const db = await openTestDb("summarizer");
  const step = stepMaker();
  await appendStep(db, MIND, step("trajectory", { name: "wren" }));
  for (let i = 0; i < opts.steps; i++) await appendStep(db, MIND, i % 5 === 0 ? step("wake", { reason: "scheduled", level: 0, delay_s: 0 }) : step("thought", { content: `thought ${i}: the tide table parser reads the header row, then the times, then the heights of the water` }));
  const clock = new FakeClock(T0);
  const state = indexedDbMindState(db, MIND);
  const writer = new MindWriter(state);
  const log = new TrajectoryLog(writer, MIND);
  const journal = new Journal(log, sequentialIds("eeeeeeeeeeee"), clock);
  const model = scriptedModel(opts.script, "mock/summaries");
  const make = (past = new SealedPast(DEFAULT_TIERS)) => ({
    past,
    summarizer: new Summarizer({ past, store: state.tiers(MIND), model: model.port, clock, journal: journal.forThinker(), selfName: "wren", persona: "I keep a garden log.", retryMs: 30_000 }),
  });
  return { db, clock, writer, log, journal, model, make, step };
}

describe("the live summarizer", () => {
  it("works a backlog off coarsest first: a parent is sealed as soon as its ten children are, before the next tier-0 block", async () => {
    // 250 raw steps, 200 in the stream: twenty tier-0 blocks and two tier-1 blocks, all complete at once.
    const env = await setup({ steps: 250, script: (_n, o) => summaryOf(o) });
    const { past, summarizer } = env.make();
    void summarizer.start();
    await until(() => past.sealedCount === 22, "twenty-two blocks sealed");
    await summarizer.stop();
    // The calls in the order they were made: a parent's call summarizes its children's summaries.
    const tiers = env.model.calls().map((c) => (c.map((m) => m.text).join("\n").includes("consecutive summaries") ? 1 : 0));
    const ten = (tier: number) => Array.from({ length: 10 }, () => tier);
    expect(tiers).toEqual([...ten(0), 1, ...ten(0), 1]);
  });

  it("seals every complete block once, children before parents, and skips sealed blocks after a restart", async () => {
    // 125 raw steps, 100 in the stream (every fifth is a wake): ten tier-0 blocks and one tier-1 block.
    const env = await setup({ steps: 125, script: (_n, o) => summaryOf(o) });
    const first = env.make();
    void first.summarizer.start();
    await until(() => first.past.sealedCount === 11, "eleven blocks sealed");
    await first.summarizer.stop();
    expect(env.model.calls()).toHaveLength(11);
    const { tiers } = await readTiers(env.db, MIND, MIND);
    expect(tiers.map((t) => `${t.tier}:${t.index}`)).toEqual([...Array.from({ length: 10 }, (_, i) => `0:${i}`), "1:0"]);
    const stream = first.past.ids(0, 100);
    expect(tiers[0]).toEqual({ tier: 0, index: 0, content: `I spent a few steps thinking; it began at [${stream[0]?.slice(0, 8)}] and I kept my reasons.`, cites: [stream[0]], first_step: stream[0], last_step: stream[9], steps: 10, first_seq: 3, last_seq: 14 });
    // The tier-1 call saw its children's summaries, not the steps; it cites what they cite.
    const parentCall = env.model.calls()[10]?.map((m) => m.text).join("\n") ?? "";
    expect(parentCall).toContain("Summarize these 10 consecutive summaries of mine");
    expect(parentCall).toContain("You are wren, a persistent mind, writing your own memory");
    // Seqs as the store numbered them: the header is 1, raw step i is i + 2 (a block's rows are read, and a starting mind placed, by them).
    expect(tiers[10]).toMatchObject({ tier: 1, index: 0, cites: [stream[0]], first_step: stream[0], last_step: stream[99], steps: 100, first_seq: 3, last_seq: 126 });

    // A new summarizer over the same store reads what is sealed and makes no call.
    const again = env.make();
    void again.summarizer.start();
    await until(() => again.past.loaded, "the second one loaded");
    await settle(300);
    await again.summarizer.stop();
    expect(again.past.sealedCount).toBe(11);
    expect(env.model.calls()).toHaveLength(11);
    expect((await readTiers(env.db, MIND, MIND)).tiers).toEqual(tiers);
  });

  it("a failed summary: the block is elided with the reason, an error step says so, and it is retried after the backoff", async () => {
    const env = await setup({ steps: 15, script: (n, o) => (n === 0 ? { throws: new Error("the summary server is down") } : summaryOf(o)) });
    const { past, summarizer } = env.make();
    // The error step is appended after the block is marked missing: wait for it as the mind's own log keeps it (its write goes behind).
    let logged = 0;
    env.journal.onAppend((s) => void (s.type === "error" && logged++));
    void summarizer.start();
    await until(() => env.model.calls().length === 1 && past.missing({ tier: 0, index: 0 }) !== undefined && logged === 1, "the first attempt failed, and said so");
    expect(past.isSealed({ tier: 0, index: 0 })).toBe(false);
    const errors = (await env.log.tail(50)).filter((s) => s.type === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ reason: SUMMARY_FAILED, source: "summarizer" });
    expect((errors[0] as { content: string }).content).toMatch(/^I could not summarize steps [0-9a-f]{8}…[0-9a-f]{8} \(tier 0, block 0\): the summary server is down\. I will try again in 30 s/);
    // Meanwhile the context elides the block and gives the reason.
    const ctx = buildContext(past.source(await env.log.tail(50)), { selfName: "wren", budget: 16_000, tiers: DEFAULT_TIERS, summary: past.summary, missing: past.missing, counter: new TokenCounter(), minVerbatim: 2, maxVerbatim: 2 });
    const elided = ctx.parts.find((p) => p.kind === "elided");
    expect(elided).toMatchObject({ kind: "elided", tier: 0, index: 0, reason: "its summary failed (the summary server is down); I will try again" });
    expect(elided?.step_ids).toEqual(past.ids(0, 10));
    // Not before the backoff; then once more, and sealed.
    env.clock.advance(29_000);
    await settle(300);
    expect(env.model.calls()).toHaveLength(1);
    env.clock.advance(1_000);
    await until(() => past.isSealed({ tier: 0, index: 0 }), "sealed on the retry");
    expect(past.missing({ tier: 0, index: 0 })).toBeUndefined();
    await summarizer.stop();
    expect(env.model.calls()).toHaveLength(2);
  });

  it("a summary stored already by the mind's other home that does not fit the stream here: one call, then the backoff, not a loop of calls", async () => {
    const env = await setup({ steps: 25, script: (_n, o) => summaryOf(o) });
    // The other home sealed block 0 of tier 0 over steps this browser does not have in that place.
    const stored = { tier: 0, index: 0, content: "I did other things.", cites: [], first_step: id(900, "ffffffffffff"), last_step: id(901, "ffffffffffff"), steps: 10 };
    const store = env.make().summarizer["deps"].store;
    const other = { ...store, seal: async () => "already-sealed" as const, list: async () => [stored] };
    const past = new SealedPast(DEFAULT_TIERS);
    const summarizer = new Summarizer({ past, store: other, model: env.model.port, clock: env.clock, journal: env.journal.forThinker(), selfName: "wren", persona: "", retryMs: 30_000 });
    void summarizer.start();
    await until(() => env.model.calls().length >= 1, "a first call");
    await settle();
    await env.writer.flushed();
    const callsBefore = env.model.calls().length;
    // Nothing more within the backoff, however often it is poked.
    for (let i = 0; i < 20; i++) {
      summarizer.poke();
      await settle();
    }
    expect(env.model.calls().length).toBe(callsBefore);
    expect(callsBefore).toBeLessThanOrEqual(2);
    const logged = (await tailSteps(env.db, MIND, 50)).filter((s) => s.type === "error" && (s as { reason?: string }).reason === SUMMARY_FAILED);
    expect(logged[0]?.content).toContain("does not fit the stream as it is here");
    await summarizer.stop();
  });

  it("waits while a thinker is in a run, and summarizes once all are between runs", async () => {
    const env = await setup({ steps: 15, script: (_n, o) => summaryOf(o) });
    const { past, summarizer } = env.make();
    summarizer.setBusy("inner-life", true);
    summarizer.setBusy("responder", true);
    void summarizer.start();
    await until(() => past.loaded, "loaded");
    await settle(300);
    summarizer.setBusy("inner-life", false);
    await settle(300);
    expect(env.model.calls()).toHaveLength(0);
    summarizer.setBusy("responder", false);
    await until(() => past.sealedCount === 1, "sealed once both were done");
    await summarizer.stop();
  });

  it("a run goes on while a summary call hangs, and its context shows the sealed past", async () => {
    // 150 stream steps, sealed by a first summarizer; then a second one whose model hangs on the next block.
    const env = await setup({ steps: 190, script: (n, o) => (n < 16 ? summaryOf(o) : hang(o)) });
    const first = env.make();
    void first.summarizer.start();
    await until(() => first.past.sealedCount === 16, "fifteen tier-0 blocks and one tier-1 sealed");
    await first.summarizer.stop();
    // More steps complete another block; this summary call will hang.
    for (let i = 0; i < 10; i++) await appendStep(env.db, MIND, env.step("thought", { content: `later ${i}: the tide table parser reads the header row, then the times, then the heights of the water` }));
    const { past, summarizer } = env.make();
    void summarizer.start();
    await until(() => env.model.calls().length === 17, "the hanging summary call is under way");

    const thinker = scriptedModel(["I look around.\n```bash\nFINAL=idle\n```"], "mock/mind");
    const run = await env.journal.openRun({ model: thinker.port.name, launched_by: "monolith" });
    // The root's log with its sealed past, as workers/host.ts makes it (read once the run's header is stored).
    await env.writer.flushed();
    const journal = new Journal(new TrajectoryLog(env.writer, MIND, WINDOW, past), sequentialIds("ffffffffffff"), env.clock);
    const outcome = await shellmRun(
      { ports: { model: thinker.port, shell: new FakeShell((_c, req) => finalResult(req, "idle")) }, config: { selfName: "wren", limits: { ...DEFAULT_RUN_LIMITS, contextTokens: 1200 }, nesting: DEFAULT_NESTING }, view: { instructions: "Be wren." }, depth: 0, signal: new AbortController().signal },
      { ...run, journal },
      { prompt: "Task: look around.", shell: { env: {}, cwd: "/workspace" } },
    );
    expect(outcome.end).toBe("final");
    expect(env.model.calls()).toHaveLength(17);
    expect(past.sealedCount).toBe(16);
    // The run was shown the staircase (its budget is small, so the past does not fit verbatim): the tier-1 summary of the first 100 steps, then tier-0 summaries.
    const seen = thinker.calls()[0]?.map((m) => m.text).join("\n") ?? "";
    expect(seen).toContain("[My summary of 100 steps");
    expect(seen).toContain("I spent a longer stretch thinking");
    expect(seen).toContain("[My summary of 10 steps");
    await summarizer.stop();
    // Stopping ended the hanging call: nothing was sealed for it and no failure was logged.
    expect(past.sealedCount).toBe(16);
    await env.writer.flushed();
    expect((await tailSteps(env.db, MIND, 400)).filter((s) => s.type === "error")).toHaveLength(0);
  });
});
