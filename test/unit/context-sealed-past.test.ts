// lib/context/sealed-past.ts: the stream's positions from the keys-only
// index, the tail from memory, and which stored summaries are taken.
import { describe, expect, it } from "vitest";
import { buildContext, inStream, inStreamType } from "@/lib/context/build";
import { MISMATCH } from "@/lib/context/rollups";
import { SealedPast } from "@/lib/context/sealed-past";
import { DEFAULT_TIERS } from "@/lib/context/staircase";
import { TokenCounter } from "@/lib/context/tokens";
import { KNOWN_KINDS, type Step } from "@/lib/trajectory/schema";
import { stepMaker } from "./helpers/steps";

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
});
