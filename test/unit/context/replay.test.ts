// "What the model saw": a call's small record (lib/context/replay.ts
// seenCall) and the messages rebuilt from it must be exactly what
// buildContext produced, byte for byte: for verbatim tails, elisions, sealed
// tiers, a fold over the budget and a nested run's ancestors. Then the whole
// path: a mind run by workers/host.ts against the scripted model server
// records each call in IndexedDB (lib/store/derived/contexts.ts), and the replay of
// each record equals the request the server received.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arraySource, buildContext, inStream, type BuildOptions, type ContextSource, type Summary } from "@/lib/context/build";
import { replay, seenCall, tokenLines, type SeenCall } from "@/lib/context/replay";
import { SealedPast } from "@/lib/context/sealed-past";
import { blockRange, completeBlocks, DEFAULT_TIERS, type BlockRef } from "@/lib/context/staircase";
import { TokenCounter } from "@/lib/context/tokens";
import { instructionParts, splitInstructions } from "@/lib/mind/run/prompt";
import type { ReverieDb } from "@/lib/store/db/db";
import { contextOf, contextsOfRun, replayLookups } from "@/lib/store/derived/contexts";
import { createMind } from "@/lib/store/minds/minds";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import { tailSteps } from "@/lib/store/steps/steps";
import { MindWriter, TrajectoryLog } from "@/lib/mind/log/mind-log";
import { readTiers, sealTier, streamEntriesAfter } from "@/lib/store/derived/tiers";
import type { Step } from "@/lib/trajectory/schema";
import { runMind } from "@/lib/home/tab";
import { on } from "@/lib/mind/events";
import { firstCall } from "@/components/inspector/useSeenContext";
import { startModelServer, type ModelServer } from "../../fixtures/model-server";
import { openTestDb } from "../helpers/db";
import { id, stepMaker } from "../helpers/steps";

const F = { fanout: 10 };
const SELF = "Reverie";
const key = (b: BlockRef) => `${b.tier}:${b.index}`;
const SYSTEM = instructionParts({ name: SELF, persona: "I tend a garden of notes." }, { commands: "- traj tail\n- mem add", skills: [{ name: "tidy", description: "How I tidy." }] });

/** A varied life: thoughts, code and its output (some of it long), messages to and from the mind, finals. */
function life(n: number, tail = "aaaaaaaaaaaa"): Step[] {
  const mk = stepMaker({ tail });
  return Array.from({ length: n }, (_, i) => {
    switch (i % 5) {
      case 0:
        return mk("reasoning", { thought: `Step ${i}: I look at my notes — ünïcødé 🌱.`, cmd: `ls notes | head -${i}` });
      case 1:
        return mk("shell-output", { stdout: i % 15 === 1 ? "x".repeat(2500) : `note-${i}.md\n`, stderr: "", exit: i % 3 === 0 ? 1 : 0, exec_s: 0.1, timed_out: false });
      case 2:
        return mk("message", { from: i % 4 === 2 ? "ana" : SELF, to: i % 4 === 2 ? SELF : "ana", content: `hello ${i}` });
      case 3:
        return mk("thought", { content: `thinking about ${i}` });
      default:
        return mk("final", { content: `done ${i}` });
    }
  });
}

function sealedFor(n: number, keep: (b: BlockRef) => boolean = () => true): Map<string, Summary> {
  return new Map(completeBlocks(n, F).filter(keep).map((b) => [key(b), { content: `I worked through block ${b.tier}/${b.index}, and decided to keep going.`, cites: [id(b.index * 10 + 1)] }]));
}

function options(sealed: Map<string, Summary>, extra: Partial<BuildOptions> = {}): BuildOptions {
  return { selfName: SELF, budget: 100_000, tiers: F, summary: (b) => sealed.get(key(b)), counter: new TokenCounter(), ...extra };
}

/** Build, record, replay from the steps by id and the summaries by block: the replay must be what was built. */
function roundTrip(src: ContextSource, steps: readonly Step[], opts: BuildOptions, sealed: Map<string, Summary>) {
  const built = buildContext(src, opts);
  const call = seenCall(built, opts, src, { step_id: id(9999), run_id: id(9998), traj_id: "t", iteration: 1, system: SYSTEM });
  // What is kept must survive being stored as JSON.
  const stored = JSON.parse(JSON.stringify(call)) as SeenCall;
  const byId = new Map(steps.map((s) => [s.step_id, s]));
  const rebuilt = replay(stored, { step: (i) => byId.get(i), summary: (b) => sealed.get(key(b))?.content });
  expect(rebuilt.missing).toEqual([]);
  expect(JSON.stringify(rebuilt.messages)).toBe(JSON.stringify(built.messages));
  expect(rebuilt.system).toBe(SYSTEM.map((p) => p.text).join(""));
  return { built, call: stored, rebuilt };
}

