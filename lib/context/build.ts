// The one seam between a trajectory and the model: `buildContext` turns the
// filtered stream (plus sealed summaries, when there are any) into valid AI
// SDK messages within a token budget, and says which steps each part covers.
// Pure: the caller supplies the stream, the summaries, a token counter and
// what is kept from one call to the next (a BuildCache); this module keeps
// nothing between calls.
import type { Step } from "../trajectory/schema";
import { BuildCache } from "./build-cache";
import { coverRange, notes, partSpan, type BuiltContext, type Summary } from "./parts";
import { chain, NO_RUNS, stretches, toMessages, total, type Made, type Piece, type Runs, type Stretch } from "./pieces";
import type { ChatMessage } from "./project";
import { alignCut, planner, type BlockRef, type PlanPart, type Planner, type SealedLookup, type TierConfig } from "./staircase";
import type { ContextSource } from "./stream";
import type { TokenCounter } from "./tokens";

// What callers of the build import from here, wherever it is defined.
export { BuildCache } from "./build-cache";
export { joinMessages, notes, partSpan, type BuiltContext, type ContextPart, type Span, type Summary } from "./parts";
export { arraySource, inStream, inStreamType, type ContextSource } from "./stream";

/** A plan that is worked out afresh for each cut (a Planner also keeps its staircases: `staircase`). */
type PlanOnly = ((n: number, cut: number) => PlanPart[]) & { staircase?: undefined };

export interface BuildOptions {
  selfName: string;
  /** Tokens the messages may take. */
  budget: number;
  tiers: TierConfig;
  summary: (block: BlockRef) => Summary | undefined;
  /** Why a block has no summary yet (default: not summarized yet). */
  missing?: (block: BlockRef) => string | undefined;
  counter: TokenCounter;
  /** Steps shown verbatim at the least (the budget permitting), and at the most. */
  minVerbatim?: number;
  maxVerbatim?: number;
  /** Shown before the verbatim tail when it falls before it (a run's own prompt: its task). */
  pinned?: Step;
  /** For a nested run: its ancestors' recent steps, shown first. */
  ancestors?: readonly Step[];
  /** Steps before the source that are not at hand at all (a caller holding only the tail): one note says so. */
  before?: number;
  /**
   * The staircase's plan, when the caller keeps one across calls (a sealed
   * past's: `planner(tiers, sealedLookup(summary, missing))`, told of every
   * change). It must answer as `summary` and `missing` do; without it each
   * call plans afresh.
   */
  plan?: Planner | PlanOnly;
  /**
   * What is kept from one call to the next (pieces, steps as shown). A caller
   * that builds again and again (the mind's run) keeps one for its life;
   * without it the call makes its own, and keeps nothing.
   */
  cache?: BuildCache;
}

export const DEFAULT_BUDGET = 16_000;
/** An idle wake's first look: enough to choose what to do, cheap enough to repeat twelve times an hour. */
export const IDLE_BUDGET = 2_000;
const MIN_VERBATIM = 20;
const MAX_VERBATIM = 200;

/** The first and last id of [from, to): what a part's text names (not all of them: a block can cover 10,000s of steps). */
const ends = (src: ContextSource, from: number, to: number) => [src.ids(from, from + 1)[0], src.ids(to - 1, to)[0]] as const;

/**
 * What one buildContext call works out once, however many cuts it tries:
 * each summary's and elision's piece, the plan of every block, and the
 * pieces that do not depend on the cut (each step's message and tokens are
 * kept across calls, in the cache).
 */
interface Memo {
  /** Across calls: the caller's. */
  cache: BuildCache;
  /** By tier, then index: the piece without the hint on reading steps, and with it. */
  tiers: [Piece | undefined, Piece | undefined][][];
  elided: Map<string, Piece>;
  /** The plan of a cut as stretches (`stretches`). */
  stretches: (n: number, cut: number) => readonly Stretch[];
  fixed: { ancestors?: Piece; before?: Piece; pinned?: Piece };
  /** The source's steps as asked for (null: not at hand), by distance from its end (a dense array); each cut asks again for most of the last one's. */
  at: (Step | null | undefined)[];
  /** The verbatim tail from each cut tried (tailFrom). */
  tails: Map<number, Tail>;
}

/** What the staircase asks of a block: sealed, or why not (the reason its elision shows). */
export function sealedLookup(summary: BuildOptions["summary"], missing: BuildOptions["missing"]): SealedLookup {
  return (b) => (summary(b) ? "sealed" : { missing: missing?.(b) ?? "not summarized yet" });
}

