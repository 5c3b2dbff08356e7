// buildContext plans the staircase once per call (and, over a sealed past,
// once across calls): its result must be the one the old build gave, which
// assembled the whole context again for every cut it tried
// (helpers/build-by-cuts.ts). Varied streams, summaries, budgets and options,
// from a seeded generator; and a sealed past whose plan is kept while blocks
// are sealed, fail and mismatch between calls.
import { describe, expect, it } from "vitest";
import { arraySource, buildContext, inStream, partSpan, sealedLookup, type BuildOptions, type BuiltContext, type Summary } from "@/lib/context/build";
import { SealedPast } from "@/lib/context/sealed-past";
import { completeBlocks, planner, plan, type BlockRef, type TierConfig } from "@/lib/context/staircase";
import { TokenCounter } from "@/lib/context/tokens";
import type { Step } from "@/lib/trajectory/schema";
import { buildContextByCuts, oldPartSpan } from "../helpers/build-by-cuts";
import { stepMaker } from "../helpers/steps";
import { mulberry32 } from "../helpers/random";

const random = mulberry32;

function stream(n: number, rnd: () => number, tail?: string): Step[] {
  const mk = stepMaker({ tail });
  const out: Step[] = [];
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (r < 0.3) out.push(mk("reasoning", { thought: rnd() < 0.5 ? "" : `thinking ${i} `.repeat(1 + Math.floor(rnd() * 20)), cmd: `echo ${i}` }));
    else if (r < 0.6) out.push(mk("shell-output", { stdout: "out ".repeat(Math.floor(rnd() * 200)), stderr: "", exit: rnd() < 0.1 ? 1 : 0, exec_s: 0, timed_out: false }));
    else if (r < 0.7) out.push(mk("wake", { reason: "scheduled", level: 0, delay_s: 1 }));
    else if (r < 0.75) out.push(mk("shellm-run", { model: "m", launched_by: "test" }));
    else if (r < 0.85) out.push(mk("message", { from: rnd() < 0.5 ? "Ada" : "Reverie", to: "Reverie", content: `hello ${i}` }));
    else out.push(mk("thought", { content: rnd() < 0.05 ? "" : `thought ${i}` }));
  }
  return out;
}

const key = (b: BlockRef) => `${b.tier}:${b.index}`;

/** The whole result, spans included (who reads a part's extent asks partSpan). */
function comparable(built: BuiltContext, span: (p: BuiltContext["parts"][number]) => unknown) {
  return { messages: built.messages, tokens: built.tokens, parts: built.parts.map((p) => ({ ...p, step_ids: [...p.step_ids], span: span(p) })) };
}

function same(opts: BuildOptions, src: ReturnType<typeof arraySource>, fresh: BuildOptions = opts) {
  // Each build its own counter: one's cache cannot hide the other's counts.
  const now = buildContext(src, { ...fresh, counter: new TokenCounter() });
  const then = buildContextByCuts(src, { ...opts, counter: new TokenCounter() });
  expect(comparable(now, partSpan)).toEqual(comparable(then, oldPartSpan));
  return now;
}

