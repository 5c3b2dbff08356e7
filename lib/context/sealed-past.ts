// A live trajectory's past as the staircase needs it: the filtered stream's
// positions (step ids, in the order the store appended them) and the summaries
// sealed over its blocks. A mind that has sealed its past does not read every
// position back when it starts: each sealed summary carries the store's seqs
// of its first and last step, so the run of tier-0 blocks sealed from the
// start is known by its blocks' ends alone (all a staircase of sealed blocks
// names), and only the positions after it (less a margin, so the recent tail
// can be placed) are read from the index. Older summaries without seqs fall
// back to reading the index from the start. A summary is taken only when its
// first and last step are the stream's at its block's ends (the same check as
// the CLI's tiers.jsonl). Pure: the caller reads the store and hands in what it read.
import type { Step } from "../trajectory/schema";
import { inStream, inStreamType, sealedLookup, type ContextSource, type Summary } from "./build";
import { MISMATCH, type TierLine } from "./rollups";
import { blockRange, planner, type BlockRef, type Planner, type TierConfig } from "./staircase";

/** One entry of the keys-only index: enough to place a step in the stream. */
export interface StreamKey {
  seq: number;
  type: string;
  step_id: string;
}

/** A sealed summary as stored (the line format of tiers.jsonl). */
export type SealedTier = TierLine;

export type Accepted = "sealed" | "duplicate" | "mismatch";

const key = (b: BlockRef) => `${b.tier}:${b.index}`;

/** How far past the tail's length the index may run ahead of what this context has seen. */
const LOOK_BACK = 64;

/**
 * Positions read in full at the end of a sealed past when a mind starts: more
 * than a run's tail (300 raw steps) and the look-back, so the tail is always
 * placed among known ids.
 */
export const DENSE_TAIL = 512;

/** A tier-0 block of the sealed prefix, known by its ends. */
interface BlockEnds {
  firstId: string;
  lastId: string;
  firstSeq: number;
  lastSeq: number;
}

export class SealedPast {
  /** The sealed prefix [0, base): tier-0 blocks known by their ends (from their summaries), not id by id. */
  private readonly prefix: BlockEnds[] = [];
  private base = 0;
  /** Positions [base, length), id by id, and their seqs. */
  private readonly stream: string[] = [];
  private readonly seqs: number[] = [];
  private last = 0;
  private readonly sealed = new Map<string, Summary>();
  private readonly unmatched = new Set<string>();
  /** Why a block has no summary for now (a failed attempt): shown by its elision. */
  private readonly why = new Map<string, string>();

  /** Set once the store's summaries and index have been read: until then a context elides the past as before. */
  loaded = false;

  /**
   * The staircase's plan over this past, for buildContext's `plan`: kept
   * across calls, a block's cover worked out again only when it, or a block
   * inside it, is sealed or its reason changes. With the summarizer behind,
   * the plan walks hundreds of tier-0 blocks: planning it for every cut of
   * every call was a fifth of the worker's time at 10,000 steps.
   */
  readonly plan: Planner;

  constructor(readonly tiers: TierConfig) {
    this.plan = planner(tiers, sealedLookup(this.summary, this.missing));
  }

  /** Steps in the stream. */
  get length(): number {
    return this.base + this.stream.length;
  }

  /** The highest seq taken in: read the index after it to catch up. */
  get lastSeq(): number {
    return this.last;
  }

  get sealedCount(): number {
    return this.sealed.size;
  }

  /** Positions known by their block's ends only (the sealed prefix). */
  get prefixLength(): number {
    return this.base;
  }

