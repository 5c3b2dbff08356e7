// Tiered compaction, as a plan over positions in the filtered stream. The
// stream is cut into blocks of F steps (tier 0); F blocks of tier t make a
// block of tier t+1. A complete block is summarized once and sealed. The
// context is a staircase: the oldest past in the coarsest sealed blocks, finer
// ones nearer now, then the newest steps verbatim. Every position is covered
// exactly once; a block whose summary is missing falls back to its children,
// and a tier-0 block without one is elided (with the reason). Pure.

export interface TierConfig {
  /** Steps per tier-0 block, and blocks per block of the next tier. */
  fanout: number;
}

export const DEFAULT_TIERS: TierConfig = { fanout: 10 };

/** A block: tier t, index i covers positions [i·F^(t+1), (i+1)·F^(t+1)). */
export interface BlockRef {
  tier: number;
  index: number;
}

export type PlanPart =
  | { kind: "tier"; tier: number; index: number; from: number; to: number }
  | { kind: "elided"; tier: number; index: number; from: number; to: number; reason: string }
  | { kind: "verbatim"; from: number; to: number };

/** Positions a block covers. */
export function blockRange(block: BlockRef, cfg: TierConfig): { from: number; to: number } {
  const size = cfg.fanout ** (block.tier + 1);
  return { from: block.index * size, to: (block.index + 1) * size };
}

/** Why a block has no summary (undefined: it has one). */
export type SealedLookup = (block: BlockRef) => "sealed" | { missing: string };

/**
 * Cover [0, cut) with blocks, coarsest first, then [cut, n) verbatim. `cut`
 * must be a multiple of the fanout (the caller aligns it).
 */
export function plan(n: number, cut: number, cfg: TierConfig, sealed: SealedLookup): PlanPart[] {
  return planner(cfg, sealed)(n, cut);
}

/** `plan` with the covers of blocks remembered (see `planner`). */
export interface Planner {
  (n: number, cut: number): PlanPart[];
  /** The lookup's answer for this block changed (it was sealed, or why it is not changed): work out its cover, and its ancestors', again. */
  forget(block: BlockRef): void;
  /** The parts that cover [0, cut): the same array for a cut until an answer changes (read-only). */
  staircase(cut: number): readonly PlanPart[];
}

/** Staircases a planner keeps (one per cut), at most: a run's calls try some 20 cuts near the end of the stream. */
const MAX_STAIRCASES = 256;

/**
 * `plan` for many cuts of one stream: the blocks a cut starts with are the
 * blocks the cuts near it start with too, so each block's cover (its summary,
 * or its children's, down to elisions) is worked out once and shared by every
 * plan that contains it. buildContext tries up to 19 cuts per call; a caller
 * that keeps a planner across calls (a live trajectory's sealed past) tells
 * it which blocks' answers changed (`forget`). The parts are shared between
 * plans: treat them as read-only.
 */
export function planner(cfg: TierConfig, sealed: SealedLookup): Planner {
  const F = cfg.fanout;
  // By tier, then index: the parts that cover a block.
  const covers: PlanPart[][][] = [];
  const cover = (block: BlockRef, into: PlanPart[]) => {
    const { from, to } = blockRange(block, cfg);
    const s = sealed(block);
    if (s === "sealed") return void into.push({ kind: "tier", ...block, from, to });
    if (block.tier === 0) return void into.push({ kind: "elided", ...block, from, to, reason: s.missing });
    for (let c = 0; c < F; c++) cover({ tier: block.tier - 1, index: block.index * F + c }, into);
  };
  const coverOf = (tier: number, index: number): PlanPart[] => {
    const row = (covers[tier] ??= []);
    let parts = row[index];
    if (!parts) cover({ tier, index }, (row[index] = parts = []));
    return parts;
  };
  // By cut: the blocks that cover [0, cut). A run's calls try the same cuts again and again (a block boundary stays one); any change of an answer lets them all go.
  let staircases = new Map<number, PlanPart[]>();
  const staircaseOf = (cut: number): PlanPart[] => {
    let parts = staircases.get(cut);
    if (parts) return parts;
    parts = [];
    let p = 0;
    while (p < cut) {
      // The coarsest block that starts at p and ends by the cut.
      let tier = 0;
      let size = F;
      while (p % (size * F) === 0 && p + size * F <= cut) {
        tier++;
        size *= F;
      }
      for (const part of coverOf(tier, p / size)) parts.push(part);
      p += size;
    }
    if (staircases.size >= MAX_STAIRCASES) staircases = new Map();
    staircases.set(cut, parts);
    return parts;
  };
  const planOf = (n: number, cut: number) => {
    if (cut % F !== 0 || cut < 0 || cut > n) throw new Error(`cut ${cut} must be a multiple of ${F} within [0, ${n}]`);
    const parts = staircaseOf(cut).slice();
    if (cut < n) parts.push({ kind: "verbatim", from: cut, to: n });
    return parts;
  };
  return Object.assign(planOf, {
    forget(block: BlockRef) {
      // A block's cover is made of its own answer and its descendants': it and every block it is inside.
      for (let tier = block.tier, index = block.index; tier < covers.length; tier++, index = Math.floor(index / F)) {
        const row = covers[tier];
        if (row) delete row[index];
      }
      staircases = new Map();
    },
    staircase: staircaseOf,
  });
}

/** The complete blocks of a stream of n steps, finest first, as summarizing should go (children before parents). */
export function completeBlocks(n: number, cfg: TierConfig): BlockRef[] {
  const out: BlockRef[] = [];
  for (let tier = 0; cfg.fanout ** (tier + 1) <= n; tier++) {
    const count = Math.floor(n / cfg.fanout ** (tier + 1));
    for (let index = 0; index < count; index++) out.push({ tier, index });
  }
  return out;
}

/** Align a wished-for cut down to a block boundary. */
export function alignCut(cut: number, cfg: TierConfig): number {
  return Math.max(0, Math.floor(cut / cfg.fanout) * cfg.fanout);
}
