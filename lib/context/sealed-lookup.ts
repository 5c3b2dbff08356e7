// Sealed summaries checked against the stream before buildContext may use
// them (rollups.ts reads them from their files). A summary is used only when
// its first and last step are the stream's at its block's ends: one made over
// a different filtering, or a different log, is ignored and its block says
// why. Headlong's rollups name no first or last step: they are counted, never
// used. No schema here, so the command line's context (which checks the lines
// of tiers.jsonl against their compiled form) loads no zod. Pure.
import type { ContextSource, Summary } from "./build";
import { blockRange, type BlockRef, type TierConfig } from "./staircase";

/** Reverie's sealed summaries: one line per block, beside the trajectory's trajectory.jsonl. */
export const TIERS_FILE = "tiers.jsonl";

/** The reason an elided block gives when its sealed summary is not of this stream. */
export const MISMATCH = "sealed summary does not match the stream";

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

/** Whether an archive path is a Headlong rollup block (`…/rollups/t1/000000000000-000000000010.json`). */
export function isHeadlongRollup(path: string): boolean {
  return /(^|\/)rollups\/t\d+\/\d+-\d+\.json$/.test(path);
}

/** The folder of the trajectory a Headlong rollup block belongs to. */
export function headlongRollupDir(path: string): string {
  return path.replace(/\/?rollups\/t\d+\/[^/]+$/, "");
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

/** A block's key: a number while tier and index are small non-negative integers (a thousand blocks are looked up: no string to make and hash for each), text past that. */
const key = (b: BlockRef): number | string => (b.tier >>> 0 === b.tier && b.tier < 32 && b.index >>> 0 === b.index && b.index < 2 ** 26 ? b.tier * 2 ** 26 + b.index : `${b.tier}:${b.index}`);

/** The block's ids a cite names: the id itself, or the one id of the block it is a prefix of (Headlong cites 8 hex). */
function resolveCites(cites: readonly string[], src: ContextSource, from: number, to: number): string[] {
  if (!cites.length) return [];
  const wanted = cites.map((c) => c.toLowerCase());
  if (wanted.some((c) => !c || NOT_PRINTABLE.test(c))) return citesById(wanted, src.ids(from, to));
  const lines = src.idLines?.(from, to);
  if (lines !== undefined) return citesByText(wanted, lines);
  const ids = src.ids(from, to);
  return NOT_PRINTABLE.test(ids.join("")) ? citesById(wanted, ids) : citesByText(wanted, `\n${ids.join("\n")}\n`);
}

/** Printable ASCII, and nothing else: what a search of the ids as one text may assume. */
const NOT_PRINTABLE = /[^ -~]/;

/**
 * resolveCites where every id and cite is printable ASCII (as every writer's
 * are): each cite looked for at the start of a line of `text`, the ids each
 * after a "\n" and the last followed by one (the source's own text, or the
 * ids joined), lower-cased, by the engine's own string search, which passes
 * over a tier-2 block's thousand ids without a call per id.
 */
function citesByText(wanted: readonly string[], text: string): string[] {
  // Lower-casing ASCII keeps every character where it was.
  const lower = text.toLowerCase();
  const out: string[] = [];
  for (const c of wanted) {
    let hits = 0;
    let hit: string | undefined;
    let whole: string | undefined;
    const line = `\n${c}`;
    for (let at = lower.indexOf(line); at >= 0; at = lower.indexOf(line, at + 1)) {
      // A line that begins with the cite: the id itself, or (a cite of 8 or more) one it is a prefix of.
      const end = text.indexOf("\n", at + 1);
      const id = text.slice(at + 1, end);
      if (id.length === c.length) whole ??= id;
      else if (c.length < 8) continue;
      hits++;
      hit = id;
    }
    const id = hits === 1 ? hit : whole;
    if (id !== undefined && !out.includes(id)) out.push(id);
  }
  return out;
}

/** resolveCites, id by id. */
function citesById(wanted: readonly string[], ids: readonly string[]): string[] {
  // One pass over the block (a thousand ids for a tier-2 block), each id held only to the cites that begin as it does.
  const byFirst: number[][] = [];
  wanted.forEach((c, k) => (byFirst[c.charCodeAt(0)] ??= []).push(k));
  const every = wanted.map((_, k) => k);
  const hits = wanted.map(() => 0);
  const hit: (string | undefined)[] = [];
  const whole: (string | undefined)[] = [];
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] ?? "";
    let a = id.charCodeAt(0);
    if (a >= 65 && a <= 90) a += 32;
    // Past ASCII, lower-casing may change the first character: every cite is asked.
    const ks = a < 128 ? byFirst[a] : every;
    if (!ks) continue;
    for (const k of ks) {
      const m = matchesCite(id, wanted[k] ?? "");
      if (!m) continue;
      hits[k] = (hits[k] ?? 0) + 1;
      hit[k] = id;
      if (m === "whole") whole[k] ??= id;
    }
  }
  const out: string[] = [];
  wanted.forEach((_, k) => {
    const id = hits[k] === 1 ? hit[k] : whole[k];
    if (id !== undefined && !out.includes(id)) out.push(id);
  });
  return out;
}

/**
 * Whether an id, lower-cased, is the cite `c` or (a cite of 8 or more) begins
 * with it. A tier-2 block holds a thousand ids and cites a few: an ASCII id is
 * compared in place rather than copied lower-cased, one past ASCII as ever.
 */
function matchesCite(id: string, c: string): "whole" | "prefix" | undefined {
  if (id.length < c.length) return undefined;
  for (let k = 0; k < c.length; k++) {
    const a = id.charCodeAt(k);
    if (a > 127) {
      const lower = id.toLowerCase();
      return lower === c ? "whole" : c.length >= 8 && lower.startsWith(c) ? "prefix" : undefined;
    }
    const b = c.charCodeAt(k);
    if (a !== b && !(a >= 65 && a <= 90 && a + 32 === b)) return undefined;
  }
  // An ASCII head lower-cases to the same length whatever follows it.
  if (id.length === c.length) return "whole";
  return c.length >= 8 ? "prefix" : undefined;
}

/** The lookups buildContext takes, over the summaries that match the stream; the first matching summary of a block wins. */
export function sealedLookup(rollups: readonly Rollup[], src: ContextSource, tiers: TierConfig): SealedLookup {
  // A block's cites are resolved when buildContext asks for its summary: it shows a dozen blocks of a thousand sealed.
  const sealed = new Map<number | string, { rollup: Rollup; from: number; to: number; summary?: Summary }>();
  const unmatched = new Set<number | string>();
  const report: SealedReport = { matched: 0, mismatched: 0, headlong: 0, duplicates: 0 };
  // Every block's ends are looked at: the stream's ids asked for once, not two at a time per summary.
  const ids = rollups.length ? src.ids(0, src.length) : [];
  // Block sizes by tier (F^(tier+1), as blockRange has them).
  const sizes: number[] = [];
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
    const size = r.block.tier >>> 0 === r.block.tier && r.block.tier < 32 ? (sizes[r.block.tier] ??= blockRange({ tier: r.block.tier, index: 1 }, tiers).from) : undefined;
    const { from, to } = size === undefined ? blockRange(r.block, tiers) : { from: r.block.index * size, to: (r.block.index + 1) * size };
    const fits = to <= src.length && r.steps === to - from && ids[from] === r.firstStep && ids[to - 1] === r.lastStep;
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
      return (s.summary ??= { content: s.rollup.content, cites: resolveCites(s.rollup.cites, src, s.from, s.to) });
    },
    missing: (b) => (unmatched.has(key(b)) ? MISMATCH : undefined),
    report,
  };
}
