// The oracle for test/unit/context/plan-once.test.ts: buildContext as it was
// before it planned once per call (lib/context/build.ts at that time, with
// the staircase's old plan), assembling the whole context again for each cut
// it tried. Kept only to check that the faster build returns the same thing.
import { joinMessages, notes, type BuildOptions, type BuiltContext, type ContextPart, type ContextSource, type Summary } from "../../../lib/context/build";
import { renderStep, type ChatMessage } from "../../../lib/context/project";
import { alignCut, blockRange, type BlockRef, type PlanPart, type SealedLookup, type TierConfig } from "../../../lib/context/staircase";
import { MESSAGE_OVERHEAD, type TokenCounter } from "../../../lib/context/tokens";
import type { Step } from "../../../lib/trajectory/schema";

/**
 * Cover [0, cut) with blocks, coarsest first, then [cut, n) verbatim. `cut`
 * must be a multiple of the fanout (the caller aligns it).
 */
function oldPlan(n: number, cut: number, cfg: TierConfig, sealed: SealedLookup): PlanPart[] {
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

const MIN_VERBATIM = 20;
const MAX_VERBATIM = 200;


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

export function oldPartSpan(part: ContextPart): { from: number; to: number } | undefined {
  return spans.get(part);
}

function summaryPiece(p: Extract<PlanPart, { kind: "tier" }>, s: Summary, src: ContextSource, counter: TokenCounter, hint: boolean): Piece {
  const [first, last] = ends(src, p.from, p.to);
  const content = notes.summary(p.to - p.from, first, last, p.tier, s, hint);
  const part = coverRange<Extract<ContextPart, { kind: "tier" }>>({ kind: "tier", tier: p.tier, index: p.index, cites: [...s.cites], tokens: counter.cached(`tier:${p.tier}:${p.index}${hint ? ":hint" : ""}`, content) }, src, p.from, p.to);
  const piece: Piece = { part, messages: [{ role: "user", content }], hinted: (h) => (h === hint ? piece : summaryPiece(p, s, src, counter, h)) };
  return piece;
}

/** The hint on reading steps on the first summary of the pieces, and on no other (replay.ts gives it to the first tier part the same way). */
function hintFirst(pieces: Piece[]): Piece[] {
  const first = pieces.findIndex((p) => p.part.kind === "tier");
  return pieces.map((p, i) => (p.hinted ? p.hinted(i === first) : p));
}

function elidedPiece(from: number, to: number, block: BlockRef, reason: string, src: ContextSource, counter: TokenCounter): Piece {
  const [first, last] = ends(src, from, to);
  const content = notes.elided(to - from, first, last, reason);
  const part = coverRange<Extract<ContextPart, { kind: "elided" }>>({ kind: "elided", tier: block.tier, index: block.index, reason, tokens: counter.cached(`elided:${from}:${to}:${reason}`, content) }, src, from, to);
  return { part, messages: [{ role: "user", content }] };
}

/** Steps rendered once per buildContext call, however many cuts it tries. */
type Rendered = Map<Step, ChatMessage | null>;

function stepsPiece(kind: "verbatim" | "pinned" | "ancestors", steps: readonly Step[], opts: BuildOptions, rendered: Rendered): Piece {
  const messages: ChatMessage[] = [];
  let tokens = 0;
  for (const step of steps) {
    let m = rendered.get(step);
    if (m === undefined) rendered.set(step, (m = renderStep(step, opts.selfName)));
    if (!m) continue;
    const content = kind === "ancestors" ? `${m.role === "assistant" ? "(parent)" : "(to parent)"} ${m.content}` : m.content;
    tokens += opts.counter.cached(`${kind === "ancestors" ? "a:" : ""}${step.step_id}`, content);
    // The rendered message itself (toMessages copies before it joins): one object per step, not one per cut tried.
    messages.push(kind === "ancestors" ? { role: "user", content } : m);
  }
  if (kind === "ancestors" && messages.length) {
    const head = "[Background: the recent steps of the trajectories you were forked from, up to the fork. They are not yours to continue.]";
    tokens += opts.counter.count(head);
    messages.unshift({ role: "user", content: head });
  }
  return { part: { kind, step_ids: steps.map((s) => s.step_id), tokens }, messages };
}

/** The pieces for one choice of cut (verbatim from `cut` on). */
function assemble(src: ContextSource, cut: number, opts: BuildOptions, rendered: Rendered): Piece[] {
  const pieces: Piece[] = [];
  if (opts.ancestors?.length) pieces.push(stepsPiece("ancestors", opts.ancestors, opts, rendered));
  if (opts.before) {
    const content = notes.before(opts.before);
    pieces.push({ part: { kind: "elided", tier: -1, index: -1, step_ids: [], reason: "not at hand", tokens: opts.counter.count(content) }, messages: [{ role: "user", content }] });
  }
  const lookup = (b: BlockRef) => (opts.summary(b) ? ("sealed" as const) : { missing: opts.missing?.(b) ?? "not summarized yet" });
  const parts = oldPlan(src.length, cut, opts.tiers, lookup);
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as PlanPart;
    if (p.kind === "tier") pieces.push(summaryPiece(p, opts.summary(p) as Summary, src, opts.counter, false));
    else if (p.kind === "elided") {
      // Neighbouring blocks elided for the same reason read as one stretch.
      let to = p.to;
      while (i + 1 < parts.length) {
        const next = parts[i + 1] as PlanPart;
        if (next.kind !== "elided" || next.reason !== p.reason) break;
        to = next.to;
        i++;
      }
      pieces.push(elidedPiece(p.from, to, p, p.reason, src, opts.counter));
    } else {
      const steps: Step[] = [];
      let gapFrom = -1;
      for (let pos = p.from; pos < p.to; pos++) {
        const step = src.at(pos);
        if (step) steps.push(step);
        else if (gapFrom < 0) gapFrom = pos;
      }
      // Steps not at hand (older than what the caller holds) are elided as one stretch.
      if (gapFrom >= 0) pieces.push(elidedPiece(gapFrom, p.from + (p.to - p.from - steps.length), { tier: 0, index: -1 }, "older than what is at hand", src, opts.counter));
      const pinned = opts.pinned && !steps.some((s) => s.step_id === opts.pinned?.step_id) ? opts.pinned : undefined;
      if (pinned) pieces.push(stepsPiece("pinned", [pinned], opts, rendered));
      pieces.push(stepsPiece("verbatim", steps, opts, rendered));
    }
  }
  if (cut >= src.length && opts.pinned) pieces.push(stepsPiece("pinned", [opts.pinned], opts, rendered));
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

/**
 * The context of one model call. The verbatim tail is as long as the budget
 * allows (between minVerbatim and maxVerbatim steps, aligned to a block);
 * everything before it is the staircase. Over budget even at its smallest,
 * the oldest parts are folded into one elision.
 */
export function buildContextByCuts(src: ContextSource, opts: BuildOptions): BuiltContext {
  const F = opts.tiers.fanout;
  const n = src.length;
  const minV = Math.min(opts.minVerbatim ?? MIN_VERBATIM, n);
  const maxV = Math.max(minV, opts.maxVerbatim ?? MAX_VERBATIM);
  // Never show verbatim what is not at hand: the first block boundary at or after `held`.
  const floor = Math.min(Math.ceil((src.held ?? 0) / F) * F, alignCut(n, opts.tiers));
  let cut = Math.max(alignCut(n - minV, opts.tiers), floor);
  const rendered: Rendered = new Map();
  let best = assemble(src, cut, opts, rendered);
  // More verbatim while it fits.
  while (cut - F >= floor && n - (cut - F) <= maxV) {
    const wider = assemble(src, cut - F, opts, rendered);
    if (total(wider) > opts.budget) break;
    best = wider;
    cut -= F;
  }
  // Less verbatim while it does not fit (down to the last, partial block).
  while (total(best) > opts.budget && cut + F < n) {
    cut += F;
    best = assemble(src, cut, opts, rendered);
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
    const to = Math.max(0, ...pieces.slice(0, k).map((p) => oldPartSpan(p.part)?.to ?? 0));
    const content = notes.fold(to);
    const part = coverRange<Extract<ContextPart, { kind: "elided" }>>({ kind: "elided", tier: -1, index: -1, reason: "over the token budget", tokens: opts.counter.count(content) }, src, 0, to);
    const note: Piece = { part, messages: [{ role: "user", content }] };
    rest = hintFirst([...pieces.slice(0, k).filter((p) => !foldable(p)), note, ...pieces.slice(k)]);
  }
  return rest;
}

