// buildContext searches for its cut by tokens alone (the verbatim tail's
// tokens and role runs worked out block by block from the end, without its
// messages), and assembles only the cut it chooses. Its count for a cut must
// be the assembled context's to the token: with the budget set to exactly
// what a cut's context takes, and to one token less, it must choose what the
// old build (helpers/build-by-cuts.ts, which assembled every cut it tried)
// chose. Any difference in a count flips one of those choices. And the
// pieces of summaries and elisions it keeps from one call to the next: over
// a live sealed past, call after call with one counter, while steps are
// appended and blocks sealed, fail and mismatch, each context is the one the
// old build makes afresh.
import { describe, expect, it } from "vitest";
import { arraySource, buildContext, inStream, partSpan, type BuildOptions, type BuiltContext, type Summary } from "@/lib/context/build";
import { SealedPast } from "@/lib/context/sealed-past";
import { completeBlocks, type BlockRef } from "@/lib/context/staircase";
import { TokenCounter } from "@/lib/context/tokens";
import type { Step } from "@/lib/trajectory/schema";
import { buildContextByCuts, oldPartSpan } from "../helpers/build-by-cuts";
import { stepMaker } from "../helpers/steps";
import { mulberry32 } from "../helpers/random";

const random = mulberry32;

/** Runs of one role of every length (they join across the cut), empty texts, bookkeeping steps that show nothing. */
function stream(n: number, rnd: () => number): Step[] {
  const mk = stepMaker();
  const out: Step[] = [];
  let role = rnd() < 0.5;
  for (let i = 0; i < n; i++) {
    if (rnd() < 0.4) role = !role;
    const r = rnd();
    if (r < 0.05) out.push(mk("thought", { content: "" }));
    else if (role) out.push(r < 0.6 ? mk("reasoning", { thought: `thinking ${i} `.repeat(Math.floor(rnd() * 8)), cmd: `echo ${i}` }) : mk("thought", { content: `thought ${i}` }));
    else out.push(r < 0.6 ? mk("shell-output", { stdout: "out ".repeat(Math.floor(rnd() * 60)), stderr: "", exit: 0, exec_s: 0, timed_out: false }) : mk("message", { from: "Ada", to: "Reverie", content: `hello ${i}` }));
  }
  return out.filter(inStream);
}

const key = (b: BlockRef) => `${b.tier}:${b.index}`;
const whole = (b: BuiltContext, span = partSpan) => ({ messages: b.messages, tokens: b.tokens, parts: b.parts.map((p) => ({ ...p, step_ids: [...p.step_ids], span: span(p) })) });

describe("the search for the cut counts each cut's tokens as its assembled context has them", () => {
  it("at the budgets where a cut starts or stops fitting, on varied streams", () => {
    const rnd = random(5);
    let boundaries = 0;
    for (let round = 0; round < 25; round++) {
      const fanout = rnd() < 0.4 ? 3 : 10;
      const steps = stream(20 + Math.floor(rnd() * 400), rnd);
      const sealed = new Map<string, Summary>(
        completeBlocks(steps.length, { fanout })
          .filter(() => rnd() < 0.6)
          .map((b) => [key(b), { content: `I did ${key(b)}.`, cites: [] }]),
      );
      const pinned = rnd() < 0.5 ? steps[Math.floor(rnd() * steps.length)] : undefined;
      const held = rnd() < 0.3 ? Math.floor(rnd() * steps.length) : undefined;
      const src = { ...arraySource(steps), ...(held === undefined ? {} : { held, at: (p: number) => (p < held ? undefined : steps[p]) }) };
      const base: BuildOptions = {
        selfName: "Reverie",
        budget: Number.POSITIVE_INFINITY,
        tiers: { fanout },
        summary: (b) => sealed.get(key(b)),
        counter: new TokenCounter(),
        minVerbatim: Math.floor(rnd() * 30),
        maxVerbatim: 40 + Math.floor(rnd() * 200),
        ...(pinned ? { pinned } : {}),
        ...(rnd() < 0.3 ? { before: 1 + Math.floor(rnd() * 100) } : {}),
      };
      // What the context takes at each cut, assembled (a cut forced by its verbatim length).
      const budgets = new Set<number>();
      for (let v = 1; v <= Math.min(steps.length, base.maxVerbatim as number); v += fanout) {
        const forced = buildContextByCuts(src, { ...base, minVerbatim: v, maxVerbatim: v, counter: new TokenCounter() });
        budgets.add(forced.tokens);
        budgets.add(forced.tokens - 1);
      }
      for (const budget of budgets) {
        const now = buildContext(src, { ...base, budget, counter: new TokenCounter() });
        const then = buildContextByCuts(src, { ...base, budget, counter: new TokenCounter() });
        expect(whole(now)).toEqual(whole(then, oldPartSpan));
        boundaries++;
      }
    }
    expect(boundaries).toBeGreaterThan(300);
  }, 60_000);

  it("call after call over a live sealed past, one counter kept: what the old build makes afresh each time", () => {
    const rnd = random(9);
    const steps = stream(1800, rnd);
    const past = new SealedPast({ fanout: 10 });
    const counter = new TokenCounter();
    let taken = 0;
    const take = (n: number) => {
      past.extend(steps.slice(taken, taken + n).map((s, i) => ({ seq: taken + i + 1, type: s.type, step_id: s.step_id })));
      taken += n;
    };
    take(1200);
    past.loaded = true;
    const kinds = new Set<string>();
    for (let call = 0; call < 150; call++) {
      // A step or two appended; the index sometimes a call behind the tail.
      const appended = Math.min(steps.length, taken + 1 + Math.floor(rnd() * 3));
      if (rnd() < 0.8) take(appended - taken);
      const blocks = completeBlocks(past.length, past.tiers);
      for (let k = 0; k < 2; k++) {
        const b = blocks[Math.floor(rnd() ** 0.3 * blocks.length)] as BlockRef;
        const size = 10 ** (b.tier + 1);
        const r = rnd();
        // One text per block, always: a key's text never changes under one counter.
        if (r < 0.2) past.setMissing(b, rnd() < 0.5 ? "its summary failed; I will try again" : undefined);
        else if (!past.isSealed(b)) past.accept({ tier: b.tier, index: b.index, steps: size, first_step: r < 0.3 ? "nope" : (past.idAt(b.index * size) as string), last_step: past.idAt((b.index + 1) * size - 1) as string, content: `I did ${key(b)}.`, cites: [] });
      }
      const tail = steps.slice(Math.max(0, appended - 300), appended);
      const src = past.source(tail);
      const opts: BuildOptions = { selfName: "Reverie", budget: [600, 2_000, 16_000][call % 3] as number, tiers: past.tiers, summary: past.summary, missing: past.missing, counter, pinned: tail[3], plan: past.plan };
      const now = buildContext(src, opts);
      const then = buildContextByCuts(src, { ...opts, plan: undefined, counter: new TokenCounter() });
      expect(whole(now)).toEqual(whole(then, oldPartSpan));
      for (const p of now.parts) kinds.add(p.kind === "elided" ? `elided:${p.reason}` : p.kind);
    }
    expect([...kinds].sort()).toEqual(expect.arrayContaining(["tier", "verbatim", "pinned", "elided:not summarized yet", "elided:sealed summary does not match the stream", "elided:its summary failed; I will try again", "elided:over the token budget"]));
  }, 60_000);
});
