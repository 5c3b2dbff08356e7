// The one seam between a trajectory and the model: `buildContext` turns the
// filtered stream (plus sealed summaries, when there are any) into valid AI
// SDK messages within a token budget, and says which steps each part covers.
// Pure: the caller supplies the stream, the summaries and a token counter.
import type { Step } from "../trajectory/schema";
import { renderStep, type ChatMessage } from "./project";
import { alignCut, planner, type BlockRef, type PlanPart, type SealedLookup, type TierConfig } from "./staircase";
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
  /** A summary's piece again, with or without the hint on reading steps (only the context's first summary has it). */
  hinted?: (hint: boolean) => Piece;
}

/** The first and last id of [from, to): what a part's text names (not all of them: a block can cover 10,000s of steps). */
const ends = (src: ContextSource, from: number, to: number) => [src.ids(from, from + 1)[0], src.ids(to - 1, to)[0]] as const;

/**
 * A part whose `step_ids` are read from the source when first asked for.
 * buildContext tries many cuts per call and a staircase covers the whole
 * stream: copying every id for each try was most of a call's time at 100k steps.
 */
function coverRange<T extends ContextPart>(part: Omit<T, "step_ids">, src: ContextSource, from: number, to: number): T {
  let ids: string[] | undefined;
  const covered = {
    ...part,
    get step_ids() {
      return (ids ??= src.ids(from, to));
    },
  } as T;
  spans.set(covered, { from, to });
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
  const content = notes.summary(p.to - p.from, first, last, p.tier, s, hint);
  const part = coverRange<Extract<ContextPart, { kind: "tier" }>>({ kind: "tier", tier: p.tier, index: p.index, cites: [...s.cites], tokens: counter.cached(`tier:${p.tier}:${p.index}${hint ? ":hint" : ""}`, content) }, src, p.from, p.to);
  const piece: Piece = { part, messages: [{ role: "user", content }], hinted: (h) => (h === hint ? piece : summaryPiece(p, s, src, counter, h, memo)) };
  return (both[slot] = piece);
}

/** The hint on reading steps on the first summary of the pieces, and on no other (replay.ts gives it to the first tier part the same way). */
function hintFirst(pieces: Piece[]): Piece[] {
  const first = pieces.findIndex((p) => p.part.kind === "tier");
  return pieces.map((p, i) => (p.hinted ? p.hinted(i === first) : p));
}

function elidedPiece(from: number, to: number, block: BlockRef, reason: string, src: ContextSource, counter: TokenCounter, memo: Memo): Piece {
  const key = `${from}:${to}:${block.tier}:${block.index}:${reason}`;
  const known = memo.elided.get(key);
  if (known) return known;
  const [first, last] = ends(src, from, to);
  const content = notes.elided(to - from, first, last, reason);
  const part = coverRange<Extract<ContextPart, { kind: "elided" }>>({ kind: "elided", tier: block.tier, index: block.index, reason, tokens: counter.cached(`elided:${from}:${to}:${reason}`, content) }, src, from, to);
  const piece: Piece = { part, messages: [{ role: "user", content }] };
  memo.elided.set(key, piece);
  return piece;
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
  fixed: { ancestors?: Piece; before?: Piece; pinned?: Piece };
  /** The source's steps as asked for (null: not at hand), by distance from its end (a dense array); each cut asks again for most of the last one's. */
  at: (Step | null | undefined)[];
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
  return { tiers: [], elided: new Map(), plan: opts.plan ?? planner(opts.tiers, sealedLookup(opts.summary, opts.missing)), fixed: {}, at: [] };
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

/** The pieces for one choice of cut (verbatim from `cut` on). */
function assemble(src: ContextSource, cut: number, opts: BuildOptions, memo: Memo): Piece[] {
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
  const parts = memo.plan(src.length, cut);
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as PlanPart;
    if (p.kind === "tier") pieces.push(summaryPiece(p, opts.summary(p) as Summary, src, opts.counter, false, memo));
    else if (p.kind === "elided") {
      // Neighbouring blocks elided for the same reason read as one stretch.
      let to = p.to;
      while (i + 1 < parts.length) {
        const next = parts[i + 1] as PlanPart;
        if (next.kind !== "elided" || next.reason !== p.reason) break;
        to = next.to;
        i++;
      }
      pieces.push(elidedPiece(p.from, to, p, p.reason, src, opts.counter, memo));
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
  return hintFirst(pieces);
}

/** Tokens of the messages the pieces make: their parts, each message's own overhead, a token for each join. */
function total(pieces: readonly Piece[]): number {
  let tokens = 0;
  let messages = 0;
  let joins = 0;
  let role: string | null = null;
  for (const p of pieces) {
    tokens += p.part.tokens;
    for (const m of p.messages) {
      if (m.role === role) joins++;
      else messages++;
      role = m.role;
    }
  }
  return tokens + messages * MESSAGE_OVERHEAD + joins;
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
  const memo = newMemo(opts);
  let best = assemble(src, cut, opts, memo);
  // More verbatim while it fits.
  while (cut - F >= floor && n - (cut - F) <= maxV) {
    const wider = assemble(src, cut - F, opts, memo);
    if (total(wider) > opts.budget) break;
    best = wider;
    cut -= F;
  }
  // Less verbatim while it does not fit (down to the last, partial block).
  while (total(best) > opts.budget && cut + F < n) {
    cut += F;
    best = assemble(src, cut, opts, memo);
  }
  // Still over: fold the oldest parts into one elision.
  if (total(best) > opts.budget) best = foldOldest(best, src, opts);
  const messages = toMessages(best);
  return { messages, tokens: total(best), parts: best.map((p) => p.part) };
}

function foldOldest(pieces: Piece[], src: ContextSource, opts: BuildOptions): Piece[] {
  const foldable = (p: Piece) => p.part.kind === "tier" || p.part.kind === "elided";
  let k = 0;
  let rest = pieces;
  while (total(rest) > opts.budget && pieces.slice(k).some(foldable)) {
    k = pieces.findIndex((p, i) => i >= k && foldable(p)) + 1;
    // The folded parts are the oldest stretch of the stream, [0, to): counted by their spans, their ids read only if asked for.
    const to = Math.max(0, ...pieces.slice(0, k).map((p) => partSpan(p.part)?.to ?? 0));
    const content = notes.fold(to);
    const part = coverRange<Extract<ContextPart, { kind: "elided" }>>({ kind: "elided", tier: -1, index: -1, reason: "over the token budget", tokens: opts.counter.count(content) }, src, 0, to);
    const note: Piece = { part, messages: [{ role: "user", content }] };
    rest = hintFirst([...pieces.slice(0, k).filter((p) => !foldable(p)), note, ...pieces.slice(k)]);
  }
  return rest;
}

