// The one seam between a trajectory and the model: `buildContext` turns the
// filtered stream (plus sealed summaries, when there are any) into valid AI
// SDK messages within a token budget, and says which steps each part covers.
// Pure: the caller supplies the stream, the summaries and a token counter.
import type { Step } from "../trajectory/schema";
import { renderStep, type ChatMessage } from "./project";
import { alignCut, planner, type BlockRef, type PlanPart, type Planner, type SealedLookup, type TierConfig } from "./staircase";
import { MESSAGE_OVERHEAD, type TokenCounter } from "./tokens";

/** The filtered stream: what the staircase is cut from. Positions are 0-based. */
export interface ContextSource {
  readonly length: number;
  /** The step at a position; needed for the verbatim tail (undefined: not at hand, it is elided). */
  at(pos: number): Step | undefined;
  /** The ids of positions [from, to). */
  ids(from: number, to: number): string[];
  /** Positions before this one are known by id only (their steps are not at hand): the verbatim tail starts at or after it. */
  readonly held?: number;
}

/** A sealed summary: in the mind's own voice, citing steps it covers. */
export interface Summary {
  content: string;
  cites: readonly string[];
}

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
  plan?: (n: number, cut: number) => PlanPart[];
}

export type ContextPart =
  | { kind: "ancestors"; step_ids: string[]; tokens: number }
  | { kind: "tier"; tier: number; index: number; step_ids: string[]; cites: string[]; tokens: number }
  | { kind: "elided"; tier: number; index: number; step_ids: string[]; reason: string; tokens: number }
  | { kind: "pinned"; step_ids: string[]; tokens: number }
  | { kind: "verbatim"; step_ids: string[]; tokens: number };

export interface BuiltContext {
  messages: ChatMessage[];
  tokens: number;
  parts: ContextPart[];
}

export const DEFAULT_BUDGET = 16_000;
/** An idle wake's first look: enough to choose what to do, cheap enough to repeat twelve times an hour. */
export const IDLE_BUDGET = 2_000;
const MIN_VERBATIM = 20;
const MAX_VERBATIM = 200;

/** Kinds that are not in the stream: bookkeeping (renderStep shows nothing of them) and the wake markers (the run's prompt says why it woke). */
const OUT_OF_STREAM: ReadonlySet<string> = new Set(["trajectory", "shellm-run", "config", "monolith-wake", "wake"]);

/**
 * Whether a step of this kind counts in the stream. By kind alone, so the
 * stream's positions can be read from a keys-only index (type and id) without
 * reading a row.
 */
export function inStreamType(type: string): boolean {
  return !OUT_OF_STREAM.has(type);
}

/** Steps that count in the stream: what the model is shown, less the wake markers. */
export function inStream(step: Step): boolean {
  return inStreamType(step.type);
}

export function arraySource(steps: readonly Step[]): ContextSource {
  return { length: steps.length, at: (p) => steps[p], ids: (from, to) => steps.slice(from, to).map((s) => s.step_id) };
}

const id8 = (id: string | undefined) => (id ?? "").slice(0, 8);

interface Piece {
  part: ContextPart;
  /** Messages of this piece, in order. */
  messages: ChatMessage[];
  /** A summary's or an elision's piece: what it was made of, to tell whether a later call may use it again (`kept`). */
  made?: Made;
  /** What `total` needs of the messages, once worked out (or given: a verbatim tail tried while searching for the cut has no messages). */
  runs?: Runs;
}

/**
 * What a sequence of messages adds to a context's tokens, without the
 * messages: their count, their runs of one role (each run is one message once
 * joined) and the roles they start and end with (a run can go on across
 * pieces).
 */
interface Runs {
  tokens: number;
  messages: number;
  runs: number;
  first: ChatMessage["role"] | null;
  last: ChatMessage["role"] | null;
}

const NO_RUNS: Runs = { tokens: 0, messages: 0, runs: 0, first: null, last: null };

/** `a` then `b`. */
function chain(a: Runs, b: Runs): Runs {
  if (!a.messages && !a.tokens) return b;
  if (!b.messages && !b.tokens) return a;
  if (!a.messages) return { ...b, tokens: a.tokens + b.tokens };
  if (!b.messages) return { ...a, tokens: a.tokens + b.tokens };
  return { tokens: a.tokens + b.tokens, messages: a.messages + b.messages, runs: a.runs + b.runs - (a.last === b.first ? 1 : 0), first: a.first, last: b.last };
}

function runsOf(piece: Piece): Runs {
  if (piece.runs) return piece.runs;
  let runs = 0;
  let role: ChatMessage["role"] | null = null;
  for (const m of piece.messages) {
    if (m.role !== role) runs++;
    role = m.role;
  }
  return (piece.runs = { tokens: piece.part.tokens, messages: piece.messages.length, runs, first: piece.messages[0]?.role ?? null, last: role });
}

