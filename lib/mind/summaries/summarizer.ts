// The live summarizer: in the background, whenever a block of the filtered
// stream is complete (tier 0: F steps; tier k: F sealed blocks of tier k-1),
// it summarizes the block in the mind's own voice and seals it beside the log.
// It never blocks a thought: one call at a time, started only while the
// thinkers are between runs (or after it has waited `maxWaitMs` for a quiet
// moment, so a mind that never rests is still summarized: then it runs beside
// a run, and on a one-slot endpoint at most one of the mind's calls waits
// behind it). A failed summary is retried later with backoff; meanwhile its
// block falls back to its children or an elision that says why, and each
// failure is an `error` step (reason `summary-failed`). Pure over ports.
import { blockRange, type BlockRef } from "../../context/staircase";
import type { SealedPast } from "../../context/sealed-past";
import { formatTs, type Step } from "../../trajectory/schema";
import type { Journal } from "../log/journal";
import type { Clock, ModelPort, TierStorePort } from "../ports";
import { childrenMessage, citesIn, cleanSummary, selfSummaryInstructions, stepsMessage } from "./prompt";
import type { SelfTexts } from "../self/self";
import { defaultSelfTexts } from "../self/defaults";

export const SUMMARIZER = "summarizer";
export const SUMMARY_FAILED = "summary-failed";

export interface SummarizerDeps {
  past: SealedPast;
  store: TierStorePort;
  /** The mind's model, or the cheaper one its human picked for summaries (through the same spend caps). */
  model: ModelPort;
  clock: Clock;
  /** Where failures are logged (a thinker's journal: its steps are not the inner life's work). */
  journal: Journal;
  selfName: string;
  /** Its persona, when it has no texts of its own (a test's mind): the shipped summarizer.md speaks with it. */
  persona: string;
  /** Its own texts (summarizer.md, persona.md) as recorded, read at each call. */
  self?: () => SelfTexts;
  /** First retry after a failure, doubling up to `retryCapMs`. */
  retryMs?: number;
  retryCapMs?: number;
  /** How long to wait for the thinkers to be between runs before going beside them. */
  maxWaitMs?: number;
  /** When nothing is pending and nothing pokes, look again after this long anyway. */
  idleMs?: number;
}

interface Failure {
  count: number;
  retryAt: number;
}

