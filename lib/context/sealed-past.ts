// A live trajectory's past as the staircase needs it: the filtered stream's
// positions (step ids, in the order the store appended them) and the summaries
// sealed over its blocks. Positions come from the store's keys-only index, so
// the whole stream is known without reading a row; the steps themselves are
// at hand only for the recent tail. A summary is taken only when its first and
// last step are the stream's at its block's ends (the same check as the CLI's
// tiers.jsonl). Pure: the caller reads the store and hands in what it read.
import type { Step } from "../trajectory/schema";
import { inStream, inStreamType, type ContextSource, type Summary } from "./build";
import { MISMATCH, type TierLine } from "./rollups";
import { blockRange, type BlockRef, type TierConfig } from "./staircase";

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

export class SealedPast {
  private readonly stream: string[] = [];
  private readonly seqs: number[] = [];
  private last = 0;
  private readonly sealed = new Map<string, Summary>();
  private readonly unmatched = new Set<string>();
  /** Why a block has no summary for now (a failed attempt): shown by its elision. */
  private readonly why = new Map<string, string>();

  /** Set once the store's summaries and index have been read: until then a context elides the past as before. */
  loaded = false;

  constructor(readonly tiers: TierConfig) {}

  /** Steps in the stream. */
  get length(): number {
    return this.stream.length;
  }

  /** The highest seq taken in: read the index after it to catch up. */
  get lastSeq(): number {
    return this.last;
  }

  get sealedCount(): number {
    return this.sealed.size;
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

  ids(from: number, to: number): string[] {
    return this.stream.slice(Math.max(0, from), Math.min(to, this.stream.length));
  }

  /** The store's seqs of a block's first and last step (to read its rows by range). */
  seqRange(block: BlockRef): { first: number; last: number } | undefined {
    const { from, to } = blockRange(block, this.tiers);
    if (to > this.stream.length) return undefined;
    return { first: this.seqs[from] as number, last: this.seqs[to - 1] as number };
  }

  /** A block is complete once the stream holds all its steps. */
  complete(block: BlockRef): boolean {
    return blockRange(block, this.tiers).to <= this.stream.length;
  }

  isSealed(block: BlockRef): boolean {
    return this.sealed.has(key(block));
  }

  /** A stored summary: used when it is of this stream (first and last step at its block's ends); the first one of a block wins. */
  accept(t: SealedTier): Accepted {
    const k = key(t);
    if (this.sealed.has(k)) return "duplicate";
    const { from, to } = blockRange(t, this.tiers);
    const fits = to <= this.stream.length && t.steps === to - from && this.stream[from] === t.first_step && this.stream[to - 1] === t.last_step;
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
    for (let tier = 0, size = F; size <= this.stream.length && out.length < limit; tier++, size *= F) {
      const count = Math.floor(this.stream.length / size);
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
    const byId = new Map(steps.map((s) => [s.step_id, s]));
    const n = this.stream.length;
    // Where the tail meets the index: the newest index position the tail holds, looked for near the index's end only.
    const low = Math.max(0, n - steps.length - LOOK_BACK);
    let end = n;
    while (end > low && !byId.has(this.stream[end - 1] as string)) end--;
    // None of the tail there: it is all newer than the index (or the index is empty).
    if (end === low) end = n;
    let held = end;
    while (held > 0 && byId.has(this.stream[held - 1] as string)) held--;
    const known = new Set(this.stream.slice(low, end));
    const after = steps.filter((s) => !known.has(s.step_id));
    const ids = this.stream;
    return {
      length: end + after.length,
      held,
      at: (p) => (p < end ? byId.get(ids[p] as string) : after[p - end]),
      ids: (from, to) => {
        const head = ids.slice(Math.max(0, from), Math.min(to, end));
        return to <= end ? head : [...head, ...after.slice(Math.max(0, from - end), to - end).map((s) => s.step_id)];
      },
    };
  }
}
