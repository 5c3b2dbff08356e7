// lib/context/sealed-past.ts: the stream's positions from the keys-only
// index, the tail from memory, and which stored summaries are taken.
import { describe, expect, it } from "vitest";
import { buildContext, IDLE_BUDGET, inStream, inStreamType, type BuildOptions } from "@/lib/context/build";
import { seenCall } from "@/lib/context/replay";
import { MISMATCH } from "@/lib/context/rollups";
import { DENSE_TAIL, SealedPast, type SealedTier } from "@/lib/context/sealed-past";
import { blockRange, completeBlocks, DEFAULT_TIERS } from "@/lib/context/staircase";
import { TokenCounter } from "@/lib/context/tokens";
import { KNOWN_KINDS, type Step } from "@/lib/trajectory/schema";
import { stepMaker } from "../helpers/steps";

function life(n: number) {
  const step = stepMaker();
  const steps: Step[] = [step("trajectory", { name: "m" })];
  for (let i = 0; i < n; i++) steps.push(i % 4 === 3 ? step("wake", { reason: "scheduled", level: 0, delay_s: 0 }) : step("thought", { content: `thought ${i}` }));
  return steps;
}
const keysOf = (steps: readonly Step[], from = 0) => steps.map((s, i) => ({ seq: from + i + 1, type: s.type, step_id: s.step_id }));
const streamIds = (steps: readonly Step[]) => steps.filter(inStream).map((s) => s.step_id);