describe("replay: the record of a call rebuilds its messages byte for byte", () => {
  it("a short life: all verbatim, with the run's prompt pinned", () => {
    const steps = life(12).filter(inStream);
    const mk = stepMaker({ tail: "bbbbbbbbbbbb" });
    const prompt = mk("prompt", { content: "A spontaneous wake; nothing new arrived." });
    const { built } = roundTrip(arraySource(steps), [...steps, prompt], options(new Map(), { pinned: prompt }), new Map());
    expect(built.parts.map((p) => p.kind)).toEqual(["pinned", "verbatim"]);
  });

  it("a tail with earlier steps not at hand, elided blocks, and the verbatim part (the live run today)", () => {
    const steps = life(260);
    const tail = steps.slice(-120).filter(inStream);
    const { built, call } = roundTrip(arraySource(tail), tail, options(new Map(), { budget: 3_000, before: 140 }), new Map());
    expect(built.parts.map((p) => p.kind)).toEqual(["elided", "elided", "verbatim"]);
    expect(call.parts[0]).toMatchObject({ kind: "elided", note: "before" });
    expect(call.parts[1]).toMatchObject({ kind: "elided", note: "range", reason: "not summarized yet", first: tail[0]?.step_id });
  });

  it("sealed tiers from coarse to fine, a missing block elided, then the tail", () => {
    const steps = life(1234);
    const sealed = sealedFor(1234, (b) => key(b) !== "0:117" && key(b) !== "1:11");
    const { built, call } = roundTrip(arraySource(steps), steps, options(sealed, { maxVerbatim: 40 }), sealed);
    const kinds = built.parts.map((p) => (p.kind === "tier" ? `t${p.tier}` : p.kind));
    expect(kinds[0]).toBe("t2");
    expect(kinds).toContain("t1");
    expect(kinds).toContain("t0");
    expect(kinds).toContain("elided");
    expect(kinds.at(-1)).toBe("verbatim");
    // A tier part keeps its block's ends and cites, not the 1,000 ids it covers.
    expect(call.parts[0]).toEqual({ kind: "tier", tier: 2, index: 0, count: 1000, first: steps[0]?.step_id, last: steps[999]?.step_id, cites: [id(1)], tokens: built.parts[0]?.tokens });
  });

  it("over the budget even at its smallest: the oldest parts folded into one note", () => {
    const steps = life(400);
    const sealed = sealedFor(400);
    const { built, call } = roundTrip(arraySource(steps), steps, options(sealed, { budget: 700, minVerbatim: 20 }), sealed);
    expect(call.parts.some((p) => p.kind === "elided" && p.note === "fold")).toBe(true);
    expect(built.tokens).toBeGreaterThan(0);
  });

  it("a nested run: its ancestors' recent steps first, then its own", () => {
    const parent = life(30, "cccccccccccc").filter(inStream);
    const mk = stepMaker({ tail: "dddddddddddd", start: Date.parse("2025-02-01T00:00:00Z") });
    const own = [mk("prompt", { content: "Nested task: count the notes." }), mk("reasoning", { thought: "Counting.", cmd: "ls | wc -l" }), mk("shell-output", { stdout: "7\n", stderr: "", exit: 0, exec_s: 0.01, timed_out: false })];
    const { built, call } = roundTrip(arraySource(own), [...parent, ...own], options(new Map(), { ancestors: parent.slice(-12), pinned: own[0] }), new Map());
    expect(built.parts[0]?.kind).toBe("ancestors");
    expect(call.parts[0]).toMatchObject({ kind: "ancestors", step_ids: parent.slice(-12).map((s) => s.step_id) });
  });

  it("says what it could not find, rather than pass a guess for what was sent", () => {
    const steps = life(30).filter(inStream);
    const sealed = sealedFor(30);
    const opts = options(sealed, { budget: 800, minVerbatim: 10 });
    const built = buildContext(arraySource(steps), opts);
    const call = seenCall(built, opts, arraySource(steps), { step_id: id(1), run_id: id(2), traj_id: "t", iteration: 1, system: SYSTEM });
    const gone = steps[steps.length - 1]?.step_id as string;
    const rebuilt = replay(call, { step: (i) => (i === gone ? undefined : steps.find((s) => s.step_id === i)), summary: () => undefined });
    expect(rebuilt.missing).toContain(gone);
    expect(rebuilt.missing.some((m) => m.startsWith("summary tier"))).toBe(true);
  });
});