  /**
   * Before the index is read: take the sealed prefix from the summaries that
   * carry their seqs (the run of tier-0 blocks from block 0, each of F steps,
   * seqs rising), less the last `dense` positions. Returns the seq to read the
   * index after (0: no prefix, read it all). Then `extend` with what the index
   * holds after it, and `accept` the summaries.
   */
  seed(tiers: readonly SealedTier[], dense = DENSE_TAIL): number {
    if (this.length > 0 || this.last > 0) throw new Error("seed a sealed past before taking in the index");
    const F = this.tiers.fanout;
    const byIndex = new Map<number, SealedTier>();
    for (const t of tiers) if (t.tier === 0 && !byIndex.has(t.index)) byIndex.set(t.index, t);
    const run: BlockEnds[] = [];
    for (let i = 0; ; i++) {
      const t = byIndex.get(i);
      if (!t || t.steps !== F || t.first_seq === undefined || t.last_seq === undefined || t.last_seq < t.first_seq) break;
      const prev = run.at(-1);
      if (prev && t.first_seq <= prev.lastSeq) break;
      run.push({ firstId: t.first_step, lastId: t.last_step, firstSeq: t.first_seq, lastSeq: t.last_seq });
    }
    const keep = Math.max(0, run.length - Math.ceil(dense / F));
    this.prefix.push(...run.slice(0, keep));
    this.base = keep * F;
    this.last = run[keep - 1]?.lastSeq ?? 0;
    return this.last;
  }

  /** Take in index entries in seq order; ones already taken in, or not in the stream, are skipped. Returns how many joined the stream. */
  extend(keys: readonly StreamKey[]): number {
    let added = 0;
    for (const k of keys) {
      if (k.seq <= this.last) continue;
      this.last = k.seq;
      if (!inStreamType(k.type)) continue;
      this.stream.push(k.step_id);
      this.seqs.push(k.seq);
      added++;
    }
    return added;
  }

  /** The id at a position; undefined past the end, or inside a sealed prefix block (only its ends are known). */
  idAt(pos: number): string | undefined {
    if (pos >= this.base) return this.stream[pos - this.base];
    const b = this.prefix[Math.floor(pos / this.tiers.fanout)];
    const off = pos % this.tiers.fanout;
    return off === 0 ? b?.firstId : off === this.tiers.fanout - 1 ? b?.lastId : undefined;
  }

  /** The store's seq of a position (known, like its id, at the ends of a sealed prefix block). */
  seqAt(pos: number): number | undefined {
    if (pos >= this.base) return this.seqs[pos - this.base];
    const b = this.prefix[Math.floor(pos / this.tiers.fanout)];
    const off = pos % this.tiers.fanout;
    return off === 0 ? b?.firstSeq : off === this.tiers.fanout - 1 ? b?.lastSeq : undefined;
  }

  /**
   * The ids of positions [from, to). Inside the sealed prefix only a block's
   * ends are known: asking for more is a bug in the caller (everything that
   * shows a sealed block names its ends), so it throws rather than guess.
   */
  ids(from: number, to: number): string[] {
    from = Math.max(0, from);
    to = Math.min(to, this.length);
    if (from >= to) return [];
    if (from >= this.base) return this.stream.slice(from - this.base, to - this.base);
    if (to - from === 1) {
      const id = this.idAt(from);
      if (id !== undefined) return [id];
    }
    throw new Error(`positions ${from}–${to} of the stream are inside its sealed past, known by their blocks' ends only`);
  }

  /** The store's seqs of a block's first and last step (to read its rows by range, and to seal it). */
  seqRange(block: BlockRef): { first: number; last: number } | undefined {
    const { from, to } = blockRange(block, this.tiers);
    if (to > this.length) return undefined;
    const first = this.seqAt(from);
    const last = this.seqAt(to - 1);
    return first === undefined || last === undefined ? undefined : { first, last };
  }

  /** A block is complete once the stream holds all its steps. */
  complete(block: BlockRef): boolean {
    return blockRange(block, this.tiers).to <= this.length;
  }

  isSealed(block: BlockRef): boolean {
    return this.sealed.has(key(block));
  }

