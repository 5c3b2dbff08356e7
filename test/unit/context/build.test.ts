// lib/context/staircase.ts and build.ts over hand-written step lists: the
// staircase covers every step exactly once, coarsest first; messages are
// always valid and within the budget; missing summaries degrade to their
// children or an elision that says why.
import { describe, expect, it } from "vitest";
import { arraySource, buildContext, inStream, type BuildOptions, type ContextPart, type Summary } from "../../../lib/context/build";
import { alignCut, completeBlocks, plan, type BlockRef } from "../../../lib/context/staircase";
import { TokenCounter } from "../../../lib/context/tokens";
import type { Step } from "../../../lib/trajectory/schema";
import { stepMaker } from "../helpers/steps";

const F = { fanout: 10 };
const SELF = "Reverie";

function thoughts(n: number, text = (i: number) => `thought number ${i}`): Step[] {
  const mk = stepMaker();
  return Array.from({ length: n }, (_, i) => mk("thought", { content: text(i) }));
}

const key = (b: BlockRef) => `${b.tier}:${b.index}`;

/** Summaries for every complete block, or those `keep` allows. */
function summaries(n: number, keep: (b: BlockRef) => boolean = () => true): Map<string, Summary> {
  return new Map(completeBlocks(n, F).filter(keep).map((b) => [key(b), { content: `I did blocks ${b.tier}/${b.index}.`, cites: [] }]));
}

function opts(sealed: Map<string, Summary>, extra: Partial<BuildOptions> = {}): BuildOptions {
  return { selfName: SELF, budget: 100_000, tiers: F, summary: (b) => sealed.get(key(b)), counter: new TokenCounter(), ...extra };
}

/** Every step id the parts cover, in order (ancestors and pinned parts are extra). */
const covered = (parts: ContextPart[]) => parts.filter((p) => p.kind !== "ancestors" && p.kind !== "pinned").flatMap((p) => p.step_ids);

function valid(messages: { role: string; content: string }[]) {
  expect(messages.length).toBeGreaterThan(0);
  expect(messages[0]?.role).toBe("user");
  expect(messages.at(-1)?.role).toBe("user");
  messages.forEach((m, i) => {
    expect(m.content.trim()).not.toBe("");
    if (i > 0) expect(m.role).not.toBe(messages[i - 1]?.role);
  });
}

describe("plan: the staircase over positions", () => {
  it("covers [0, n) exactly once, coarsest blocks first, for many lengths and cuts", () => {
    for (const n of [0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 1234, 10_000, 12_345]) {
      for (const back of [0, 10, 20, 55, 200]) {
        const cut = alignCut(Math.max(0, n - back), F);
        const sealedAll = plan(n, cut, F, () => "sealed");
        const seen: number[] = [];
        for (const p of sealedAll) for (let i = p.from; i < p.to; i++) seen.push(i);
        expect(seen).toEqual(Array.from({ length: n }, (_, i) => i));
        // Coarsest first: tiers never grow along the staircase.
        const tiers = sealedAll.flatMap((p) => (p.kind === "tier" ? [p.tier] : []));
        expect([...tiers].sort((a, b) => b - a)).toEqual(tiers);
      }
    }
  });

  it("1,234 steps with everything sealed and 34 verbatim: one tier-2, two tier-1, three tier-0, then the tail", () => {
    expect(plan(1234, 1200, F, () => "sealed").map((p) => (p.kind === "verbatim" ? `v${p.from}-${p.to}` : `t${p.tier}:${p.index}`))).toEqual([
      "t2:0",
      "t1:10",
      "t1:11",
      "v1200-1234",
    ]);
    expect(plan(1234, 1230, F, () => "sealed").map((p) => (p.kind === "verbatim" ? `v${p.from}-${p.to}` : `t${p.tier}:${p.index}`))).toEqual([
      "t2:0",
      "t1:10",
      "t1:11",
      "t0:120",
      "t0:121",
      "t0:122",
      "v1230-1234",
    ]);
  });

  it("a missing tier-1 summary falls back to its children; a missing tier-0 one is elided with the reason", () => {
    const parts = plan(100, 100, F, (b) => (b.tier === 1 ? { missing: "not yet" } : b.index === 3 ? { missing: "the summarizer failed: HTTP 500" } : "sealed"));
    expect(parts.map((p) => p.kind + (p.kind === "elided" ? `(${p.reason})` : ""))).toEqual([
      "tier",
      "tier",
      "tier",
      "elided(the summarizer failed: HTTP 500)",
      "tier",
      "tier",
      "tier",
      "tier",
      "tier",
      "tier",
    ]);
  });

  it("refuses a cut that is not on a block boundary", () => {
    expect(() => plan(30, 15, F, () => "sealed")).toThrow(/multiple of 10/);
  });

  it("completeBlocks lists children before parents' tier, only complete ones", () => {
    expect(completeBlocks(9, F)).toEqual([]);
    expect(completeBlocks(25, F)).toEqual([
      { tier: 0, index: 0 },
      { tier: 0, index: 1 },
    ]);
    expect(completeBlocks(100, F).filter((b) => b.tier === 1)).toEqual([{ tier: 1, index: 0 }]);
  });
});