describe("the instructions in parts, and the token table", () => {
  it("splits the instructions back into the parts they were made of; joined, they are the text", () => {
    const text = SYSTEM.map((p) => p.text).join("");
    expect(splitInstructions(text)).toEqual(SYSTEM.filter((p) => p.text).map(({ kind, text }) => ({ kind, text })));
    expect(splitInstructions(text).map((p) => p.kind)).toEqual(["persona", "how-to-act", "commands", "people", "skills"]);
    expect(splitInstructions("You are a test mind.")).toEqual([{ kind: "instructions", text: "You are a test mind." }]);
  });

  it("lists every part with its tokens, and the lines add up to the total", () => {
    const steps = life(1234);
    const sealed = sealedFor(1234);
    const { call } = roundTrip(arraySource(steps), steps, options(sealed, { budget: 9_000 }), sealed);
    const { lines, total } = tokenLines(call);
    expect(lines.slice(0, 5).map((l) => l.kind)).toEqual(["persona", "how-to-act", "commands", "people", "skills"]);
    expect(lines.at(-1)?.kind).toBe("framing");
    const sys = call.system.reduce((n, s) => n + s.tokens, 0);
    expect(total).toBe(sys + 4 + call.tokens);
    expect(lines.reduce((n, l) => n + l.tokens, 0)).toBe(total);
    const counter = new TokenCounter();
    expect(lines[0]?.tokens).toBe(counter.count(SYSTEM[0]?.text ?? ""));
  });
});

