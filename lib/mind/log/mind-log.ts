// Where a step is written: the one writer of a mind (MindWriter) over its
// MindState, and the trajectory logs the loop reads and appends through
// (TrajectoryLog, one per trajectory, the root and each forked child).
//
// A trajectory log keeps its newest steps in memory: what the mind wrote is
// kept as it writes it, and only what others wrote (the page's messages, a
// config change) is taken in from outside (`ingest`). So an iteration's
// context costs no storage read and no parse. Reads beyond the window go to
// the store.
//
// Writes go behind, in order, one write in flight, for every trajectory of
// the mind at once: `append` keeps the step and queues it, so the run goes on
// to its command and its next model call while the store writes. What the
// model calls saw (`record`) joins the queue beside the step it led to. Each
// write is one `MindState.append`, one transaction: the steps queued since the
// last one, their usage rows and the records. The queue is bounded: a store
// slower than the mind holds the mind back instead of a backlog growing in
// memory. Whatever reads the store waits for the writes before it, and a write
// that fails fails the next append, so the run ends instead of going on with
// steps that are not stored; nothing queued after a failed write is written
// (the stored log stays a prefix of what was kept).
import type { SealedPast } from "../../context/sealed-past";
import type { SeenCall } from "../../context/replay";
import type { Step } from "../../trajectory/schema";
import type { ContextPort, StepLog, TrajPort } from "../ports";
import { InvalidStepError, type MindState, type TrajStep } from "../state/state";

/** Steps held in memory: enough for the context, the responder's look-back and `traj tail -n 500`. */
export const WINDOW = 1000;
/** A forked child's window: a nested run is short, and its parent holds the rest. */
export const CHILD_WINDOW = 200;

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

export interface WriterOptions {
  batch?: number;
  /** When a write starts once a step is queued: by default at once (a microtask later); the worker waits GATHER_MS. */
  nextTurn?: () => Promise<void>;
  /** A write whose records could not be stored was written again without them (what a call saw is derived data): this hears why. */
  onRecordError?: (e: unknown) => void;
}

/** The mind's one writer: a queue of steps and records, written in order, one batch in flight. It is the mind's ContextPort too. */
export class MindWriter implements ContextPort {
  private queued: TrajStep[] = [];
  /** Records by the id of their step, while the step is queued. */
  private riding = new Map<string, SeenCall[]>();
  /** Records whose step's write has begun: they go with the next write. */
  private loose: SeenCall[] = [];
  private writing: Promise<void> | null = null;
  private failed: unknown = null;
  private readonly batch: number;
  private readonly nextTurn: () => Promise<void>;

  constructor(
    readonly state: MindState,
    private readonly options: WriterOptions = {},
  ) {
    this.batch = options.batch ?? BATCH;
    this.nextTurn = options.nextTurn ?? (() => Promise.resolve());
  }

  /** Queue a step; resolves once it is queued (waiting first when the queue is full), rejects if an earlier write failed. */
  async append(trajId: string, step: Step): Promise<void> {
    while (this.queued.length >= this.batch && this.writing) await this.writing;
    if (this.failed) throw this.failed;
    this.queued.push({ trajId, step });
    this.pump();
  }

  /** Refuse at once when an earlier write failed (before a step is kept that could never be stored). */
  check(): void {
    if (this.failed) throw this.failed;
  }

  record(call: SeenCall): void {
    if (this.failed) return;
    if (this.queued.some((q) => q.step.step_id === call.step_id)) {
      const list = this.riding.get(call.step_id);
      if (list) list.push(call);
      else this.riding.set(call.step_id, [call]);
    } else {
      this.loose.push(call);
    }
    this.pump();
  }

  /** Start the next write, unless one is in flight (its end starts the next). */
  private pump(): void {
    if (this.writing || this.failed || (this.queued.length === 0 && this.loose.length === 0)) return;
    this.writing = this.nextTurn()
      .then(() => this.write())
      .catch((e: unknown) => {
        this.failed ??= e;
        this.queued = [];
        this.riding.clear();
        this.loose = [];
      })
      .finally(() => {
        this.writing = null;
        this.pump();
      });
  }