const key = (b: BlockRef) => `${b.tier}:${b.index}`;
const coarsest = (blocks: readonly BlockRef[]) => blocks.reduce<BlockRef | undefined>((best, b) => (!best || b.tier > best.tier ? b : best), undefined);
const id8 = (id: string | undefined) => (id ?? "").slice(0, 8);
const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class Summarizer {
  private readonly stopController = new AbortController();
  private wakeup = new AbortController();
  private readonly busy = new Set<string>();
  private readonly failures = new Map<string, Failure>();
  private done: Promise<void> | null = null;
  private loading: Promise<boolean> | null = null;
  /** Who waits for the summarizer to have nothing ready (caughtUp). */
  private idleWaiters: (() => void)[] = [];
  /** Model calls made, sealed or not (for the status line and tests). */
  calls = 0;

  constructor(private readonly deps: SummarizerDeps) {}

  /** Read what is sealed and the stream's positions, then summarize until stopped. */
  start(): Promise<void> {
    this.done ??= this.loop();
    return this.done;
  }

  async stop(): Promise<void> {
    this.stopController.abort();
    this.wakeup.abort();
    await this.done;
    this.releaseIdle();
  }

  /** The sealed summaries and the stream's positions, read once: a host that wants its first wake to see the sealed past awaits this. */
  load(): Promise<boolean> {
    this.loading ??= this.readPast();
    return this.loading;
  }

  /** Resolves once no block is ready to summarize (or the summarizer stopped): a host about to put the mind away lets it finish first. */
  caughtUp(): Promise<void> {
    if (this.signal.aborted) return Promise.resolve();
    const waiting = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.poke();
    return waiting;
  }

  private releaseIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Something happened (a step, the end of a run): look for complete blocks. */
  poke(): void {
    this.wakeup.abort();
  }

  /** A thinker starts or ends a run or a call; summaries wait for all of them to be between runs. */
  setBusy(thinker: string, busy: boolean): void {
    if (busy) this.busy.add(thinker);
    else if (this.busy.delete(thinker) && this.busy.size === 0) this.poke();
  }

  private get signal(): AbortSignal {
    return this.stopController.signal;
  }

  private async readPast(): Promise<boolean> {
    const { past, store } = this.deps;
    try {
      if (!past.loaded) {
        // The summaries first: those that carry their seqs place the sealed past without reading its positions.
        const tiers = await store.list();
        past.extend(await store.keysAfter(past.length === 0 && past.lastSeq === 0 ? past.seed(tiers) : past.lastSeq));
        for (const t of tiers) past.accept(t);
        past.loaded = true;
      }
      return true;
    } catch (e) {
      await this.log(`I could not read my sealed summaries (${errorText(e)}); my context elides the past until I can.`);
      return false;
    }
  }

  private async loop(): Promise<void> {
    const { past, store } = this.deps;
    if (!(await this.load())) return this.releaseIdle();
    while (!this.signal.aborted) {
      try {
        past.extend(await store.keysAfter(past.lastSeq));
      } catch {
        // The store is unreachable for now: what is known is used; the next look reads again.
      }
      const now = this.deps.clock.now();
      // The coarsest ready block first (oldest within its tier): a sealed parent stands for its ten children in every call's staircase, so a backlog sealed tier 0 first would leave each context hundreds of pieces long, and slow to build, until it is worked off.
      const block = coarsest(past.pending((b) => (this.failures.get(key(b))?.retryAt ?? 0) > now));
      if (!block) {
        this.releaseIdle();
        await this.rest(this.nextRetry(now));
        continue;
      }
      await this.quiet();
      if (this.signal.aborted) break;
      await this.summarize(block);
    }
  }

  /** Sleep until poked, the next retry is due, or `idleMs` passes. */
  private async rest(untilRetry: number | undefined): Promise<void> {
    const ms = Math.max(1, untilRetry ?? this.deps.idleMs ?? 600_000);
    if (!this.wakeup.signal.aborted) await this.deps.clock.sleep(ms, AbortSignal.any([this.signal, this.wakeup.signal]));
    if (this.wakeup.signal.aborted) this.wakeup = new AbortController();
  }

  private nextRetry(now: number): number | undefined {
    let next: number | undefined;
    for (const f of this.failures.values()) if (f.retryAt > now) next = Math.min(next ?? Infinity, f.retryAt - now);
    return next;
  }

  /** Wait until no thinker is in a run, for `maxWaitMs` at most. */
  private async quiet(): Promise<void> {
    const start = this.deps.clock.now();
    const maxWait = this.deps.maxWaitMs ?? 120_000;
    while (this.busy.size > 0 && !this.signal.aborted) {
      const left = maxWait - (this.deps.clock.now() - start);
      if (left <= 0) return;
      await this.rest(left);
    }
  }

  private async summarize(block: BlockRef): Promise<void> {
    const { past, model, selfName, persona, self } = this.deps;
    const { from, to } = blockRange(block, past.tiers);
    // A block's ends (all that is known of a block inside the sealed past), and its seqs, which its row keeps.
    const first = past.idAt(from);
    const last = past.idAt(to - 1);
    // A pending block lies within the stream, its ends known even inside the sealed prefix; should that ever not hold, it is not sealed.
    if (first === undefined || last === undefined) return this.failed(block, "its first or last step is not in the stream");
    const seqs = past.seqRange(block);
    let messages;
    let candidates: string[];
    if (block.tier === 0) {
      const ids = past.ids(from, to);
      let steps: Step[];
      try {
        steps = seqs ? await this.deps.store.steps(seqs.first, seqs.last) : [];
      } catch (e) {
        return this.failed(block, `its steps could not be read (${errorText(e)})`);
      }
      if (steps.length !== ids.length || steps.some((s, i) => s.step_id !== ids[i])) return this.failed(block, "its steps could not be read as the stream has them");
      messages = stepsMessage(steps, selfName);
      candidates = ids;
    } else {
      const F = past.tiers.fanout;
      const children = Array.from({ length: F }, (_, c) => ({ tier: block.tier - 1, index: block.index * F + c }));
      const sums = children.flatMap((c) => past.summary(c) ?? []);
      if (sums.length < children.length) return; // a child lost its summary: it is pending again, and this block after it
      messages = childrenMessage(
        sums,
        children.map((c) => {
          const r = blockRange(c, past.tiers);
          return { first: past.idAt(r.from) ?? "", last: past.idAt(r.to - 1) ?? "" };
        }),
      );
      candidates = [...new Set(sums.flatMap((s) => s.cites))];
    }

    this.calls++;
    const reply = await model.complete({ instructions: selfSummaryInstructions(self?.() ?? defaultSelfTexts(persona), selfName), messages, signal: this.signal });
    if (this.signal.aborted) return;
    if (!reply.ok) {
      const retryAt = reply.paused ? reply.paused.resetsAt : reply.retryAfterS !== undefined ? this.deps.clock.now() + reply.retryAfterS * 1000 : undefined;
      return this.failed(block, reply.error, retryAt);
    }
    const content = cleanSummary(reply.text);
    if (!content) return this.failed(block, "the model sent an empty summary");
    const tier = { tier: block.tier, index: block.index, content, cites: citesIn(content, candidates), first_step: first, last_step: last, steps: to - from, ...(seqs ? { first_seq: seqs.first, last_seq: seqs.last } : {}) };
    try {
      const stored = await this.deps.store.seal({ ...tier, model: model.name, created: formatTs(this.deps.clock.now()) });
      if (stored === "sealed") past.accept(tier);
      // Sealed already (by another of this mind's tabs, or its other home): the stored one stands; read it, never write over it.
      else for (const t of await this.deps.store.list()) if (t.tier === block.tier && t.index === block.index) past.accept(t);
      // The stored one did not fit this stream (its home numbered the steps otherwise): a failure, retried with backoff, never a loop of calls.
      if (past.pending(() => false).some((b) => b.tier === block.tier && b.index === block.index)) return this.failed(block, "a summary of it is stored already but does not fit the stream as it is here");
      this.failures.delete(key(block));
    } catch (e) {
      return this.failed(block, `it could not be stored (${errorText(e)})`);
    }
  }

  private async failed(block: BlockRef, why: string, retryAt?: number): Promise<void> {
    const { clock, past } = this.deps;
    const k = key(block);
    const count = (this.failures.get(k)?.count ?? 0) + 1;
    const backoff = Math.min(this.deps.retryCapMs ?? 3_600_000, (this.deps.retryMs ?? 30_000) * 2 ** (count - 1));
    const at = Math.max(retryAt ?? 0, clock.now() + backoff);
    this.failures.set(k, { count, retryAt: at });
    past.setMissing(block, `its summary failed (${why.slice(0, 160)}); I will try again`);
    const { from, to } = blockRange(block, past.tiers);
    const span = `${id8(past.idAt(from))}…${id8(past.idAt(to - 1))}`;
    await this.log(`I could not summarize steps ${span} (tier ${block.tier}, block ${block.index}): ${why}. I will try again in ${Math.round((at - clock.now()) / 1000)} s; until then my context shows that stretch in finer pieces or elided.`);
  }

  private async log(content: string): Promise<void> {
    await this.deps.journal.append({ type: "error", reason: SUMMARY_FAILED, content, source: SUMMARIZER }).catch(() => undefined);
  }
}