describe("SealedPast", () => {
  it("places steps by kind alone, as inStream does", () => {
    for (const type of [...Object.keys(KNOWN_KINDS), "some-new-kind"]) {
      const step = { type, step_id: "x", ts: "2026-01-01T00:00:00.000Z", content: "c" } as Step;
      expect(inStreamType(type)).toBe(inStream(step));
    }
    expect(["trajectory", "shellm-run", "config", "monolith-wake", "wake"].filter(inStreamType)).toEqual([]);
  });

  it("takes in the index once, in seq order, and only the stream's kinds", () => {
    const steps = life(40);
    const past = new SealedPast(DEFAULT_TIERS);
    expect(past.extend(keysOf(steps.slice(0, 20)))).toBe(streamIds(steps.slice(0, 20)).length);
    expect(past.extend(keysOf(steps.slice(0, 20)))).toBe(0);
    past.extend(keysOf(steps.slice(20), 20));
    expect(past.ids(0, past.length)).toEqual(streamIds(steps));
    expect(past.lastSeq).toBe(steps.length);
  });

  it("takes a stored summary only when its ends are the stream's; the first of a block wins", () => {
    const steps = life(40);
    const past = new SealedPast(DEFAULT_TIERS);
    past.extend(keysOf(steps));
    const ids = past.ids(0, 10);
    const good = { tier: 0, index: 0, content: "I thought.", cites: [ids[2] as string], first_step: ids[0] as string, last_step: ids[9] as string, steps: 10 };
    expect(past.accept({ ...good, index: 1 })).toBe("mismatch");
    expect(past.missing({ tier: 0, index: 1 })).toBe(MISMATCH);
    expect(past.accept(good)).toBe("sealed");
    expect(past.accept({ ...good, content: "Another." })).toBe("duplicate");
    expect(past.summary({ tier: 0, index: 0 })).toEqual({ content: "I thought.", cites: [ids[2]] });
    expect(past.pending()).toEqual([{ tier: 0, index: 1 }, { tier: 0, index: 2 }]);
  });

  it("a source over the tail: steps the index lacks follow it, index entries the tail lacks wait, and the verbatim tail starts where the tail does", () => {
    const steps = life(200);
    const past = new SealedPast(DEFAULT_TIERS);
    // The index lags by the last 6 raw steps (just written); the tail is the last 60.
    past.extend(keysOf(steps.slice(0, -6)));
    const tail = steps.slice(-60);
    const src = past.source(tail);
    const all = streamIds(steps);
    expect(src.length).toBe(all.length);
    expect(src.ids(0, src.length)).toEqual(all);
    expect(src.held).toBe(all.indexOf(streamIds(tail)[0] as string));
    for (let p = 0; p < src.length; p++) expect(src.at(p)?.step_id).toBe(p >= (src.held ?? 0) ? all[p] : undefined);

    // The index has a step the tail has not seen yet (another tab's message): it waits for the next call.
    const later = stepMaker({ start: Date.parse("2030-01-01T00:00:00.000Z") })("message", { from: "ada", to: "m", content: "hi" });
    past.extend(keysOf([...steps.slice(-6), later], steps.length - 6));
    expect(past.source(tail).ids(0, all.length + 1)).toEqual(all);

    // buildContext never shows verbatim what is not at hand: the first block boundary at or after `held`.
    const built = buildContext(past.source(tail), { selfName: "m", budget: 100_000, tiers: DEFAULT_TIERS, summary: () => undefined, counter: new TokenCounter(), maxVerbatim: 1000 });
    const verbatim = built.parts.find((p) => p.kind === "verbatim");
    expect(verbatim?.step_ids[0]).toBe(all[Math.ceil((src.held ?? 0) / 10) * 10]);
    expect(built.parts.flatMap((p) => p.step_ids)).toEqual(all);
  });

  describe("seeded from summaries that carry their seqs", () => {
    // 2,000 raw steps, 1,500 in the stream: 150 tier-0 blocks, 15 of tier 1, one of tier 2, all sealed with their seqs.
    const steps = life(2000);
    const keys = keysOf(steps);
    const all = streamIds(steps);
    const seqOf = new Map(keys.map((k) => [k.step_id, k.seq]));
    const sealedRows: SealedTier[] = completeBlocks(all.length, DEFAULT_TIERS).map((b) => {
      const { from, to } = blockRange(b, DEFAULT_TIERS);
      const first = all[from] as string;
      const last = all[to - 1] as string;
      return { ...b, content: `I lived block ${b.tier}:${b.index}.`, cites: [all[from + 1] as string], first_step: first, last_step: last, steps: to - from, first_seq: seqOf.get(first), last_seq: seqOf.get(last) };
    });
    const full = () => {
      const past = new SealedPast(DEFAULT_TIERS);
      past.extend(keys);
      for (const t of sealedRows) past.accept(t);
      return past;
    };
    const seeded = (rows: readonly SealedTier[] = sealedRows, dense?: number) => {
      const past = new SealedPast(DEFAULT_TIERS);
      const after = past.seed(rows, dense);
      past.extend(keys.filter((k) => k.seq > after));
      for (const t of rows) past.accept(t);
      return { past, after, read: keys.filter((k) => k.seq > after).length };
    };

    it("reads the index only after its sealed prefix (less a margin for the tail), and builds the very context a full read builds", () => {
      const { past, after, read } = seeded();
      const whole = full();
      expect(past.prefixLength).toBe(1500 - Math.ceil(DENSE_TAIL / 10) * 10);
      expect(after).toBe(seqOf.get(all[past.prefixLength - 1] as string));
      expect(read).toBeLessThan(DENSE_TAIL * 1.5);
      expect([past.length, past.sealedCount, past.lastSeq]).toEqual([whole.length, whole.sealedCount, whole.lastSeq]);
      expect(past.pending()).toEqual([]);
      const tail = steps.slice(-300);
      // 300 tokens: over budget even at its smallest, the oldest tiers fold (counted by their extent, not by reading their ids).
      for (const budget of [16_000, IDLE_BUDGET, 300]) {
        const opts = (p: SealedPast): BuildOptions => ({ selfName: "m", budget, tiers: DEFAULT_TIERS, summary: p.summary, missing: p.missing, counter: new TokenCounter(), pinned: tail.at(-1) });
        const a = past.source(tail);
        const b = whole.source(tail);
        const built = buildContext(a, opts(past));
        const expected = buildContext(b, opts(whole));
        expect(built.messages).toEqual(expected.messages);
        expect(built.tokens).toBe(expected.tokens);
        // What the inspector records names each part by its ends: the same from either past.
        const call = { step_id: "s", run_id: "r", traj_id: "t", iteration: 1, system: [] };
        expect(seenCall(built, opts(past), a, call)).toEqual(seenCall(expected, opts(whole), b, call));
      }
      const small = buildContext(past.source(tail), { selfName: "m", budget: 300, tiers: DEFAULT_TIERS, summary: past.summary, counter: new TokenCounter() });
      expect(small.parts.some((p) => p.kind === "elided" && p.reason === "over the token budget")).toBe(true);
    });

    it("knows a sealed prefix block by its ends only, and says so rather than guess", () => {
      const { past } = seeded();
      expect([past.idAt(0), past.idAt(9), past.idAt(10), past.idAt(5)]).toEqual([all[0], all[9], all[10], undefined]);
      expect(past.seqRange({ tier: 1, index: 0 })).toEqual({ first: seqOf.get(all[0] as string), last: seqOf.get(all[99] as string) });
      expect(() => past.ids(0, 10)).toThrow(/sealed past/);
      expect(past.ids(past.prefixLength, past.prefixLength + 3)).toEqual(all.slice(past.prefixLength, past.prefixLength + 3));
    });

    it("stops the prefix at the first block without seqs (an older row) or with seqs out of order; none at all reads everything", () => {
      const noSeqs = sealedRows.map((t) => (t.tier === 0 && t.index === 3 ? { ...t, first_seq: undefined, last_seq: undefined } : t));
      expect(seeded(noSeqs, 0).past.prefixLength).toBe(30);
      const backwards = sealedRows.map((t) => (t.tier === 0 && t.index === 5 ? { ...t, first_seq: 1 } : t));
      expect(seeded(backwards, 0).past.prefixLength).toBe(50);
      const old = seeded(sealedRows.map(({ first_seq: _f, last_seq: _l, ...t }) => t));
      expect([old.after, old.past.prefixLength, old.read]).toEqual([0, 0, keys.length]);
      expect(old.past.ids(0, old.past.length)).toEqual(all);
      // A short past is read in full: the margin covers all of it.
      expect(seeded(sealedRows.filter((t) => t.tier === 0 && t.index < 40)).past.prefixLength).toBe(0);
    });
  });
});