/** The first and last id of [from, to): what a part's text names (not all of them: a block can cover 10,000s of steps). */
const ends = (src: ContextSource, from: number, to: number) => [src.ids(from, from + 1)[0], src.ids(to - 1, to)[0]] as const;

/** What a summary's or an elision's piece was made of. */
interface Made {
  from: number;
  to: number;
  first: string | undefined;
  last: string | undefined;
  counter: TokenCounter;
  /** The source its `step_ids` are read from when asked for: the latest call's that used it (an older one's steps are not held on to). */
  src: ContextSource;
  /** A summary's piece: its block in the plan, its summary, and whether it carries the hint on reading steps. */
  tier?: { plan: Extract<PlanPart, { kind: "tier" }>; summary: Summary; hint: boolean };
}

/**
 * Pieces of summaries and elisions kept from one call to the next: between
 * two calls of a run only a step or two is appended, and the staircase is
 * mostly the same blocks, whose notes, token counts and parts were made again
 * for every call. Two generations, by a summary or an elision's key: the
 * pieces this call has used, and the last call's (what neither used is let
 * go). A piece is used again only when it was made of the same things: the
 * same summary object, block, counter and ends in the stream.
 */
const kept = { now: new Map<Summary | string, Piece[]>(), before: new Map<Summary | string, Piece[]>() };

function nextGeneration(): void {
  kept.before = kept.now;
  kept.now = new Map();
}

function keep(key: Summary | string, piece: Piece): Piece {
  const list = kept.now.get(key);
  if (list) list.push(piece);
  else kept.now.set(key, [piece]);
  return piece;
}

function keptPiece(key: Summary | string, src: ContextSource, match: (m: Made) => boolean): Piece | undefined {
  const fits = (p: Piece) => p.made !== undefined && match(p.made);
  const now = kept.now.get(key)?.find(fits);
  const piece = now ?? kept.before.get(key)?.find(fits);
  if (!piece) return undefined;
  (piece.made as Made).src = src;
  return now ? piece : keep(key, piece);
}

/**
 * A part whose `step_ids` are read from the source when first asked for.
 * buildContext tries many cuts per call and a staircase covers the whole
 * stream: copying every id for each try was most of a call's time at 100k steps.
 */
function coverRange<T extends ContextPart>(part: Omit<T, "step_ids">, made: Pick<Made, "src" | "from" | "to">): T {
  let ids: string[] | undefined;
  const covered = {
    ...part,
    get step_ids() {
      return (ids ??= made.src.ids(made.from, made.to));
    },
  } as T;
  spans.set(covered, { from: made.from, to: made.to });
  return covered;
}

/**
 * The positions of the stream a tier or elided part covers, kept beside the
 * part (not in it: the part's fields are what `reverie context --json`
 * prints). A sealed past read from its summaries knows an old block by its
 * ends alone, so who needs a part's extent asks here, not its step_ids.
 */
const spans = new WeakMap<ContextPart, { from: number; to: number }>();

export function partSpan(part: ContextPart): { from: number; to: number } | undefined {
  return spans.get(part);
}

/**
 * The texts that stand for steps not shown verbatim. One place, because the
 * inspector's replay (replay.ts) must rebuild them byte for byte.
 */
export const notes = {
  /** The first summary of a context says how to read a step; saying it again in each of a staircase's dozen summaries told the model nothing new. */
  summary: (count: number, first: string | undefined, last: string | undefined, tier: number, s: Summary, hint: boolean) =>
    `[My summary of ${count} steps, ${id8(first)}…${id8(last)} (tier ${tier})${s.cites.length ? `; it cites ${s.cites.map(id8).join(", ")}` : ""}.${hint ? " `traj show <id>` reads any step." : ""}]\n${s.content}`,
  elided: (count: number, first: string | undefined, last: string | undefined, reason: string) =>
    `[${count} steps, ${id8(first)}…${id8(last)}, not shown: ${reason}. \`traj show\` and \`traj search\` reach them.]`,
  before: (count: number) => `[${count} earlier steps not shown (not summarized yet). \`traj tail -n N\`, \`traj search\` and \`traj show\` reach them.]`,
  fold: (count: number) => `[${count} older steps not shown: over the token budget. \`traj show\` and \`traj search\` reach them.]`,
};

