// Sealed summaries read back from beside a trajectory, checked against the
// stream before buildContext may use them. Reverie's own are the lines of
// `tiers.jsonl`; Headlong's are `rollups/t<k>/<start>-<end>.json` files, whose
// positions count Headlong's own filtered steps (not this stream) and which
// name no first or last step, so they are read, counted and never used. A
// summary is used only when its first and last step are the stream's at its
// block's ends: one made over a different filtering, or a different log, is
// ignored and its block says why. Pure: the caller reads the files.
import * as z from "zod";
import { compiledOnUse } from "../trajectory/compiled";
import type { Rollup } from "./sealed-lookup";
import type { TierConfig } from "./staircase";

// What callers of the summaries import from here, wherever it is defined.
export { headlongRollupDir, isHeadlongRollup, MISMATCH, sealedLookup, TIERS_FILE, type Rollup, type SealedLookup, type SealedReport } from "./sealed-lookup";

/** One line of tiers.jsonl (and a row of the tiers table). Extra fields (model, prompt_version, created, themes) are allowed and ignored. */
export const TierLine = z.object({
  tier: z.number().int().min(0),
  index: z.number().int().min(0),
  content: z.string().min(1),
  cites: z.array(z.string().min(1)).default([]),
  first_step: z.string().min(1),
  last_step: z.string().min(1),
  steps: z.number().int().positive(),
  /**
   * The store's seqs of the first and last step: a database's own numbering,
   * so a live mind can place its sealed past without reading every position.
   * Absent from older rows and from tiers.jsonl (another database numbers its steps anew).
   */
  first_seq: z.number().int().nonnegative().optional(),
  last_seq: z.number().int().nonnegative().optional(),
});
export type TierLine = z.infer<typeof TierLine>;

/** The fields of a Headlong rollup block that matter here (its tier 1 is blocks of F steps, Reverie's tier 0). */
const HeadlongBlock = z.object({
  tier: z.number().int().min(1),
  start: z.number().int().min(0),
  end: z.number().int().min(1),
  summary: z.string().min(1),
  step_ids: z.array(z.string().min(1)).default([]),
});

const tierLine = compiledOnUse(TierLine);

/** Who wrote a tiers.jsonl line, and when, as far as it says: a field that is not text is left out. */
function provenance(value: object): { model?: string; created?: string } {
  const model = "model" in value ? value.model : undefined;
  const created = "created" in value ? value.created : undefined;
  return { ...(typeof model === "string" ? { model } : {}), ...(typeof created === "string" ? { created } : {}) };
}

/** A line of tiers.jsonl as read: the sealed summary, and who wrote it when the line says. */
export type ReadTierLine = TierLine & { model?: string; created?: string };

/** tiers.jsonl's lines; a line that is not a sealed summary is skipped and counted. */
export function readTierLines(text: string): { lines: ReadTierLine[]; skipped: number } {
  const lines: ReadTierLine[] = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    const parsed = tierLine().safeParse(value);
    if (!parsed.success || typeof value !== "object" || value === null) {
      skipped++;
      continue;
    }
    lines.push({ ...parsed.data, ...provenance(value) });
  }
  return { lines, skipped };
}

/** tiers.jsonl as rollups; a line that is not a sealed summary is skipped and counted. */
export function parseTiers(text: string): { rollups: Rollup[]; skipped: number } {
  const { lines, skipped } = readTierLines(text);
  const rollups = lines.map((t): Rollup => ({ block: { tier: t.tier, index: t.index }, content: t.content, cites: t.cites, firstStep: t.first_step, lastStep: t.last_step, steps: t.steps, origin: "reverie" }));
  return { rollups, skipped };
}

/** One Headlong block file, on Reverie's tiers (null: not a block, or not one the staircase has). */
export function parseHeadlongRollup(text: string, tiers: TierConfig): Rollup | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = HeadlongBlock.safeParse(value);
  if (!parsed.success) return null;
  const { tier, start, end, summary, step_ids } = parsed.data;
  const size = tiers.fanout ** tier;
  // Another fanout, or a range off the block grid: no block of ours.
  if (end - start !== size || start % size !== 0) return null;
  return { block: { tier: tier - 1, index: start / size }, content: summary, cites: step_ids, steps: size, origin: "headlong" };
}

