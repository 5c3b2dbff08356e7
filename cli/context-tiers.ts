// tiers.jsonl's sealed summaries as `reverie context` reads them: each line
// checked as lib/context/rollups.ts's parseTiers would check it, by the
// schema's compiled form (zod reads the file only when that cannot tell). A
// line written as the summarizer writes one (the keys in its order, no white
// space, the ids plain) is told valid by one match of a pattern that only
// such a valid line matches, its numbers and ids read from the match, and its
// content and cites left as JSON text until a summary is shown: a life of
// 10,000 steps has 835 summaries and shows a dozen.
import type { Rollup } from "../lib/context/sealed-lookup";
import { checkTierValue } from "./step-check";

/** A JSON string of one character or more, its escapes as JSON has them (no raw control character, quote or backslash). */
const STRING = String.raw`"(?!")[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*)*"`;
/** One with no escape, read as it is written. */
const PLAIN = String.raw`"([^"\\\u0000-\u001f]+)"`;
/** A non-negative integer of at most 15 digits: a safe one. */
const COUNT = String.raw`(0|[1-9][0-9]{0,14})`;
/**
 * A tiers.jsonl line as the summarizer writes it (lib/mind/summaries/summarizer.ts),
 * which JSON.parse reads as an object TierLine accepts, with these fields and
 * no others: every field's value is of its type and within its bounds
 * (lengths of one or more, integers from 0, steps from 1).
 */
const WRITTEN = new RegExp(
  String.raw`^\{"tier":${COUNT},"index":${COUNT},"content":(${STRING}),"cites":(\[(?:${STRING}(?:,${STRING})*)?\]),"first_step":${PLAIN},"last_step":${PLAIN},"steps":([1-9][0-9]{0,14})(?:,"first_seq":(?:0|[1-9][0-9]{0,14}))?(?:,"last_seq":(?:0|[1-9][0-9]{0,14}))?\}$`,
);

/** A sealed summary whose content and cites are read (JSON.parse of their text, which the pattern has checked) when asked for. */
class Written implements Rollup {
  readonly origin = "reverie";
  private read?: { content: string; cites: string[] };

  constructor(
    readonly block: { tier: number; index: number },
    readonly firstStep: string,
    readonly lastStep: string,
    readonly steps: number,
    private readonly json: { content: string; cites: string },
  ) {}

  private get parts(): { content: string; cites: string[] } {
    if (!this.read) {
      // The pattern matched a string and an array of strings: what JSON.parse gives is of those types, told here to TypeScript.
      const content: unknown = JSON.parse(this.json.content);
      const cites: unknown = JSON.parse(this.json.cites);
      this.read = { content: typeof content === "string" ? content : "", cites: Array.isArray(cites) ? cites.filter((c): c is string => typeof c === "string") : [] };
    }
    return this.read;
  }
  get content(): string {
    return this.parts.content;
  }
  get cites(): string[] {
    return this.parts.cites;
  }
}

/** tiers.jsonl's sealed summaries (each line checked by the compiled schema; zod reads the file only when that cannot tell), and how many lines are not one. */
export async function readTiers(text: string): Promise<{ rollups: Rollup[]; skipped: number }> {
  const rollups: Rollup[] = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    const m = WRITTEN.exec(line);
    if (m) {
      rollups.push(new Written({ tier: Number(m[1]), index: Number(m[2]) }, m[5] ?? "", m[6] ?? "", Number(m[7]), { content: m[3] ?? "", cites: m[4] ?? "" }));
      continue;
    }
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    const ok = value !== null && typeof value === "object" ? checkTierValue(value) : false;
    if (ok === undefined) return (await import("../lib/context/rollups")).parseTiers(text);
    if (!ok || value === null || typeof value !== "object" || !isTierLine(value)) {
      skipped++;
      continue;
    }
    // What zod's parse of a valid line gives, field for field (cites default to none).
    rollups.push({ block: { tier: value.tier, index: value.index }, content: value.content, cites: value.cites ?? [], firstStep: value.first_step, lastStep: value.last_step, steps: value.steps, origin: "reverie" });
  }
  return { rollups, skipped };
}

/** The fields of a line checkTierValue has accepted, told to TypeScript (their types, as the schema has them). */
function isTierLine(v: object): v is { tier: number; index: number; content: string; cites?: string[]; first_step: string; last_step: string; steps: number } {
  return (
    "tier" in v && typeof v.tier === "number" && "index" in v && typeof v.index === "number" && "content" in v && typeof v.content === "string" &&
    "first_step" in v && typeof v.first_step === "string" && "last_step" in v && typeof v.last_step === "string" && "steps" in v && typeof v.steps === "number" &&
    (!("cites" in v) || v.cites === undefined || (Array.isArray(v.cites) && v.cites.every((c) => typeof c === "string")))
  );
}

