// What buildContext keeps between calls lives in the BuildCache its caller
// hands in (lib/context/build-cache.ts), not in the module: a cache kept
// across calls is used again, two caches share nothing, and a call without
// one keeps nothing. The counter below counts the token lookups a build
// makes: a warm cache makes none, a cold one makes one per step shown and per
// summary or elision note.
import { describe, expect, it } from "vitest";
import { arraySource, BuildCache, buildContext, partSpan, type BuildOptions, type BuiltContext, type ContextPart, type Summary } from "@/lib/context/build";
import { completeBlocks, type BlockRef } from "@/lib/context/staircase";
import { TokenCounter } from "@/lib/context/tokens";
import type { Step } from "@/lib/trajectory/schema";
import { stepMaker } from "../helpers/steps";

const TIERS = { fanout: 10 };
const key = (b: BlockRef) => `${b.tier}:${b.index}`;

class CountingCounter extends TokenCounter {
  lookups = 0;
  cached(key: string, text: string): number {
    this.lookups++;
    return super.cached(key, text);
  }
}

/** 1,234 thoughts, every complete block summarized but tier-0 block 40 (an elision, with its reason). */
function life() {
  const mk = stepMaker();
  const steps: Step[] = Array.from({ length: 1234 }, (_, i) => mk("thought", { content: `thought number ${i}` }));
  const sealed = new Map<string, Summary>(completeBlocks(steps.length, TIERS).filter((b) => key(b) !== "0:40" && key(b) !== "1:4" && key(b) !== "2:0").map((b) => [key(b), { content: `I did block ${key(b)}.`, cites: [] }]));
  const counter = new CountingCounter();
  const opts = (cache?: BuildCache): BuildOptions => ({
    selfName: "Reverie",
    budget: 3_000,
    tiers: TIERS,
    summary: (b) => sealed.get(key(b)),
    missing: (b) => (key(b) === "0:40" ? "the summarizer failed: HTTP 500" : undefined),
    counter,
    maxVerbatim: 40,
    ...(cache ? { cache } : {}),
  });
  return { src: arraySource(steps), counter, opts };
}

/** A build and the token lookups it made. */
function build(l: ReturnType<typeof life>, cache?: BuildCache): { built: BuiltContext; lookups: number } {
  const before = l.counter.lookups;
  const built = buildContext(l.src, l.opts(cache));
  return { built, lookups: l.counter.lookups - before };
}

/** The summaries' and elisions' parts: what the cache keeps from call to call. */
const noted = (b: BuiltContext) => b.parts.filter((p) => p.kind === "tier" || p.kind === "elided");

const short = (p: ContextPart) => (p.kind === "tier" ? `t${p.tier}:${p.index}` : p.kind === "elided" ? `e${p.tier}:${p.index}` : `v${p.step_ids.length}`);

/** The whole result as `reverie context --json` prints it, spans included. */
const whole = (b: BuiltContext) => JSON.stringify({ ...b, spans: b.parts.map(partSpan) });

describe("BuildCache: what buildContext keeps between calls is its caller's", () => {
  it("the context under test: summaries, an elision, a verbatim tail; a cold build looks each of them up", () => {
    const l = life();
    const { built, lookups } = build(l, new BuildCache());
    expect(built.parts.map(short).join(" ")).toBe("t1:0 t1:1 t1:2 t1:3 e0:40 t0:41 t0:42 t0:43 t0:44 t0:45 t0:46 t0:47 t0:48 t0:49 t1:5 t1:6 t1:7 t1:8 t1:9 t1:10 t1:11 v34");
    // The 21 notes, the first summary again with the hint on reading steps, the summary of block 0:120 (the first cut tried, at 1210, shows it), the 34 steps.
    expect(lookups).toBe(21 + 1 + 1 + 34);
  });

  it("a cache kept across calls is used again: the same context, no lookup, the same parts", () => {
    const l = life();
    const cache = new BuildCache();
    const first = build(l, cache);
    const again = build(l, cache);
    expect(whole(again.built)).toBe(whole(first.built));
    expect(again.lookups).toBe(0);
    noted(again.built).forEach((p, i) => expect(p).toBe(noted(first.built)[i]));
  });

  it("two caches share nothing: a build with A leaves B cold, and a build with B leaves A as it was", () => {
    const l = life();
    const a = new BuildCache();
    const b = new BuildCache();
    const withA = build(l, a);
    const withB = build(l, b);
    // The same context, byte for byte, but B made every piece afresh: none of A's pieces, every lookup again.
    expect(whole(withB.built)).toBe(whole(withA.built));
    expect(withB.lookups).toBe(withA.lookups);
    expect(withB.lookups).toBeGreaterThan(0);
    for (const p of noted(withB.built)) expect(noted(withA.built)).not.toContain(p);
    // A is still warm with its own pieces.
    const againA = build(l, a);
    expect(againA.lookups).toBe(0);
    noted(againA.built).forEach((p, i) => expect(p).toBe(noted(withA.built)[i]));
  });

  it("a call without a cache keeps nothing for the next one", () => {
    const l = life();
    const first = build(l);
    const second = build(l);
    expect(whole(second.built)).toBe(whole(first.built));
    expect(second.lookups).toBe(first.lookups);
    for (const p of noted(second.built)) expect(noted(first.built)).not.toContain(p);
  });

  it("a part's span is beside its fields: partSpan reads it, JSON and toEqual do not see it", () => {
    const l = life();
    const { built } = build(l, new BuildCache());
    const elided = built.parts.find((p) => p.kind === "elided");
    expect(elided && partSpan(elided)).toEqual({ from: 400, to: 410 });
    expect(elided && Object.keys(JSON.parse(JSON.stringify(elided)))).toEqual(["kind", "tier", "index", "reason", "tokens", "step_ids"]);
    const ids = Array.from({ length: 10 }, (_, i) => l.src.ids(400 + i, 401 + i)[0]);
    expect(elided).toEqual({ kind: "elided", tier: 0, index: 40, reason: "the summarizer failed: HTTP 500", tokens: elided?.tokens, step_ids: ids });
  });
});
