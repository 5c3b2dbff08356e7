// tiers.jsonl as `reverie context` reads it (cli/context-tiers.ts): a line
// written as the summarizer writes one is taken by a pattern, its content and
// cites read when asked; every other line is parsed and checked. Held to
// lib/context/rollups.ts's parseTiers (zod) on random lines of both kinds.
import { describe, expect, it } from "vitest";
import { readTiers } from "@/cli/context-tiers";
import { parseTiers, type Rollup } from "@/lib/context/rollups";

/** A seeded generator, so a failure can be run again. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

const plain = (rollups: readonly Rollup[]) => rollups.map((r) => ({ block: r.block, content: r.content, cites: [...r.cites], firstStep: r.firstStep, lastStep: r.lastStep, steps: r.steps, origin: r.origin }));

/** Text of every kind JSON escapes or carries as it is. */
const PIECES = ["a", "Tide", " ", "é", "漢", "😀", '"', "\\", "\n", "\t", "\u0001", "\u001f", "\u007f", "\u2028", "/", "\ud800"];

function line(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const text = (min: number) => Array.from({ length: min + Math.floor(r() * 6) }, () => pick(PIECES)).join("");
  const id = () => (r() < 0.8 ? "0b0b0b0b-0000-4000-8000-00000000000" + Math.floor(r() * 10) : text(0));
  const n = () => pick([0, 1, 7, 10, 835, 2 ** 53 - 1, 2 ** 53, 1e16, -1, 1.5]);
  const fields: [string, unknown][] = [
    ["tier", n()],
    ["index", n()],
    ["content", text(r() < 0.1 ? 0 : 1)],
    ["cites", pick([[], [id()], [id(), id()], [""], undefined])],
    ["first_step", id()],
    ["last_step", id()],
    ["steps", pick([1, 10, 100, 0, -3, 2.5])],
  ];
  if (r() < 0.3) fields.push(["first_seq", n()]);
  if (r() < 0.3) fields.push(["last_seq", n()]);
  if (r() < 0.1) fields.push(["model", "m"]);
  // Now and then another key order, white space, or a line that is not JSON.
  if (r() < 0.1) fields.reverse();
  const json = JSON.stringify(Object.fromEntries(fields.filter(([, v]) => v !== undefined)), null, r() < 0.05 ? 1 : undefined).replaceAll("\n", "");
  return pick([json, json, json, json, json, ` ${json}`, `${json}\r`, json.slice(0, -1), ""]);
}

describe("tiers.jsonl as reverie context reads it", () => {
  it("gives what parseTiers gives, line for line: the summaries, their fields, and the lines skipped", async () => {
    const r = rng(41);
    for (let k = 0; k < 40; k++) {
      const text = Array.from({ length: 1 + Math.floor(r() * 40) }, () => line(r)).join("\n");
      const read = await readTiers(text);
      const exact = parseTiers(text);
      expect({ rollups: plain(read.rollups), skipped: read.skipped }).toEqual({ rollups: plain(exact.rollups), skipped: exact.skipped });
    }
  });

  it("takes a line as the summarizer writes it without parsing its content, read when asked", async () => {
    const written = JSON.stringify({ tier: 1, index: 2, content: 'a "quoted" é\nline', cites: ["x1", "y2"], first_step: "a", last_step: "b", steps: 100, first_seq: 3, last_seq: 102 });
    const { rollups, skipped } = await readTiers(`${written}\n`);
    expect(skipped).toBe(0);
    expect(rollups[0]?.constructor.name).not.toBe("Object");
    expect(plain(rollups)).toEqual([{ block: { tier: 1, index: 2 }, content: 'a "quoted" é\nline', cites: ["x1", "y2"], firstStep: "a", lastStep: "b", steps: 100, origin: "reverie" }]);
  });
});
