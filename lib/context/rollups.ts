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
import type { ContextSource, Summary } from "./build";
import { blockRange, type BlockRef, type TierConfig } from "./staircase";

/** Reverie's sealed summaries: one line per block, beside the trajectory's trajectory.jsonl. */
export const TIERS_FILE = "tiers.jsonl";

/** The reason an elided block gives when its sealed summary is not of this stream. */
export const MISMATCH = "sealed summary does not match the stream";

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

/** A sealed summary as read, before it is checked against the stream. */
export interface Rollup {
  block: BlockRef;
  content: string;
  cites: readonly string[];
  /** What ties it to the stream; Headlong's blocks carry neither step. */
  firstStep?: string;
  lastStep?: string;
  steps: number;
  origin: "reverie" | "headlong";
}

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

/** Whether an archive path is a Headlong rollup block (`…/rollups/t1/000000000000-000000000010.json`). */
export function isHeadlongRollup(path: string): boolean {
  return /(^|\/)rollups\/t\d+\/\d+-\d+\.json$/.test(path);
}

/** The folder of the trajectory a Headlong rollup block belongs to. */
export function headlongRollupDir(path: string): string {
  return path.replace(/\/?rollups\/t\d+\/[^/]+$/, "");
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

export interface SealedReport {
  /** Summaries that match the stream, one per block (shown or not: a coarser one may cover them). */
  matched: number;
  /** Reverie's summaries whose block does not hold the steps they name. */
  mismatched: number;
  /** Headlong's blocks, never used: they count Headlong's filtered steps. */
  headlong: number;
  /** Later summaries of a block that already has one (the first one sealed it). */
  duplicates: number;
}

export interface SealedLookup {
  summary: (block: BlockRef) => Summary | undefined;
  missing: (block: BlockRef) => string | undefined;
  report: SealedReport;
}

const key = (b: BlockRef) => `${b.tier}:${b.index}`;

/** The block's ids a cite names: the id itself, or the one id of the block it is a prefix of (Headlong cites 8 hex). */
function resolveCites(cites: readonly string[], ids: readonly string[]): string[] {
  const out: string[] = [];
  const lower = ids.map((id) => id.toLowerCase());
  for (const cite of cites) {
    const c = cite.toLowerCase();
    const hits = ids.filter((_, i) => lower[i] === c || (c.length >= 8 && lower[i]?.startsWith(c) === true));
    const id = hits.length === 1 ? hits[0] : hits.find((h) => h.toLowerCase() === c);
    if (id !== undefined && !out.includes(id)) out.push(id);
  }
  return out;
}

/** The lookups buildContext takes, over the summaries that match the stream; the first matching summary of a block wins. */
export function sealedLookup(rollups: readonly Rollup[], src: ContextSource, tiers: TierConfig): SealedLookup {
  // A block's cites are resolved when buildContext asks for its summary: it shows a dozen blocks of a thousand sealed.
  const sealed = new Map<string, { rollup: Rollup; from: number; to: number; summary?: Summary }>();
  const unmatched = new Set<string>();
  const report: SealedReport = { matched: 0, mismatched: 0, headlong: 0, duplicates: 0 };
  for (const r of rollups) {
    const k = key(r.block);
    if (r.origin === "headlong") {
      report.headlong++;
      unmatched.add(k);
      continue;
    }
    if (sealed.has(k)) {
      report.duplicates++;
      continue;
    }
    const { from, to } = blockRange(r.block, tiers);
    const fits = to <= src.length && r.steps === to - from && src.ids(from, from + 1)[0] === r.firstStep && src.ids(to - 1, to)[0] === r.lastStep;
    if (!fits) {
      report.mismatched++;
      unmatched.add(k);
      continue;
    }
    sealed.set(k, { rollup: r, from, to });
    report.matched++;
  }
  return {
    summary: (b) => {
      const s = sealed.get(key(b));
      if (!s) return undefined;
      return (s.summary ??= { content: s.rollup.content, cites: resolveCites(s.rollup.cites, src.ids(s.from, s.to)) });
    },
    missing: (b) => (unmatched.has(key(b)) ? MISMATCH : undefined),
    report,
  };
}
