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
  const F = cfg.fanout;
  if (cut % F !== 0 || cut < 0 || cut > n) throw new Error(`cut ${cut} must be a multiple of ${F} within [0, ${n}]`);
  const parts: PlanPart[] = [];
  const cover = (block: BlockRef) => {
    const { from, to } = blockRange(block, cfg);
    const s = sealed(block);
    if (s === "sealed") return void parts.push({ kind: "tier", ...block, from, to });
    if (block.tier === 0) return void parts.push({ kind: "elided", ...block, from, to, reason: s.missing });
    for (let c = 0; c < F; c++) cover({ tier: block.tier - 1, index: block.index * F + c });
  };
  let p = 0;
  while (p < cut) {
    // The coarsest block that starts at p and ends by the cut.
    let tier = 0;
    while (p % F ** (tier + 2) === 0 && p + F ** (tier + 2) <= cut) tier++;
    cover({ tier, index: p / F ** (tier + 1) });
    p += F ** (tier + 1);
  }
  if (cut < n) parts.push({ kind: "verbatim", from: cut, to: n });
  return parts;
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