function summaryPiece(p: Extract<PlanPart, { kind: "tier" }>, s: Summary, src: ContextSource, counter: TokenCounter, hint: boolean, memo: Memo): Piece {
  const row = (memo.tiers[p.tier] ??= []);
  const both = (row[p.index] ??= [undefined, undefined]);
  const slot = hint ? 1 : 0;
  const known = both[slot];
  if (known) return known;
  const [first, last] = ends(src, p.from, p.to);
  const again = keptPiece(s, src, (m) => m.tier !== undefined && m.tier.hint === hint && m.tier.plan.tier === p.tier && m.tier.plan.index === p.index && m.from === p.from && m.to === p.to && m.first === first && m.last === last && m.counter === counter);
  if (again) return (both[slot] = again);
  const content = notes.summary(p.to - p.from, first, last, p.tier, s, hint);
  const made: Made = { from: p.from, to: p.to, first, last, counter, src, tier: { plan: p, summary: s, hint } };
  const part = coverRange<Extract<ContextPart, { kind: "tier" }>>({ kind: "tier", tier: p.tier, index: p.index, cites: [...s.cites], tokens: counter.cached(`tier:${p.tier}:${p.index}${hint ? ":hint" : ""}`, content) }, made);
  return (both[slot] = keep(s, { part, messages: [{ role: "user", content }], made }));
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
  const again = keptPiece(key, src, (m) => m.tier === undefined && m.first === first && m.last === last && m.counter === counter);
  if (again) {
    memo.elided.set(key, again);
    return again;
  }
  const content = notes.elided(to - from, first, last, reason);
  const made: Made = { from, to, first, last, counter, src };
  const part = coverRange<Extract<ContextPart, { kind: "elided" }>>({ kind: "elided", tier: block.tier, index: block.index, reason, tokens: counter.cached(`elided:${from}:${to}:${reason}`, content) }, made);
  const piece = keep(key, { part, messages: [{ role: "user", content }], made });
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
      const shown = shownOf(step, opts);
      if (shown.message) runs = chain(runs, { tokens: shown.tokens, messages: 1, runs: 1, first: shown.message.role, last: shown.message.role });
    }
    after = { runs: chain(runs, after.runs), gapFrom: gapFrom >= 0 ? gapFrom : after.gapFrom, gaps: gaps + after.gaps, pinned };
    memo.tails.set(from, after);
  }
  return after;
}

/** A step as the context shows it: its message (null: bookkeeping) and that message's tokens. */
interface Shown {
  message: ChatMessage | null;
  tokens: number;
}

/**
 * What one buildContext call works out once, however many cuts it tries:
 * each summary's and elision's piece, the plan of every block, and the
 * pieces that do not depend on the cut (each step's message and tokens are
 * kept across calls: shownBefore).
 */
interface Memo {
  /** By tier, then index: the piece without the hint on reading steps, and with it. */
  tiers: [Piece | undefined, Piece | undefined][][];
  elided: Map<string, Piece>;
  plan: (n: number, cut: number) => PlanPart[];
  /** The plan of a cut as stretches (`stretches`). */
  stretches: (n: number, cut: number) => readonly Stretch[];
  fixed: { ancestors?: Piece; before?: Piece; pinned?: Piece };
  /** The source's steps as asked for (null: not at hand), by distance from its end (a dense array); each cut asks again for most of the last one's. */
  at: (Step | null | undefined)[];
  /** The verbatim tail from each cut tried (tailFrom). */
  tails: Map<number, Tail>;
}

function stepAt(src: ContextSource, pos: number, memo: Memo): Step | undefined {
  const back = src.length - 1 - pos;
  let step = memo.at[back];
  if (step === undefined) memo.at[back] = step = src.at(pos) ?? null;
  return step ?? undefined;
}

/** What the staircase asks of a block: sealed, or why not (the reason its elision shows). */
export function sealedLookup(summary: BuildOptions["summary"], missing: BuildOptions["missing"]): SealedLookup {
  return (b) => (summary(b) ? "sealed" : { missing: missing?.(b) ?? "not summarized yet" });
}

function newMemo(opts: BuildOptions): Memo {
  const plan = opts.plan ?? planner(opts.tiers, sealedLookup(opts.summary, opts.missing));
  const staircaseOf = (plan as Partial<Planner>).staircase;
  // A planner's staircase for a cut is the same array from call to call (until an answer changes): its stretches are worked out once for it.
  const ofCut = staircaseOf
    ? (n: number, cut: number) => {
        const staircase = keptStretches(staircaseOf.call(plan, cut));
        return cut < n ? [...staircase, { part: { kind: "verbatim", from: cut, to: n } as const, to: n }] : staircase;
      }
    : (n: number, cut: number) => stretches(plan(n, cut));
  return { tiers: [], elided: new Map(), plan, stretches: ofCut, fixed: {}, at: [], tails: new Map() };
}

/** A part of the plan as assembled: an elided block with the ones after it elided for the same reason (they read as one stretch, to `to`), or a part alone. */
interface Stretch {
  part: PlanPart;
  to: number;
}

