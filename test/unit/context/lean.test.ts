// lib/context/lean.ts, an idle wake's first look: within its budget, the
// newest steps verbatim and as many of the staircase's summaries as fit (the
// newest, then coarsest first), the rest elided by range with the reason;
// every step covered exactly once; a plan kept by the caller does not undo
// the choice; the inspector's replay rebuilds the messages byte for byte.
import { describe, expect, it } from "vitest";
import { arraySource, buildContext, partSpan, type BuildOptions, type BuiltContext, type ContextPart, type ContextSource, type Summary } from "@/lib/context/build";
import { LEAN_BUDGET, LEAN_VERBATIM, leanContext, LEFT_OUT_OF_A_FIRST_LOOK } from "@/lib/context/lean";
import { replay, seenCall } from "@/lib/context/replay";
import { completeBlocks, plan, type BlockRef } from "@/lib/context/staircase";
import { TokenCounter } from "@/lib/context/tokens";
import type { Step } from "@/lib/trajectory/schema";
import { stepMaker } from "../helpers/steps";

const TIERS = { fanout: 10 };
const SELF = "Reverie";
const key = (b: BlockRef) => `${b.tier}:${b.index}`;

/** A stream of n thoughts, every complete block sealed with a one-line summary citing its first step. */
function life(n: number) {
  const mk = stepMaker();
  const steps: Step[] = Array.from({ length: n }, (_, i) => mk("thought", { content: `Thought number ${i}: the garden, the tide table, a line of a poem.` }));
  const sealed = new Map<string, Summary>();
  for (const b of completeBlocks(n, TIERS)) {
    const from = b.index * 10 ** (b.tier + 1);
    sealed.set(key(b), { content: `I spent tier ${b.tier} block ${b.index} on the garden and a poem, and decided to keep the tide table.`, cites: [steps[from]?.step_id as string] });
  }
  const src = arraySource(steps);
  const opts: BuildOptions = { selfName: SELF, budget: LEAN_BUDGET, tiers: TIERS, summary: (b) => sealed.get(key(b)), counter: new TokenCounter(), pinned: steps[n - 1] };
  return { steps, src, opts, sealed };
}

/** The stream positions each part covers, in order. */
function covered(built: BuiltContext, src: ContextSource, steps: readonly Step[]): number[] {
  const pos = new Map(steps.map((s, i) => [s.step_id, i]));
  return built.parts.flatMap((p: ContextPart) => {
    const span = partSpan(p);
    if (span) return Array.from({ length: span.to - span.from }, (_, i) => span.from + i);
    return p.step_ids.map((id) => pos.get(id) as number);
  });
}

const tierParts = (b: BuiltContext) => b.parts.filter((p): p is Extract<ContextPart, { kind: "tier" }> => p.kind === "tier");