describe("buildContext", () => {
  it("an empty trajectory is still a valid context", () => {
    const built = buildContext(arraySource([]), opts(new Map()));
    expect(built.messages).toEqual([{ role: "user", content: "[the trajectory so far]" }]);
    expect(built.parts).toEqual([]);
    expect(built.tokens).toBe(0);
  });

  it("one step: shown verbatim, valid", () => {
    const [t] = thoughts(1);
    const built = buildContext(arraySource([t as Step]), opts(new Map()));
    expect(built.messages).toEqual([
      { role: "user", content: "[the trajectory so far]" },
      { role: "assistant", content: "thought number 0" },
      { role: "user", content: "[continue]" },
    ]);
    expect(covered(built.parts)).toEqual([t?.step_id]);
  });

  it("junk-heavy: bookkeeping and wake markers are not in the stream", () => {
    const mk = stepMaker();
    const steps = [
      mk("trajectory", { name: "x" }),
      mk("config", { pacing: { base_s: 5, cap_s: 300, ticks_per_level: 3 }, max_iterations: 12, model: "m", provider: "p" }),
      mk("wake", { reason: "scheduled", level: 1, delay_s: 5 }),
      mk("shellm-run", { model: "m" }),
      mk("thought", { content: "the only real step" }),
    ];
    const stream = steps.filter(inStream);
    expect(stream.map((s) => s.type)).toEqual(["thought"]);
    valid(buildContext(arraySource(stream), opts(new Map())).messages);
  });

  it("multibyte text is intact and counted", () => {
    const steps = thoughts(3, (i) => `思考 ${i} — voilà 🧠`);
    const built = buildContext(arraySource(steps), opts(new Map()));
    expect(built.messages[1]?.content).toBe("思考 0 — voilà 🧠\n\n思考 1 — voilà 🧠\n\n思考 2 — voilà 🧠");
    expect(built.tokens).toBeGreaterThan(0);
  });

  it("blob-heavy: cut outputs name the command that reads them whole", () => {
    const mk = stepMaker();
    const outs = Array.from({ length: 5 }, () =>
      mk("shell-output", { stdout: "x".repeat(4096), stderr: "", exit: 0, exec_s: 1, timed_out: false, stdout_ref: "blobs/a.stdout", stdout_bytes: 90_000, stdout_truncated: true }),
    );
    const built = buildContext(arraySource(outs), opts(new Map()));
    valid(built.messages);
    for (const o of outs) expect(built.messages[0]?.content).toContain(`\`traj show ${o.step_id.slice(0, 8)} --full\``);
  });

  it("uses sealed summaries for the old past, in the mind's voice, citing what they cover; every step exactly once", () => {
    const steps = thoughts(1234);
    const built = buildContext(arraySource(steps), opts(summaries(1234), { maxVerbatim: 40 }));
    valid(built.messages);
    expect(covered(built.parts)).toEqual(steps.map((s) => s.step_id));
    const kinds = built.parts.map((p) => (p.kind === "tier" ? `t${p.tier}` : p.kind));
    // At most 40 verbatim, on a block boundary: the 34 after 1200.
    expect(kinds).toEqual(["t2", "t1", "t1", "verbatim"]);
    expect(built.parts.at(-1)?.step_ids).toEqual(steps.slice(1200).map((s) => s.step_id));
    const first = built.parts[0] as Extract<ContextPart, { kind: "tier" }>;
    expect(first.step_ids).toEqual(steps.slice(0, 1000).map((s) => s.step_id));
    expect(built.messages[0]?.content.startsWith(`[My summary of 1000 steps, ${steps[0]?.step_id.slice(0, 8)}…${steps[999]?.step_id.slice(0, 8)} (tier 2).`)).toBe(true);
    expect(built.messages[0]?.content).toContain("I did blocks 2/0.");
  });

  it("says how to read a step once, on the first summary shown, folded or not", () => {
    const HINT = "`traj show <id>` reads any step.";
    const steps = thoughts(1234);
    const once = (text: string) => text.split(HINT).length - 1;
    const all = buildContext(arraySource(steps), opts(summaries(1234), { maxVerbatim: 40 }));
    expect(all.parts.filter((p) => p.kind === "tier")).toHaveLength(3);
    expect(once(all.messages.map((m) => m.content).join("\n"))).toBe(1);
    expect(all.messages[0]?.content).toMatch(/^\[My summary of 1000 steps, [0-9a-f]{8}…[0-9a-f]{8} \(tier 2\)\. `traj show <id>` reads any step\.\]\n/);
    // The tier-2 summary folded to fit: the first one left carries it.
    const folded = buildContext(arraySource(steps), opts(summaries(1234), { maxVerbatim: 40, budget: 150 }));
    expect(folded.parts[0]).toMatchObject({ kind: "elided", reason: "over the token budget" });
    const firstTier = folded.parts.find((p) => p.kind === "tier") as Extract<ContextPart, { kind: "tier" }>;
    expect(firstTier.tier).toBeLessThan(2);
    const text = folded.messages.map((m) => m.content).join("\n");
    expect(once(text)).toBe(1);
    expect(text).toContain(`(tier ${firstTier.tier}). ${HINT}]\nI did blocks ${firstTier.tier}/${firstTier.index}.`);
  });

  it("the budget holds: verbatim shrinks, then old parts fold into one elision", () => {
    const steps = thoughts(500, (i) => `a fairly long thought, number ${i}, about the sea and the tides and the moon`);
    for (const budget of [300, 800, 2000, 6000, 50_000]) {
      const built = buildContext(arraySource(steps), opts(summaries(500), { budget }));
      valid(built.messages);
      expect(covered(built.parts)).toEqual(steps.map((s) => s.step_id));
      // The smallest context (one block verbatim) may exceed a tiny budget; anything larger holds it.
      if (budget >= 800) expect(built.tokens).toBeLessThanOrEqual(budget);
    }
    const big = buildContext(arraySource(steps), opts(summaries(500), { budget: 50_000 }));
    const small = buildContext(arraySource(steps), opts(summaries(500), { budget: 800 }));
    expect(big.parts.at(-1)?.step_ids.length).toBe(200); // maxVerbatim
    expect(small.parts.at(-1)?.step_ids.length).toBeLessThan(200);
  });

  it("the reported tokens track a recount of the messages", () => {
    const steps = thoughts(300);
    const counter = new TokenCounter();
    const built = buildContext(arraySource(steps), opts(summaries(300), { counter }));
    const recount = built.messages.reduce((n, m) => n + counter.count(m.content), 0);
    expect(Math.abs(built.tokens - recount) / recount).toBeLessThan(0.1);
  });

  it("a summarizer failure degrades to the children or an elision that says why", () => {
    const steps = thoughts(200);
    const sealed = summaries(200, (b) => b.tier === 0 && b.index !== 4);
    const built = buildContext(arraySource(steps), opts(sealed, { maxVerbatim: 20, missing: (b) => (b.index === 4 ? "the summarizer failed: HTTP 500" : undefined) }));
    valid(built.messages);
    expect(covered(built.parts)).toEqual(steps.map((s) => s.step_id));
    const elided = built.parts.filter((p) => p.kind === "elided");
    expect(elided).toEqual([{ kind: "elided", tier: 0, index: 4, step_ids: steps.slice(40, 50).map((s) => s.step_id), reason: "the summarizer failed: HTTP 500", tokens: expect.any(Number) }]);
    expect(built.parts.filter((p) => p.kind === "tier").every((p) => p.kind === "tier" && p.tier === 0)).toBe(true);
  });

  it("with no summaries yet: one elision for the past (blocks for one reason merge), then the tail; and a note for what is not at hand", () => {
    const steps = thoughts(300);
    const built = buildContext(arraySource(steps), opts(new Map(), { maxVerbatim: 50, before: 9000 }));
    valid(built.messages);
    expect(built.parts.map((p) => p.kind)).toEqual(["elided", "elided", "verbatim"]);
    expect(built.parts[1]?.step_ids).toEqual(steps.slice(0, 250).map((s) => s.step_id));
    expect(built.messages[0]?.content).toBe(
      `[9000 earlier steps not shown (not summarized yet). \`traj tail -n N\`, \`traj search\` and \`traj show\` reach them.]\n\n[250 steps, ${steps[0]?.step_id.slice(0, 8)}…${steps[249]?.step_id.slice(0, 8)}, not shown: not summarized yet. \`traj show\` and \`traj search\` reach them.]`,
    );
  });

  it("pins the run's prompt when it falls before the verbatim tail", () => {
    const mk = stepMaker();
    const prompt = mk("prompt", { content: "Task: count the stars." });
    const steps = [prompt, ...thoughts(100)];
    const built = buildContext(arraySource(steps), opts(new Map(), { maxVerbatim: 20, pinned: prompt }));
    const pinned = built.parts.find((p) => p.kind === "pinned");
    expect(pinned?.step_ids).toEqual([prompt.step_id]);
    expect(built.messages.some((m) => m.content.includes("Task: count the stars."))).toBe(true);
  });
});
