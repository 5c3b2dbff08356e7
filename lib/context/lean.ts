// An idle wake's first look: the whole life at the coarsest resolution that
// fits a small budget, and the newest steps. A scheduled wake with nothing
// new only has to decide whether anything needs doing, and it repeats up to
// twelve times an hour, so its first call is kept lean; once the mind acts,
// its next call gets the whole budget (lib/mind/run/run.ts). Which summaries of
// the staircase stay, while they fit: the newest one (what just happened),
// then the coarsest ones (they cover the most steps per token), newest first,
// then finer tiers. What is left out is elided by range, saying why
// (`traj show` and `traj search` reach it), never silently. A wrapper over
// buildContext: the same parts, notes and replay. Pure.
import { BuildCache, buildContext, type BuildOptions, type BuiltContext, type ContextPart, type ContextSource } from "./build";
import type { BlockRef } from "./staircase";

/** Tokens of a first look's messages (its instructions come on top). */
export const LEAN_BUDGET = 600;

/**
 * The newest steps a first look shows verbatim, at the least. The verbatim
 * tail starts at a block boundary, so it is the open block: 1 to 10 steps
 * (the block before it is the newest summary, or verbatim too while it has none).
 */
export const LEAN_VERBATIM = 1;

/** Why a sealed block is elided on a first look. */
export const LEFT_OUT_OF_A_FIRST_LOOK = "summarized, but left out of this first look to keep it small";

/** buildContext's reason for the oldest parts folded to fit (lib/context/build.ts foldOldest). */
const FOLDED = "over the token budget";

type TierPart = Extract<ContextPart, { kind: "tier" }>;
const key = (b: BlockRef) => `${b.tier}:${b.index}`;
const folded = (built: BuiltContext) => built.parts.some((p) => p.kind === "elided" && p.tier === -1 && p.reason === FOLDED);

/** Only the sealed blocks in `shown` stand as summaries; the others are elided, saying why. */
function showing(opts: BuildOptions, shown: ReadonlySet<string>): BuildOptions {
  return {
    ...opts,
    summary: (b) => (shown.has(key(b)) ? opts.summary(b) : undefined),
    missing: (b) => (!shown.has(key(b)) && opts.summary(b) ? LEFT_OUT_OF_A_FIRST_LOOK : opts.missing?.(b)),
    // A plan kept by the caller answers for the sealed past as it is, not as masked here: plan afresh.
    plan: undefined,
  };
}

/** The order summaries are kept in: the newest, then by tier (coarsest first), newest first within a tier. */
function priority(tiers: readonly TierPart[]): TierPart[] {
  const newest = tiers[tiers.length - 1];
  const rest = tiers.slice(0, -1).sort((a, b) => b.tier - a.tier || b.index - a.index);
  return newest ? [newest, ...rest] : [];
}

/**
 * The first look's context within `opts.budget`: the newest steps verbatim
 * and as many of the staircase's summaries as fit, in `priority` order. Every
 * step is still covered exactly once (a summary, an elision or verbatim).
 * When not even the elisions fit, buildContext's own fallback (the oldest
 * parts folded) applies.
 */
export function leanContext(src: ContextSource, opts: BuildOptions): BuiltContext {
  const F = opts.tiers.fanout;
  // The open block verbatim; and the block before it too while it has no summary yet (the summarizer is behind), so the last wake is never only an elision.
  const open = Math.floor((src.length - 1) / F) * F;
  const behind = open >= F && !opts.summary({ tier: 0, index: open / F - 1 });
  const verbatim = Math.max(LEAN_VERBATIM, behind ? src.length - (open - F) : 0);
  // Its builds try the same pieces again and again: one cache for all of them, the caller's if it keeps one.
  const lean: BuildOptions = { ...opts, minVerbatim: verbatim, maxVerbatim: verbatim, cache: opts.cache ?? new BuildCache() };
  const fits = (b: BuiltContext) => b.tokens <= opts.budget && !folded(b);
  // The staircase as it would be without a budget: when it fits, it is the context; otherwise, the summaries to choose from.
  const whole = buildContext(src, { ...lean, budget: Number.POSITIVE_INFINITY });
  if (fits(whole)) return buildContext(src, lean);
  const shown = new Set<string>();
  let built = buildContext(src, showing(lean, shown));
  if (!fits(built)) return built;
  const staircase = whole.parts.filter((p): p is TierPart => p.kind === "tier");
  for (const part of priority(staircase)) {
    shown.add(key(part));
    const tried = buildContext(src, showing(lean, shown));
    if (!fits(tried)) break;
    built = tried;
  }
  return built;
}