  private async write(): Promise<void> {
    const steps = this.queued.splice(0, this.batch);
    const seen = this.loose.splice(0);
    for (const { step } of steps) {
      const calls = this.riding.get(step.step_id);
      if (calls) {
        this.riding.delete(step.step_id);
        seen.push(...calls);
      }
    }
    try {
      await this.state.append({ steps, seen });
    } catch (e) {
      // A refused step: the ones before it are stored, with their records.
      if (e instanceof InvalidStepError || seen.length === 0) throw e;
      // Nothing of it was stored. The steps must not fail for their records (derived data): once more, without them.
      this.options.onRecordError?.(e);
      if (steps.length) await this.state.append({ steps, seen: [] });
    }
  }

  /** Resolves once every step and record so far is stored; rejects with the first write that failed. */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failed) throw this.failed;
  }
}

/** One trajectory of the mind as the loop sees it: its newest steps in memory, appends through the mind's writer. */
export class TrajectoryLog implements StepLog {
  private recent: Step[] = [];
  private ids = new Set<string>();
  private total = 0;
  private loaded: Promise<void> | null = null;
  private ready = false;
  /** Steps others appended before the first read finished; taken in after it (duplicates drop out by id). */
  private early: Step[] = [];
  readonly past?: () => SealedPast | undefined;

  constructor(
    readonly writer: MindWriter,
    readonly trajId: string,
    private readonly size = WINDOW,
    /** The trajectory's sealed past, read by the summarizer in the background: shown once it is loaded. */
    past?: SealedPast,
  ) {
    if (past) this.past = () => (past.loaded ? past : undefined);
  }

  private get state(): MindState {
    return this.writer.state;
  }

  private load(): Promise<void> {
    this.loaded ??= (async () => {
      const [tail, count] = await Promise.all([this.state.tail(this.trajId, this.size), this.state.count(this.trajId)]);
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
    this.writer.check();
    await this.writer.append(this.trajId, step);
    this.keep(step);
  }

  /** A step someone else appended to this trajectory (seen through the store's watch). */
  ingest(step: Step): void {
    if (this.ready) this.keep(step);
    else this.early.push(step);
  }

  async tail(n: number): Promise<Step[]> {
    await this.load();
    if (n <= this.recent.length || this.recent.length >= this.total) return n <= 0 ? [] : this.recent.slice(-n);
    await this.writer.flushed();
    return this.state.tail(this.trajId, n);
  }

  async count(): Promise<number> {
    await this.load();
    return this.total;
  }

  putBlob(name: string, text: string): Promise<void> {
    return this.state.putBlob(this.trajId, name, text);
  }

  blob(ref: string, trajId = this.trajId): Promise<string | undefined> {
    return this.state.blob(trajId, ref);
  }

  async find(idOrPrefix: string, limit: number) {
    await this.writer.flushed();
    return this.state.find(idOrPrefix, limit);
  }

  async search(text: string, limit: number) {
    await this.writer.flushed();
    return this.state.search(this.trajId, text, limit);
  }

  async ofKind(kinds: readonly string[]): Promise<Step[]> {
    await this.writer.flushed();
    return readAllOfKind(this.state, this.trajId, kinds);
  }

  async fork(child: { trajId: string; name: string }): Promise<TrajectoryLog> {
    await this.writer.flushed();
    await this.state.fork(this.trajId, child);
    return new TrajectoryLog(this.writer, child.trajId, Math.min(this.size, CHILD_WINDOW));
  }
}

/** Steps read by `ofKind` at once. */
const KIND_PAGE = 500;

/** Every step of a trajectory of these kinds, oldest first, page by page (MindState.ofKind). */
export async function readAllOfKind(state: MindState, trajId: string, kinds: readonly string[]): Promise<Step[]> {
  const out: Step[] = [];
  let after = 0;
  for (;;) {
    const page = await state.ofKind(trajId, kinds, KIND_PAGE, after);
    const last = page[page.length - 1];
    if (!last) return out;
    for (const s of page) out.push(s.step);
    after = last.seq;
  }
}

/** A trajectory as the agent's commands may see it: its reads only, so nothing in the shell can append to it. */
export function trajReader(log: StepLog): TrajPort {
  return {
    tail: (n) => log.tail(n),
    count: () => log.count(),
    find: (idOrPrefix, limit) => log.find(idOrPrefix, limit),
    search: (text, limit) => log.search(text, limit),
    blob: (ref, trajId) => log.blob(ref, trajId),
  };
}
