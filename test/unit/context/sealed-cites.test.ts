// A sealed summary's cites resolved against its block (lib/context/sealed-lookup.ts):
// an id itself, or the one id of the block a cite of 8 or more characters
// begins, case-blind. A block of printable-ASCII ids is searched as one text,
// any other id by id: both held here to the rule, spelled out plainly, on
// blocks made at random (mixed case, ids that share a head, cites of every
// length, cites that name nothing, ids past ASCII).
import { describe, expect, it } from "vitest";
import { arraySource } from "@/lib/context/build";
import { sealedLookup, type Rollup } from "@/lib/context/sealed-lookup";
import { DEFAULT_TIERS } from "@/lib/context/staircase";
import type { Step } from "@/lib/trajectory/schema";

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

/** The rule: for each cite (lower-cased), the one id that begins with it (8 or more) or equals it, else the id equal to it; each id once, in the cites' order. */
function expected(cites: readonly string[], ids: readonly string[]): string[] {
  const out: string[] = [];
  for (const cite of cites) {
    const c = cite.toLowerCase();
    const named = ids.filter((id) => id.toLowerCase() === c || (c.length >= 8 && id.toLowerCase().startsWith(c)));
    const id = named.length === 1 ? named[0] : ids.find((i) => i.toLowerCase() === c);
    if (id !== undefined && !out.includes(id)) out.push(id);
  }
  return out;
}

/** The cites a tier-1 summary over these 100 ids is shown with. */
function resolved(cites: string[], ids: string[]): readonly string[] {
  const steps = ids.map((step_id) => ({ type: "thought", step_id, ts: "2026-01-01T00:00:00.000Z", content: "x" }) as Step);
  const rollup: Rollup = { block: { tier: 1, index: 0 }, content: "a summary", cites, firstStep: ids[0], lastStep: ids[99], steps: 100, origin: "reverie" };
  return sealedLookup([rollup], arraySource(steps), DEFAULT_TIERS).summary({ tier: 1, index: 0 })?.cites ?? [];
}

describe("a sealed summary's cites", () => {
  it("resolve as the rule says, searched as text or id by id", () => {
    const r = rng(7);
    const hex = "0123456789abcdefABCDEF";
    const pick = (s: string) => s[Math.floor(r() * s.length)] ?? "0";
    const word = (n: number) => Array.from({ length: n }, () => pick(hex)).join("");
    for (let round = 0; round < 200; round++) {
      const past = round % 4 === 3;
      const heads = Array.from({ length: 3 }, () => word(8));
      const ids = new Set<string>();
      while (ids.size < 100) {
        const head = r() < 0.3 ? (heads[Math.floor(r() * 3)] ?? "") : word(8);
        ids.add(`${head}${r() < 0.1 ? "" : `-${word(4)}-${word(12)}`}${past && r() < 0.05 ? "é" : ""}`);
      }
      const list = [...ids];
      const cites = Array.from({ length: 1 + Math.floor(r() * 5) }, () => {
        const id = list[Math.floor(r() * list.length)] ?? "";
        const cite = r() < 0.2 ? word(8) : id.slice(0, [4, 8, 10, id.length][Math.floor(r() * 4)]);
        return r() < 0.3 ? cite.toUpperCase() : cite;
      });
      expect([round, resolved(cites, list)]).toEqual([round, expected(cites, list)]);
    }
  });

  it("a cite with the regex engine's characters in it is taken as written", () => {
    const ids = Array.from({ length: 100 }, (_, i) => `step.${String(i).padStart(3, "0")}+(x)`);
    expect(resolved(["STEP.042+(X)", "step.0", "step.01*", "step.099+(x"], ids)).toEqual(["step.042+(x)", "step.099+(x)"]);
  });
});