function stretches(parts: readonly PlanPart[]): Stretch[] {
  const out: Stretch[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as PlanPart;
    let to = p.to;
    // Neighbouring blocks elided for the same reason read as one stretch.
    if (p.kind === "elided") {
      while (i + 1 < parts.length) {
        const next = parts[i + 1] as PlanPart;
        if (next.kind !== "elided" || next.reason !== p.reason) break;
        to = next.to;
        i++;
      }
    }
    out.push({ part: p, to });
  }
  return out;
}

/** By a planner's staircase: its stretches. With a summarizer behind, a staircase is hundreds of elided blocks that read as one. */
const stretchesOf = new WeakMap<readonly PlanPart[], Stretch[]>();

function keptStretches(staircase: readonly PlanPart[]): Stretch[] {
  let out = stretchesOf.get(staircase);
  if (!out) stretchesOf.set(staircase, (out = stretches(staircase)));
  return out;
}

/**
 * Steps as shown, across calls: a run's steps are the same objects from one
 * call to the next (the mind keeps them in memory), and rendering and looking
 * up the tokens of 200 of them for every call was a tenth of its time. Valid
 * for the name and the counter they were shown with.
 */
const shownBefore = new WeakMap<Step, Shown & { selfName: string; counter: TokenCounter }>();

function shownOf(step: Step, opts: BuildOptions): Shown {
  const before = shownBefore.get(step);
  if (before && before.selfName === opts.selfName && before.counter === opts.counter) return before;
  const message = renderStep(step, opts.selfName);
  const shown = { message, tokens: message ? opts.counter.cached(step.step_id, message.content) : 0, selfName: opts.selfName, counter: opts.counter };
  shownBefore.set(step, shown);
  return shown;
}

function stepsPiece(kind: "verbatim" | "pinned" | "ancestors", steps: readonly Step[], opts: BuildOptions): Piece {
  const messages: ChatMessage[] = [];
  let tokens = 0;
  for (const step of steps) {
    const shown = shownOf(step, opts);
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
  if (opts.ancestors?.length) pieces.push((fixed.ancestors ??= stepsPiece("ancestors", opts.ancestors, opts)));
  if (opts.before) {
    const before = opts.before;
    pieces.push(
      (fixed.before ??= (() => {
        const content = notes.before(before);
        return { part: { kind: "elided", tier: -1, index: -1, step_ids: [], reason: "not at hand", tokens: opts.counter.count(content) }, messages: [{ role: "user", content }] };
      })()),
    );
  }
  const pinnedPiece = (pinned: Step) => (fixed.pinned ??= stepsPiece("pinned", [pinned], opts));
  for (const st of memo.stretches(src.length, cut)) {
    const p = st.part;
    if (p.kind === "tier") pieces.push(summaryPiece(p, opts.summary(p) as Summary, src, opts.counter, false, memo));
    else if (p.kind === "elided") pieces.push(elidedPiece(p.from, st.to, p, p.reason, src, opts.counter, memo));
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
      pieces.push(stepsPiece("verbatim", steps, opts));
    }
  }
  if (cut >= src.length && opts.pinned) pieces.push(pinnedPiece(opts.pinned));
  return hintFirst(pieces, src, opts.counter, memo);
}

/** Tokens of the messages the pieces make: their parts, each message's own overhead, a token for each join. */
function total(pieces: readonly Piece[]): number {
  let tokens = 0;
  let messages = 0;
  let runs = 0;
  let role: ChatMessage["role"] | null = null;
  for (const p of pieces) {
    const r = runsOf(p);
    tokens += r.tokens;
    if (!r.messages) continue;
    messages += r.messages;
    runs += r.runs - (r.first === role ? 1 : 0);
    role = r.last;
  }
  return tokens + runs * MESSAGE_OVERHEAD + (messages - runs);
}

const toMessages = (pieces: readonly Piece[]) => joinMessages(pieces.flatMap((p) => p.messages));

/** Join consecutive messages of one role, open and close with the user: what every provider accepts. */
export function joinMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    if (!m.content) continue;
    const last = out[out.length - 1];
    if (last && last.role === m.role) last.content += `\n\n${m.content}`;
    else out.push({ ...m });
  }
  if (out[0]?.role !== "user") out.unshift({ role: "user", content: "[the trajectory so far]" });
  if (out[out.length - 1]?.role !== "user") out.push({ role: "user", content: "[continue]" });
  return out;
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
  nextGeneration();
  const memo = newMemo(opts);
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
    const part = coverRange<Extract<ContextPart, { kind: "elided" }>>({ kind: "elided", tier: -1, index: -1, reason: "over the token budget", tokens: opts.counter.count(content) }, { src, from: 0, to });
    const note: Piece = { part, messages: [{ role: "user", content }] };
    rest = hintFirst([...pieces.slice(0, k).filter((p) => !foldable(p)), note, ...pieces.slice(k)], src, opts.counter, memo);
  }
  return rest;
}