  /** A stored summary: used when it is of this stream (first and last step at its block's ends); the first one of a block wins. */
  accept(t: SealedTier): Accepted {
    const k = key(t);
    if (this.sealed.has(k)) return "duplicate";
    const { from, to } = blockRange(t, this.tiers);
    const fits = to <= this.length && t.steps === to - from && this.idAt(from) === t.first_step && this.idAt(to - 1) === t.last_step;
    this.plan.forget(t);
    if (!fits) {
      this.unmatched.add(k);
      return "mismatch";
    }
    this.unmatched.delete(k);
    this.why.delete(k);
    this.sealed.set(k, { content: t.content, cites: t.cites });
    return "sealed";
  }

  /** Say why a block has no summary yet (cleared when it is sealed). */
  setMissing(block: BlockRef, reason: string | undefined): void {
    this.plan.forget(block);
    if (reason === undefined) this.why.delete(key(block));
    else this.why.set(key(block), reason);
  }

  summary = (block: BlockRef): Summary | undefined => this.sealed.get(key(block));

  missing = (block: BlockRef): string | undefined => this.why.get(key(block)) ?? (this.unmatched.has(key(block)) ? MISMATCH : undefined);

  /**
   * Complete blocks not sealed yet whose children are all sealed, finest tier
   * first, oldest first within a tier: what summarizing should do next.
   */
  pending(skip: (block: BlockRef) => boolean = () => false, limit = Infinity): BlockRef[] {
    const F = this.tiers.fanout;
    const out: BlockRef[] = [];
    for (let tier = 0, size = F; size <= this.length && out.length < limit; tier++, size *= F) {
      const count = Math.floor(this.length / size);
      for (let index = 0; index < count && out.length < limit; index++) {
        if (this.sealed.has(`${tier}:${index}`)) continue;
        let ready = true;
        for (let c = 0; ready && tier > 0 && c < F; c++) ready = this.sealed.has(`${tier - 1}:${index * F + c}`);
        if (ready && !skip({ tier, index })) out.push({ tier, index });
      }
    }
    return out;
  }

  /**
   * The stream as buildContext reads it, with `tail` (the trajectory's newest
   * steps, from memory) at hand. Steps of the tail the index has not taken in
   * yet (just written) follow the index's last; the index's newest entries
   * that the tail lacks (not seen by this context yet) are left for the next call.
   */
  source(tail: readonly Step[]): ContextSource {
    const steps = tail.filter(inStream);
    // Built for every model call: a position of the tail by id, and whether the index has it (no copies of ids).
    const byId = new Map<string, number>();
    steps.forEach((s, i) => byId.set(s.step_id, i));
    const n = this.length;
    /** The tail's position of the step at a stream position, if the tail holds it. */
    const tailAt = (p: number): number | undefined => {
      const id = this.idAt(p);
      return id === undefined ? undefined : byId.get(id);
    };
    // Where the tail meets the index: the newest index position the tail holds, looked for near the index's end only (never inside the sealed prefix).
    const low = Math.max(this.base, n - steps.length - LOOK_BACK);
    let end = n;
    while (end > low && tailAt(end - 1) === undefined) end--;
    // None of the tail there: it is all newer than the index (or the index is empty).
    if (end === low) end = n;
    let held = end;
    while (held > this.base && tailAt(held - 1) !== undefined) held--;
    const indexed: boolean[] = [];
    for (let p = low; p < end; p++) {
      const i = tailAt(p);
      if (i !== undefined) indexed[i] = true;
    }
    const after = steps.filter((s) => {
      const i = byId.get(s.step_id);
      return i === undefined || !indexed[i];
    });
    return {
      length: end + after.length,
      held,
      at: (p) => {
        if (p >= end) return after[p - end];
        const i = tailAt(p);
        return i === undefined ? undefined : steps[i];
      },
      ids: (from, to) => {
        const head = this.ids(from, Math.min(to, end));
        return to <= end ? head : [...head, ...after.slice(Math.max(0, from - end), to - end).map((s) => s.step_id)];
      },
    };
  }
}