describe("an idle wake's first look (leanContext)", () => {
  for (const n of [7, 95, 1_234, 23_456]) {
    it(`${n.toLocaleString()} steps: within the budget, every step covered exactly once, in order`, () => {
      const { steps, src, opts } = life(n);
      const built = leanContext(src, opts);
      expect(built.tokens).toBeLessThanOrEqual(LEAN_BUDGET);
      expect(covered(built, src, steps)).toEqual(steps.map((_, i) => i));
      // The newest steps are shown verbatim, the wake's task (the last step) among them.
      const verbatim = built.parts.find((p) => p.kind === "verbatim");
      expect(verbatim?.step_ids.length).toBeGreaterThanOrEqual(Math.min(LEAN_VERBATIM, n));
      expect(verbatim?.step_ids.at(-1)).toBe(steps[n - 1]?.step_id);
    });
  }

  it("a small life whose whole staircase fits: the same context as buildContext's", () => {
    const { src, opts } = life(95);
    const lean = { ...opts, minVerbatim: LEAN_VERBATIM, maxVerbatim: LEAN_VERBATIM };
    expect(leanContext(src, opts)).toEqual(buildContext(src, lean));
    expect(leanContext(src, opts).parts.some((p) => p.kind === "elided")).toBe(false);
  });

  it("a long life: the newest summary, then the coarsest ones, newest first; what is left out is elided by range, saying why and how to reach it", () => {
    const { src, opts } = life(23_456);
    const built = leanContext(src, opts);
    const whole = tierParts(buildContext(src, { ...opts, minVerbatim: LEAN_VERBATIM, maxVerbatim: LEAN_VERBATIM, budget: Number.POSITIVE_INFINITY }));
    const kept = new Set(tierParts(built).map(key));
    expect(kept.size).toBeGreaterThan(1);
    expect(kept.size).toBeLessThan(whole.length);
    // The newest summary (the block just before the verbatim tail) is kept.
    expect(kept.has(key(whole.at(-1) as BlockRef))).toBe(true);
    // Coarsest first, newest first within a tier: no block left out ranks before one kept.
    const rank = whole.slice(0, -1).sort((a, b) => b.tier - a.tier || b.index - a.index);
    const firstLeftOut = rank.findIndex((b) => !kept.has(key(b)));
    expect(rank.slice(firstLeftOut).some((b) => kept.has(key(b)))).toBe(false);
    expect(rank[0] && kept.has(key(rank[0]))).toBe(true);
    // Left-out stretches are elisions naming their range, the reason and the commands that reach them.
    const elided = built.parts.filter((p) => p.kind === "elided");
    expect(elided.length).toBeGreaterThan(0);
    for (const p of elided) expect(p.kind === "elided" && p.reason).toBe(LEFT_OUT_OF_A_FIRST_LOOK);
    const text = built.messages.map((m) => m.content).join("\n");
    expect(text).toContain(`not shown: ${LEFT_OUT_OF_A_FIRST_LOOK}. \`traj show\` and \`traj search\` reach them.`);
  });

  it("a block with no summary yet keeps its own reason", () => {
    const { src, opts, sealed } = life(1_234);
    sealed.delete("0:120");
    const built = leanContext(src, opts);
    expect(built.parts.some((p) => p.kind === "elided" && p.reason === "not summarized yet")).toBe(true);
    expect(built.tokens).toBeLessThanOrEqual(LEAN_BUDGET);
  });

  it("a plan kept by the caller (run.ts passes a sealed past's) does not bring the left-out summaries back", () => {
    const { src, opts } = life(23_456);
    // A plan that answers for the sealed past as it is: every summary there.
    const kept = (n: number, cut: number) => plan(n, cut, TIERS, (b) => (opts.summary(b) ? "sealed" : { missing: "not summarized yet" }));
    const withPlan = leanContext(src, { ...opts, plan: kept } as BuildOptions);
    expect(withPlan).toEqual(leanContext(src, opts));
    expect(withPlan.tokens).toBeLessThanOrEqual(LEAN_BUDGET);
  });

  it("when not even the elisions fit: still every step once (buildContext folds the oldest)", () => {
    const { steps, src, opts } = life(23_456);
    const built = leanContext(src, { ...opts, budget: 60 });
    expect(covered(built, src, steps)).toEqual(steps.map((_, i) => i));
  });

  it("the inspector's replay of a first look is the messages sent, byte for byte", () => {
    const { steps, src, opts, sealed } = life(23_456);
    const built = leanContext(src, opts);
    const call = seenCall(built, opts, src, { step_id: "s", run_id: "r", traj_id: "t", iteration: 1, system: [] });
    const byId = new Map(steps.map((s) => [s.step_id, s]));
    const again = replay(call, { step: (id) => byId.get(id), summary: (b) => sealed.get(key(b))?.content });
    expect(again.missing).toEqual([]);
    expect(again.messages).toEqual(built.messages);
    expect(call.budget).toBe(LEAN_BUDGET);
  });
});

describe("a first look while the summarizer is behind", () => {
  it("the block before the open one, not summarized yet, is shown verbatim rather than elided", () => {
    const { steps, src, opts, sealed } = life(1_234);
    // The open block is 1230–1233; the one before it, 1220–1229, is not sealed yet.
    sealed.delete("0:122");
    const built = leanContext(src, opts);
    const verbatim = built.parts.find((p) => p.kind === "verbatim");
    expect(verbatim?.step_ids).toEqual(steps.slice(1_220).map((s) => s.step_id));
    expect(built.parts.some((p) => p.kind === "elided" && p.reason === "not summarized yet")).toBe(false);
    expect(covered(built, src, steps)).toEqual(steps.map((_, i) => i));
    expect(built.tokens).toBeLessThanOrEqual(LEAN_BUDGET);
  });

  it("otherwise only the open block is verbatim", () => {
    const { steps, src, opts } = life(1_234);
    expect(leanContext(src, opts).parts.find((p) => p.kind === "verbatim")?.step_ids).toEqual(steps.slice(1_230).map((s) => s.step_id));
  });
});