function newMemo(opts: BuildOptions, cache: BuildCache): Memo {
  const plan = opts.plan ?? planner(opts.tiers, sealedLookup(opts.summary, opts.missing));
  // A planner's staircase for a cut is the same array from call to call (until an answer changes): its stretches are worked out once for it.
  const ofCut =
    plan.staircase !== undefined
      ? (n: number, cut: number) => {
          const staircase = cache.stretches(plan.staircase(cut));
          return cut < n ? [...staircase, { part: { kind: "verbatim", from: cut, to: n } as const, to: n }] : staircase;
        }
      : (n: number, cut: number) => stretches(plan(n, cut));
  return { cache, tiers: [], elided: new Map(), stretches: ofCut, fixed: {}, at: [], tails: new Map() };
}

function stepAt(src: ContextSource, pos: number, memo: Memo): Step | undefined {
  const back = src.length - 1 - pos;
  let step = memo.at[back];
  if (step === undefined) memo.at[back] = step = src.at(pos) ?? null;
  return step ?? undefined;
}

function summaryPiece(p: Extract<PlanPart, { kind: "tier" }>, s: Summary, src: ContextSource, counter: TokenCounter, hint: boolean, memo: Memo): Piece {
  const row = (memo.tiers[p.tier] ??= []);
  const both = (row[p.index] ??= [undefined, undefined]);
  const slot = hint ? 1 : 0;
  const known = both[slot];
  if (known) return known;
  const [first, last] = ends(src, p.from, p.to);
  const again = memo.cache.keptPiece(s, src, (m) => m.tier !== undefined && m.tier.hint === hint && m.tier.plan.tier === p.tier && m.tier.plan.index === p.index && m.from === p.from && m.to === p.to && m.first === first && m.last === last && m.counter === counter);
  if (again) return (both[slot] = again);
  const content = notes.summary(p.to - p.from, first, last, p.tier, s, hint);
  const made: Made = { from: p.from, to: p.to, first, last, counter, src, tier: { plan: p, summary: s, hint } };
  const part = coverRange({ kind: "tier", tier: p.tier, index: p.index, cites: [...s.cites], tokens: counter.cached(`tier:${p.tier}:${p.index}${hint ? ":hint" : ""}`, content) }, made);
  return (both[slot] = memo.cache.keep(s, { part, messages: [{ role: "user", content }], made }));
}

/** The hint on reading steps on the first summary of the pieces, and on no other (replay.ts gives it to the first tier part the same way). */
function hintFirst(pieces: Piece[], src: ContextSource, counter: TokenCounter, memo: Memo): Piece[] {
  const first = pieces.findIndex((p) => p.part.kind === "tier");
  return pieces.map((p, i) => {
    const t = p.made?.tier;
    return t && t.hint !== (i === first) ? summaryPiece(t.plan, t.summary, src, counter, i === first, memo) : p;
  });
}

function elidedPiece(from: number, to: number, block: BlockRef, reason: string, src: ContextSource, counter: TokenCounter, memo: Memo): Piece {
  const key = `${from}:${to}:${block.tier}:${block.index}:${reason}`;
  const known = memo.elided.get(key);
  if (known) return known;
  const [first, last] = ends(src, from, to);
  const again = memo.cache.keptPiece(key, src, (m) => m.tier === undefined && m.first === first && m.last === last && m.counter === counter);
  if (again) {
    memo.elided.set(key, again);
    return again;
  }
  const content = notes.elided(to - from, first, last, reason);
  const made: Made = { from, to, first, last, counter, src };
  const part = coverRange({ kind: "elided", tier: block.tier, index: block.index, reason, tokens: counter.cached(`elided:${from}:${to}:${reason}`, content) }, made);
  const piece = memo.cache.keep(key, { part, messages: [{ role: "user", content }], made });
  memo.elided.set(key, piece);
  return piece;
}

/** The verbatim tail from a cut to the end, as the search for the cut needs it. */
interface Tail {
  runs: Runs;
  /** The first position not at hand (-1: none), and how many are not. */
  gapFrom: number;
  gaps: number;
  /** Whether the run's pinned prompt is among the tail's steps. */
  pinned: boolean;
}

