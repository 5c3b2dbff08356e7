// The alarms as a running mind keeps them: the book read whole from the log
// at start (however long ago an alarm was set), then kept current from every
// step the mind appends (an alarm set by any of its runs, or rung). The inner
// life waits on it: a wait ends at the next alarm, and an alarm set during a
// wait (by the responder) shortens that wait. No timers of its own: the Clock.
import type { Step } from "../../trajectory/schema";
import { AlarmBook, type Alarm } from "./alarms";
import type { Journal } from "../log/journal";
import type { Clock } from "../ports";
import type { WakeTask } from "../run/prompt";

export class AlarmClock {
  private readonly book = new AlarmBook();
  /** Aborted (and replaced) whenever the pending alarms change: a wait on it looks again. */
  private changed = new AbortController();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly journal: Journal,
    private readonly clock: Clock,
  ) {
    this.unsubscribe = journal.onAppend((step) => this.take(step));
  }

  /** Read every alarm step of the log (the steps appended meanwhile are folded in once, whichever comes first). */
  async load(): Promise<void> {
    for (const step of await this.journal.log.ofKind(["alarm"])) this.take(step);
  }

  private take(step: Step): void {
    if (!this.book.apply(step)) return;
    this.changed.abort();
    this.changed = new AbortController();
  }

  /** When the soonest pending alarm is due (ms), if any. */
  nextDue(): number | undefined {
    return this.book.next()?.at;
  }

  /** Alarms due now, soonest first. */
  due(): Alarm[] {
    return this.book.due(this.clock.now());
  }

  /** A wait of `delayS` seconds, cut to end when the next alarm is due (0 when one is due already). */
  waitS(delayS: number): number {
    const next = this.nextDue();
    return next === undefined ? delayS : Math.min(delayS, Math.max(0, (next - this.clock.now()) / 1000));
  }

  /** Sleep `ms`, or until an alarm is due, whichever comes first, looking again whenever the alarms change; early when `signal` aborts. */
  async sleep(ms: number, signal: AbortSignal): Promise<void> {
    const end = this.clock.now() + ms;
    while (!signal.aborted) {
      const until = Math.min(end, this.nextDue() ?? end);
      const left = until - this.clock.now();
      if (left <= 0) return;
      await this.clock.sleep(left, AbortSignal.any([signal, this.changed.signal]));
    }
  }

  /** The task for a wake: a spontaneous one (scheduled, or a retry) becomes an alarm wake when alarms are due. */
  wakeFor(task: WakeTask): WakeTask {
    if (task.reason !== "scheduled" && task.reason !== "retry") return task;
    const due = this.due();
    return due.length ? { reason: "alarm", alarms: due, now: this.clock.now() } : task;
  }

  /** Record that these alarms rang: they are no longer pending, here or after a restart. */
  async ring(alarms: readonly Alarm[], source: string): Promise<void> {
    for (const a of alarms) await this.journal.append({ type: "alarm", op: "rang", alarm: a.id, source });
  }

  dispose(): void {
    this.unsubscribe();
  }
}