describe("recorded by the running mind, stored, and replayed", () => {
  let db: ReverieDb;
  let model: ModelServer;

  beforeEach(async () => {
    db = await openTestDb("context-replay");
    model = await startModelServer();
  });

  afterEach(async () => {
    await model.close();
    await db.delete();
  });

  it("each call of a wake is kept under the step it led to, and its replay is the request the server received", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "I keep a tidy garden.", model: { provider: "openai-compatible", baseURL: model.url, model: "scripted" } });
    model.enqueue(
      { text: "First I look.\n\n```bash\necho looking\n```" },
      { text: "Now I note it.\n\n```bash\necho noted > n.md\nFINAL=\"act: noted\"\n```" },
      { status: 500, errorBody: '{"error":{"message":"boom"}}' },
    );
    let handle: Awaited<ReturnType<typeof runMind>> | null = null;
    let waits = 0;
    handle = await runMind(db, mind.id, on("status", ({ status: s }) => {
        // The first wake (two calls), then the next (one failing call); stop there.
        if (s.state === "waiting" && ++waits === 2) void handle?.stop();
      }));
    await handle.done;

    const steps = await tailSteps(db, mind.id, 100);
    const inner = model.requests.filter((r) => !r.messages.some((m) => m.role === "system" && m.content.includes("NO_REPLY")));
    expect(inner).toHaveLength(3);
    const ledTo = steps.filter((s) => s.type === "reasoning" || (s.type === "error" && (s as { reason?: string }).reason === "model"));
    expect(ledTo.map((s) => s.type)).toEqual(["reasoning", "reasoning", "error"]);

    for (const [i, step] of ledTo.entries()) {
      const seen = await contextOf(db, mind.id, step.step_id);
      expect(seen?.missing).toEqual([]);
      const call = seen?.call as SeenCall;
      expect(call.run_id).toBe((step as { run_id?: string }).run_id);
      const rebuilt = replay(call, await replayLookups(db, mind.id, call));
      expect(rebuilt.missing).toEqual([]);
      expect([{ role: "system", content: rebuilt.system }, ...rebuilt.messages]).toEqual(inner[i]?.messages);
      // The third call is the next wake's, a scheduled one: its first look has lean instructions of its own (lib/mind/thinkers/first-look.ts).
      expect(call.system.map((s) => s.kind)).toEqual(i < 2 ? ["persona", "how-to-act", "commands", "people"] : ["persona", "first-look", "commands"]);
    }
    const firstRun = (ledTo[0] as { run_id: string }).run_id;
    expect((await contextsOfRun(db, mind.id, firstRun)).map((s) => [s.call.iteration, s.call.step_id])).toEqual([
      [1, ledTo[0]?.step_id],
      [2, ledTo[1]?.step_id],
    ]);
    // Each instruction text is stored once: the first wake's four parts for its two calls, and the first look's own two (its persona is the same text).
    const texts = (await db.settings.toArray()).filter((r) => r.key.startsWith("seen-text:"));
    expect(texts).toHaveLength(6);
  });

  it("over a sealed past read from the store, as a running mind's is, each call of a run is stored small and replays its messages exactly", async () => {
    const MIND = "00000000-0000-4000-8000-000000000001";
    // The mind's writer over its IndexedDB state: its log's appends and, as the ContextPort, what each call saw.
    const recorder = new MindWriter(indexedDbMindState(db, MIND));
    const log = new TrajectoryLog(recorder, MIND);
    const steps = life(460);
    for (const s of steps) await log.append(s);
    await recorder.flushed();
    // Seal every complete block of the stream, as the summarizer does (lib/store/derived/tiers.ts).
    const stream = steps.filter(inStream);
    for (const b of completeBlocks(stream.length, DEFAULT_TIERS)) {
      const { from, to } = blockRange(b, DEFAULT_TIERS);
      const at = (p: number) => (stream[p] as Step).step_id;
      await sealTier(db, MIND, MIND, { ...b, content: `I went through block ${key(b)}.`, cites: [at(from + 1), at(to - 2)], first_step: at(from), last_step: at(to - 1), steps: to - from });
    }
    // The sealed past as the mind reads it: the stream's positions from the index, its summaries from the tiers rows.
    const past = new SealedPast(DEFAULT_TIERS);
    past.extend(await streamEntriesAfter(db, MIND, MIND, 0));
    for (const t of (await readTiers(db, MIND, MIND)).tiers) past.accept(t);
    const mk = stepMaker({ tail: "eeeeeeeeeeee", start: Date.parse("2026-01-01T00:00:00Z") });
    const built: { step: string; messages: unknown }[] = [];
    for (let i = 1; i <= 4; i++) {
      const tail = await tailSteps(db, MIND, 300);
      const opts: BuildOptions = { selfName: SELF, budget: 6_000, tiers: DEFAULT_TIERS, summary: past.summary, missing: past.missing, counter: new TokenCounter() };
      const source = past.source(tail);
      const context = buildContext(source, opts);
      expect(context.parts.some((p) => p.kind === "tier")).toBe(true);
      const led = mk("reasoning", { thought: `Call ${i}.`, cmd: "echo" });
      recorder.record(seenCall(context, opts, source, { step_id: led.step_id, run_id: id(4242), traj_id: MIND, iteration: i, system: SYSTEM }));
      const output = mk("shell-output", { stdout: `${i}\n`, stderr: "", exit: 0, exec_s: 0, timed_out: false });
      await log.append(led);
      await log.append(output);
      await recorder.flushed();
      past.extend(await streamEntriesAfter(db, MIND, MIND, past.lastSeq));
      built.push({ step: led.step_id, messages: context.messages });
    }
    const rows = await db.contexts.where("[mind_id+run_id]").equals([MIND, id(4242)]).toArray();
    expect(rows.filter((r) => r.base !== undefined)).toHaveLength(3);
    for (const b of built) {
      const seen = await contextOf(db, MIND, b.step);
      expect(seen?.missing).toEqual([]);
      const rebuilt = replay(seen?.call as SeenCall, await replayLookups(db, MIND, seen?.call as SeenCall));
      expect(rebuilt.missing).toEqual([]);
      expect(JSON.stringify(rebuilt.messages)).toBe(JSON.stringify(b.messages));
    }
  });

  it("the inspector opens a run at the call that led to the step, at its first from the prompt, at its last from a step no call led to", () => {
    const calls = [1, 2, 3].map((n) => ({ call: { step_id: id(n) } as SeenCall, missing: [] }));
    expect(firstCall(calls, id(2))).toBe(1);
    expect(firstCall(calls, undefined)).toBe(0);
    expect(firstCall(calls, id(77))).toBe(2);
  });

  it("a run from before recording (or an imported one) has no record", async () => {
    expect(await contextsOfRun(db, "00000000-0000-4000-8000-000000000001", id(5))).toEqual([]);
    expect(await contextOf(db, "00000000-0000-4000-8000-000000000001", id(5))).toBeUndefined();
  });

  it("a failed write is reported, and the records after it are still written", async () => {
    const errors: unknown[] = [];
    const recorder = new MindWriter(indexedDbMindState(db, "m", { onRecordError: (e) => errors.push(e) }), { onRecordError: (e) => errors.push(e) });
    const good: SeenCall = { step_id: id(1), run_id: id(2), traj_id: "m", iteration: 1, self_name: SELF, budget: 100, before: 0, tokens: 5, system: [{ kind: "instructions", text: "Be brief.", tokens: 2 }], parts: [] };
    // No step id: not a key the contexts table takes, so its write fails (and is written again without it: the writer goes on).
    recorder.record({ ...good, parts: [{ kind: "verbatim", step_ids: [1 as unknown as string], tokens: 1 }], step_id: undefined as unknown as string });
    await recorder.flushed();
    recorder.record(good);
    await recorder.flushed();
    expect(errors).toHaveLength(1);
    expect((await contextOf(db, "m", id(1)))?.call).toEqual(good);
  });
});