/** The tail from `cut` (a block boundary) on: its first block, then the tail after it (kept in the memo: the next cut tried is a block earlier). */
function tailFrom(src: ContextSource, cut: number, opts: BuildOptions, memo: Memo): Tail {
  const F = opts.tiers.fanout;
  let top = cut;
  while (top < src.length && !memo.tails.has(top)) top += F;
  let after: Tail = memo.tails.get(top) ?? { runs: NO_RUNS, gapFrom: -1, gaps: 0, pinned: false };
  for (let from = top - F; from >= cut; from -= F) {
    let runs = NO_RUNS;
    let gapFrom = -1;
    let gaps = 0;
    let pinned = after.pinned;
    for (let pos = from; pos < Math.min(from + F, src.length); pos++) {
      const step = stepAt(src, pos, memo);
      if (!step) {
        if (gapFrom < 0) gapFrom = pos;
        gaps++;
        continue;
      }
      if (step.step_id === opts.pinned?.step_id) pinned = true;
      const shown = memo.cache.shown(step, opts.selfName, opts.counter);
      if (shown.message) runs = chain(runs, { tokens: shown.tokens, messages: 1, runs: 1, first: shown.message.role, last: shown.message.role });
    }
    after = { runs: chain(runs, after.runs), gapFrom: gapFrom >= 0 ? gapFrom : after.gapFrom, gaps: gaps + after.gaps, pinned };
    memo.tails.set(from, after);
  }
  return after;
}

function stepsPiece(kind: "verbatim" | "pinned" | "ancestors", steps: readonly Step[], opts: BuildOptions, memo: Memo): Piece {
  const messages: ChatMessage[] = [];
  let tokens = 0;
  for (const step of steps) {
    const shown = memo.cache.shown(step, opts.selfName, opts.counter);
    const m = shown.message;
    if (!m) continue;
    if (kind === "ancestors") {
      const content = `${m.role === "assistant" ? "(parent)" : "(to parent)"} ${m.content}`;
      tokens += opts.counter.cached(`a:${step.step_id}`, content);
      messages.push({ role: "user", content });
    } else {
      tokens += shown.tokens;
      // The rendered message itself (toMessages copies before it joins): one object per step, not one per cut tried.
      messages.push(m);
    }
  }
  if (kind === "ancestors" && messages.length) {
    const head = "[Background: the recent steps of the trajectories you were forked from, up to the fork. They are not yours to continue.]";
    tokens += opts.counter.count(head);
    messages.unshift({ role: "user", content: head });
  }
  return { part: { kind, step_ids: steps.map((s) => s.step_id), tokens }, messages };
}

/**
 * The pieces for one choice of cut (verbatim from `cut` on). While
 * searching for the cut, only their tokens count: the verbatim tail is then
 * its runs alone, without its messages.
 */
function assemble(src: ContextSource, cut: number, opts: BuildOptions, memo: Memo, search = false): Piece[] {
  const pieces: Piece[] = [];
  const { fixed } = memo;
  if (opts.ancestors?.length) pieces.push((fixed.ancestors ??= stepsPiece("ancestors", opts.ancestors, opts, memo)));
  if (opts.before) {
    const before = opts.before;
    pieces.push(
      (fixed.before ??= (() => {
        const content = notes.before(before);
        return { part: { kind: "elided", tier: -1, index: -1, step_ids: [], reason: "not at hand", tokens: opts.counter.count(content) }, messages: [{ role: "user", content }] };
      })()),
    );
  }
  const pinnedPiece = (pinned: Step) => (fixed.pinned ??= stepsPiece("pinned", [pinned], opts, memo));
  for (const st of memo.stretches(src.length, cut)) {
    const p = st.part;
    if (p.kind === "tier") {
      const s = opts.summary(p);
      // Only a plan kept by the caller can say sealed where `summary` says not (BuildOptions.plan must answer as it does).
      if (!s) throw new Error(`block ${p.tier}:${p.index} is planned as sealed but has no summary: the caller's plan is out of date`);
      pieces.push(summaryPiece(p, s, src, opts.counter, false, memo));
    } else if (p.kind === "elided") pieces.push(elidedPiece(p.from, st.to, p, p.reason, src, opts.counter, memo));
    else if (search) {
      // Trying cuts: the tail's runs, tokens and gaps, worked out block by block from the end (each cut tried extends the last one's).
      const v = tailFrom(src, p.from, opts, memo);
      if (v.gapFrom >= 0) pieces.push(elidedPiece(v.gapFrom, p.from + v.gaps, { tier: 0, index: -1 }, "older than what is at hand", src, opts.counter, memo));
      if (opts.pinned && !v.pinned) pieces.push(pinnedPiece(opts.pinned));
      pieces.push({ part: { kind: "verbatim", step_ids: [], tokens: v.runs.tokens }, messages: [], runs: v.runs });
    } else {
      const steps: Step[] = [];
      let gapFrom = -1;
      for (let pos = p.from; pos < p.to; pos++) {
        const step = stepAt(src, pos, memo);
        if (step) steps.push(step);
        else if (gapFrom < 0) gapFrom = pos;
      }
      // Steps not at hand (older than what the caller holds) are elided as one stretch.
      if (gapFrom >= 0) pieces.push(elidedPiece(gapFrom, p.from + (p.to - p.from - steps.length), { tier: 0, index: -1 }, "older than what is at hand", src, opts.counter, memo));
      const pinned = opts.pinned && !steps.some((s) => s.step_id === opts.pinned?.step_id) ? opts.pinned : undefined;
      if (pinned) pieces.push(pinnedPiece(pinned));
      pieces.push(stepsPiece("verbatim", steps, opts, memo));
    }
  }
  if (cut >= src.length && opts.pinned) pieces.push(pinnedPiece(opts.pinned));
  return hintFirst(pieces, src, opts.counter, memo);
}

