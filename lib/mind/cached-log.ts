// The mind's own trajectory, kept in memory: what the mind wrote is appended
// here as it writes it, and only what others wrote (the page's messages, a
// config change) is taken in from outside (`ingest`). So an iteration's
// context costs no storage read and no parse. Reads beyond the window go to
// the store.
//
// Writes go behind, in order, one write in flight: `append` keeps the step at
// once and queues it, so the run goes on to its command and its next model
// call while the store writes. Steps appended while a write is in flight go
// together in the next one (one transaction when the store can: `appendAll`),
// so a step never waits for the one before it to be stored (an iteration used
// to wait for its reasoning step's write while its command ran). The queue is
// bounded: a store slower than the mind holds the mind back instead of a
// backlog growing in memory. Whatever reads the store waits for the writes
// before it, and a write that fails fails the next append, so the run ends
// instead of going on with steps that are not stored; nothing queued after a
// failed write is written (the stored log stays a prefix of what was kept).
import type { Step } from "../trajectory/schema";
import type { StepLog } from "./ports";
import type { BatchingLog } from "./step-log";

/** Steps held in memory: enough for the context, the responder's look-back and `traj tail -n 500`. */
export const WINDOW = 1000;

/**
 * Steps queued behind the write in flight, at most, and written together.
 * Under 50: Dexie reports a bigger bulk write as a change to the whole table,
 * which re-runs every live query on it in every open page.
 */
export const BATCH = 32;

/**
 * How long the worker lets steps gather before a write starts (its `nextTurn`).
 * Each write has a cost apart from its rows: a transaction, its commit, and
 * the change announced to every open tab, which each handle it. At the next
 * task, a mind on bench/mind's instant model wrote once per iteration: its
 * worker spent 1.4–1.9 ms per iteration on writes (a timeline of marks in the
 * worker over 600 calls, the page on the list of minds, a 2-core machine).
 * Gathering for 20 ms, 0.6–0.8 ms, and the median time between calls went
 * from 9.4–10.1 ms to 8.1–8.3 ms in two runs of three (the third ran while the
 * whole machine was slower). bench/mind at 10,000 steps, back to back: page
 * on the list 9.9 → 8.3–8.6 ms, showing the stream 10.6 → 8.0–8.8 ms (its page
 * hears a change a few times less often). Short against a person's eye (a
 * page shows new steps four times a second) and against what a closed tab can
 * cost: steps not yet written are lost with it, as a command cut off is, and
 * recovery closes the run they were in.
 */
export const GATHER_MS = 20;

export class CachedLog implements StepLog {
  private recent: Step[] = [];
  private ids = new Set<string>();
  private total = 0;
  private loaded: Promise<void> | null = null;
  private ready = false;
  /** Steps others appended before the first read finished; taken in after it (duplicates drop out by id). */
  private early: Step[] = [];
  /** Kept, not yet handed to the store. */
  private queued: Step[] = [];
  /** The write in flight, if any (it starts the next one when it ends). */
  private writing: Promise<void> | null = null;
  private failed: unknown = null;

  private readonly batch: number;
  private readonly nextTurn: () => Promise<void>;

  /**
   * `nextTurn` is when a write starts once a step is queued: by default at
   * once (a microtask later); the worker waits GATHER_MS, so the
   * steps of a few iterations of a fast mind (their reasoning, output, usage
   * and what each call saw) go in one write.
   */
  constructor(
    private readonly inner: BatchingLog,
    private readonly size = WINDOW,
    options: { batch?: number; nextTurn?: () => Promise<void> } = {},
  ) {
    this.batch = options.batch ?? BATCH;
    this.nextTurn = options.nextTurn ?? (() => Promise.resolve());
  }

  get trajId(): string {
    return this.inner.trajId;
  }

  private load(): Promise<void> {
    this.loaded ??= (async () => {
      const [tail, count] = await Promise.all([this.inner.tail(this.size), this.inner.count()]);
      this.recent = tail;
      this.ids = new Set(tail.map((s) => s.step_id));
      this.total = count;
      this.ready = true;
      for (const s of this.early.splice(0)) this.keep(s);
    })();
    return this.loaded;
  }

  private keep(step: Step): void {
    if (this.ids.has(step.step_id)) return;
    this.recent.push(step);
    this.ids.add(step.step_id);
    this.total++;
    if (this.recent.length > this.size * 1.5) {
      for (const s of this.recent.splice(0, this.recent.length - this.size)) this.ids.delete(s.step_id);
    }
  }

  async append(step: Step): Promise<void> {
    await this.load();
    while (this.queued.length >= this.batch && this.writing) await this.writing;
    if (this.failed) throw this.failed;
    this.keep(step);
    this.queued.push(step);
    this.pump();
  }

  /** Start the next write, unless one is in flight (its end starts the next). */
  private pump(): void {
    if (this.writing || this.failed || this.queued.length === 0) return;
    this.writing = this.nextTurn()
      .then(() => this.write(this.queued.splice(0, this.batch)))
      .catch((e: unknown) => {
        this.failed ??= e;
        this.queued = [];
      })
      .finally(() => {
        this.writing = null;
        this.pump();
      });
  }

  private async write(steps: Step[]): Promise<void> {
    if (this.inner.appendAll) return this.inner.appendAll(steps);
    for (const s of steps) await this.inner.append(s);
  }

  /** Resolves once every step appended so far is stored; rejects with the first write that failed. */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failed) throw this.failed;
  }

  /** A step someone else appended to this trajectory (seen through the store's watch). */
  ingest(step: Step): void {
    if (this.ready) this.keep(step);
    else this.early.push(step);
  }

  async tail(n: number): Promise<Step[]> {
    await this.load();
    if (n <= this.recent.length || this.recent.length >= this.total) return n <= 0 ? [] : this.recent.slice(-n);
    await this.flushed();
    return this.inner.tail(n);
  }

  async count(): Promise<number> {
    await this.load();
    return this.total;
  }

  putBlob = (name: string, text: string) => this.inner.putBlob(name, text);
  blob = (ref: string, trajId?: string) => this.inner.blob(ref, trajId);
  find = async (idOrPrefix: string, limit: number) => {
    await this.flushed();
    return this.inner.find(idOrPrefix, limit);
  };
  search = async (text: string, limit: number) => {
    await this.flushed();
    return this.inner.search(text, limit);
  };
  fork = async (child: { trajId: string; name: string }) => {
    await this.flushed();
    return this.inner.fork(child);
  };
}
