// The mind's own trajectory, kept in memory: what the mind wrote is appended
// here as it writes it, and only what others wrote (the page's messages, a
// config change) is taken in from outside (`ingest`). So an iteration's
// context costs no storage read and no parse. Reads beyond the window go to
// the store.
//
// Writes go behind, one at a time: `append` keeps the step at once and starts
// its write, so the run goes on to its command while the store writes (an
// iteration used to wait for two writes); the next append waits for it. Whatever
// reads the store waits for it too, and a write that fails fails the next
// append, so the run ends instead of going on with steps that are not stored.
import type { Step } from "../trajectory/schema";
import type { StepLog } from "./ports";

/** Steps held in memory: enough for the context, the responder's look-back and `traj tail -n 500`. */
export const WINDOW = 1000;

export class CachedLog implements StepLog {
  private recent: Step[] = [];
  private ids = new Set<string>();
  private total = 0;
  private loaded: Promise<void> | null = null;
  private ready = false;
  /** Steps others appended before the first read finished; taken in after it (duplicates drop out by id). */
  private early: Step[] = [];
  /** The queue of writes: settles when every step appended so far is stored. */
  private writes: Promise<void> = Promise.resolve();
  private failed: unknown = null;

  constructor(
    private readonly inner: StepLog,
    private readonly size = WINDOW,
  ) {}

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
    // One write in flight at most: it overlaps whatever the mind does next,
    // and a store slower than the mind holds the mind back instead of a
    // backlog growing in memory.
    await this.writes;
    if (this.failed) throw this.failed;
    this.keep(step);
    this.writes = this.inner.append(step).catch((e: unknown) => {
      this.failed ??= e;
    });
  }

  /** Resolves once every step appended so far is stored; rejects with the first write that failed. */
  async flushed(): Promise<void> {
    await this.writes;
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