/**
 * The context of one model call. The verbatim tail is as long as the budget
 * allows (between minVerbatim and maxVerbatim steps, aligned to a block);
 * everything before it is the staircase. Over budget even at its smallest,
 * the oldest parts are folded into one elision.
 */
export function buildContext(src: ContextSource, opts: BuildOptions): BuiltContext {
  const F = opts.tiers.fanout;
  const n = src.length;
  const minV = Math.min(opts.minVerbatim ?? MIN_VERBATIM, n);
  const maxV = Math.max(minV, opts.maxVerbatim ?? MAX_VERBATIM);
  // Never show verbatim what is not at hand: the first block boundary at or after `held`.
  const floor = Math.min(Math.ceil((src.held ?? 0) / F) * F, alignCut(n, opts.tiers));
  let cut = Math.max(alignCut(n - minV, opts.tiers), floor);
  const cache = opts.cache ?? new BuildCache();
  cache.nextGeneration();
  const memo = newMemo(opts, cache);
  // The cut is searched for by tokens alone; only the one chosen is assembled.
  const tokensAt = (c: number) => total(assemble(src, c, opts, memo, true));
  let tokens = tokensAt(cut);
  // More verbatim while it fits.
  while (cut - F >= floor && n - (cut - F) <= maxV) {
    const wider = tokensAt(cut - F);
    if (wider > opts.budget) break;
    tokens = wider;
    cut -= F;
  }
  // Less verbatim while it does not fit (down to the last, partial block).
  while (tokens > opts.budget && cut + F < n) {
    cut += F;
    tokens = tokensAt(cut);
  }
  let best = assemble(src, cut, opts, memo);
  // Still over: fold the oldest parts into one elision.
  if (total(best) > opts.budget) best = foldOldest(best, src, opts, memo);
  const messages = toMessages(best);
  return { messages, tokens: total(best), parts: best.map((p) => p.part) };
}

function foldOldest(pieces: Piece[], src: ContextSource, opts: BuildOptions, memo: Memo): Piece[] {
  const foldable = (p: Piece) => p.part.kind === "tier" || p.part.kind === "elided";
  let k = 0;
  let rest = pieces;
  while (total(rest) > opts.budget && pieces.slice(k).some(foldable)) {
    k = pieces.findIndex((p, i) => i >= k && foldable(p)) + 1;
    // The folded parts are the oldest stretch of the stream, [0, to): counted by their spans, their ids read only if asked for.
    const to = Math.max(0, ...pieces.slice(0, k).map((p) => partSpan(p.part)?.to ?? 0));
    const content = notes.fold(to);
    const part = coverRange({ kind: "elided", tier: -1, index: -1, reason: "over the token budget", tokens: opts.counter.count(content) }, { src, from: 0, to });
    const note: Piece = { part, messages: [{ role: "user", content }] };
    rest = hintFirst([...pieces.slice(0, k).filter((p) => !foldable(p)), note, ...pieces.slice(k)], src, opts.counter, memo);
  }
  return rest;
}