describe("buildContext plans once and gives what it gave when it planned for every cut", () => {
  it("on 150 varied streams, summaries, budgets and options", () => {
    const rnd = random(7);
    const kinds = new Set<string>();
    for (let round = 0; round < 150; round++) {
      const tiers: TierConfig = { fanout: rnd() < 0.3 ? 3 : 10 };
      const steps = stream(Math.floor(rnd() ** 2 * 1500), rnd).filter(inStream);
      const sealedShare = rnd();
      const sealed = new Map<string, Summary>(
        completeBlocks(steps.length, tiers)
          .filter(() => rnd() < sealedShare)
          .map((b) => [key(b), { content: `I did ${key(b)}. `.repeat(1 + Math.floor(rnd() * 30)), cites: rnd() < 0.3 ? [steps[0]?.step_id ?? ""] : [] }]),
      );
      const reasons = ["it failed", "not summarized yet", "the model was down"];
      const missing = new Map(completeBlocks(steps.length, tiers).filter(() => rnd() < 0.1).map((b) => [key(b), reasons[Math.floor(rnd() * reasons.length)] as string]));
      const ancestors = rnd() < 0.2 ? stream(5 + Math.floor(rnd() * 20), rnd, "bbbbbbbbbbbb").filter(inStream) : undefined;
      const pinned = rnd() < 0.5 && steps.length ? steps[Math.floor(rnd() * steps.length)] : rnd() < 0.5 ? stream(1, rnd, "cccccccccccc")[0] : undefined;
      const held = rnd() < 0.3 ? Math.floor(rnd() * steps.length) : undefined;
      const src = { ...arraySource(steps), ...(held === undefined ? {} : { held, at: (p: number) => (p < held && rnd() < 2 ? undefined : steps[p]) }) };
      const budget = [50, 300, 1_000, 2_000, 4_000, 16_000, 100_000][Math.floor(rnd() * 7)] as number;
      const opts: BuildOptions = {
        selfName: "Reverie",
        budget,
        tiers,
        summary: (b) => sealed.get(key(b)),
        ...(rnd() < 0.7 ? { missing: (b: BlockRef) => missing.get(key(b)) } : {}),
        counter: new TokenCounter(),
        ...(rnd() < 0.3 ? { minVerbatim: Math.floor(rnd() * 50), maxVerbatim: Math.floor(rnd() * 400) } : {}),
        ...(pinned ? { pinned } : {}),
        ...(ancestors ? { ancestors } : {}),
        ...(rnd() < 0.2 ? { before: Math.floor(rnd() * 5000) } : {}),
      };
      const built = same(opts, src);
      for (const p of built.parts) kinds.add(p.kind === "elided" ? `elided:${p.reason}` : p.kind);
      // And with a plan kept by the caller (as a sealed past keeps one).
      same(opts, src, { ...opts, plan: planner(tiers, sealedLookup(opts.summary, opts.missing)) });
    }
    // The inputs reached every kind of part, and folds and elisions of every reason.
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining(["ancestors", "pinned", "tier", "verbatim", "elided:over the token budget", "elided:not at hand", "elided:not summarized yet", "elided:it failed", "elided:older than what is at hand"]),
    );
  }, 60_000);

  it("a planner's plans are the old plan's, for every cut, while blocks' answers change and it is told so", () => {
    const tiers = { fanout: 3 };
    const answers = new Map<string, "sealed" | { missing: string }>();
    const lookup = (b: BlockRef) => answers.get(key(b)) ?? { missing: "not summarized yet" };
    const kept = planner(tiers, lookup);
    const rnd = random(11);
    const n = 500;
    const blocks = completeBlocks(n, tiers);
    for (let round = 0; round < 300; round++) {
      const b = blocks[Math.floor(rnd() * blocks.length)] as BlockRef;
      answers.set(key(b), rnd() < 0.7 ? "sealed" : { missing: `failed ${round}` });
      kept.forget(b);
      const cut = Math.floor((rnd() * n) / 3) * 3;
      expect(kept(n, cut)).toEqual(plan(n, cut, tiers, lookup));
    }
  });

  it("over a sealed past whose plan is kept across calls: the same contexts as planning afresh, while the summarizer seals, fails and mismatches", () => {
    const rnd = random(3);
    const steps = stream(2600, rnd);
    const past = new SealedPast({ fanout: 10 });
    past.extend(steps.map((s, i) => ({ seq: i + 1, type: s.type, step_id: s.step_id })));
    const ids = past.ids(0, past.length);
    const blocks = completeBlocks(past.length, past.tiers);
    const tail = steps.slice(-300);
    const counter = new TokenCounter();
    for (let round = 0; round < 120; round++) {
      for (let k = 0; k < 5; k++) {
        const b = blocks[Math.floor(rnd() * blocks.length)] as BlockRef;
        const size = 10 ** (b.tier + 1);
        const r = rnd();
        if (r < 0.15) past.setMissing(b, rnd() < 0.5 ? `its summary failed (${round}); I will try again` : undefined);
        else {
          const mismatch = r < 0.25;
          past.accept({ tier: b.tier, index: b.index, steps: size, first_step: mismatch ? "nope" : (ids[b.index * size] as string), last_step: ids[(b.index + 1) * size - 1] as string, content: `I did ${key(b)}.`, cites: [] });
        }
      }
      const src = past.source(tail);
      const base: BuildOptions = { selfName: "Reverie", budget: [1_000, 4_000, 16_000][round % 3] as number, tiers: past.tiers, summary: past.summary, missing: past.missing, counter, pinned: tail[5] };
      same(base, src, { ...base, plan: past.plan });
    }
    expect(past.sealedCount).toBeGreaterThan(50);
  }, 60_000);
});
