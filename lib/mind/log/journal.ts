// The one writer of a trajectory: stamps ids and times, and counts "work" so
// pacing can tell an empty wake from a busy one. A run is an explicit scope:
// `openRun` writes its header and returns the appender that the run and its
// commands write through, so nothing reads a shared "current run" slot.
import { childHeader } from "../../trajectory/dag";
import { formatTs, stampStep, WORK_KINDS, type NewStep, type Step } from "../../trajectory/schema";
import type { Clock, Ids, StepLog } from "../ports";

export { WORK_KINDS };

/** What a trajectory's journals share with the children forked from it. */
interface Shared {
  work: number;
  /** Told of each step appended, with the trajectory it went to (the root's, or a forked child's). */
  readonly listeners: Set<(step: Step, trajId: string) => void>;
  /** Ids this mind wrote lately, so a watch of the store can skip them (the mind keeps what it wrote). */
  readonly written: Set<string>;
}

/** How many written ids are remembered, at least (up to twice as many): far more than a watch can be behind. */
const WRITTEN_KEPT = 4096;

export type Appendable = NewStep & { step_id?: string };

export interface RunHeader {
  model: string;
  trigger_step?: string;
  wake?: string;
  launched_by: string;
}

/** One run: appends carry its run_id and trigger_step. */
export interface RunScope {
  readonly runId: string;
  readonly triggerStep?: string;
  readonly journal: Journal;
  append(step: Appendable): Promise<Step>;
}

export class Journal {
  private readonly shared: Shared;

  constructor(
    readonly log: StepLog,
    private readonly ids: Ids,
    private readonly clock: Clock,
    shared?: Shared,
  ) {
    this.shared = shared ?? { work: 0, listeners: new Set(), written: new Set() };
  }

  newId(): string {
    return this.ids.uuid();
  }

  now(): number {
    return this.clock.now();
  }

  /** Append a step; `step_id` may be given when a blob had to be named after it. */
  append(step: Appendable): Promise<Step> {
    return this.write(stampStep(step, { id: step.step_id ?? this.ids.uuid(), now: this.clock.now() }));
  }

  /** Write a step someone else made for the mind (a person's message): its id kept, stamped now, so the trajectory reads in time order. */
  take(step: Step): Promise<Step> {
    return this.write({ ...step, ts: formatTs(this.clock.now()) });
  }

  private async write(full: Step): Promise<Step> {
    const { written } = this.shared;
    written.add(full.step_id);
    // Cut back in one go, not one delete per append: a Set's iteration skips the holes deletes leave at its front, so the oldest entry costs more to find the longer it runs.
    if (written.size > 2 * WRITTEN_KEPT) {
      const newest = [...written].slice(-WRITTEN_KEPT);
      written.clear();
      for (const id of newest) written.add(id);
    }
    await this.log.append(full);
    if (WORK_KINDS.has(full.type)) this.shared.work++;
    for (const l of this.shared.listeners) l(full, this.log.trajId);
    return full;
  }

  /** Write a run's header and return the scope its steps are appended through. */
  async openRun(header: RunHeader): Promise<RunScope> {
    const head = await this.append({ type: "shellm-run", ...header });
    const runId = head.step_id;
    const triggerStep = header.trigger_step;
    return {
      runId,
      triggerStep,
      journal: this,
      append: (step) => this.append({ run_id: runId, trigger_step: triggerStep, ...step }),
    };
  }

  /**
   * Fork a child trajectory: register it, write its first line (pointing at
   * `forkStepId` in this trajectory) and return a journal for it. Children
   * share the work count and listeners, so a reply written by a nested run
   * counts as the mind's.
   */
  async fork(child: { trajId: string; name: string; forkStepId: string }): Promise<Journal> {
    const log = await this.log.fork({ trajId: child.trajId, name: child.name });
    const journal = new Journal(log, this.ids, this.clock, this.shared);
    const header = childHeader(child.trajId, child.name, { trajId: this.log.trajId, forkStepId: child.forkStepId }, formatTs(this.clock.now()));
    await log.append({ ...header, source: "system" });
    return journal;
  }

  /**
   * The same trajectory for another thinker: what it writes is known as the
   * mind's (`wrote`, listeners), but its work is counted apart, so one
   * thinker's steps never make another's wake look busy.
   */
  forThinker(): Journal {
    return new Journal(this.log, this.ids, this.clock, { work: 0, listeners: this.shared.listeners, written: this.shared.written });
  }

  /** Did this mind (any of its journals) write the step with this id? */
  wrote(stepId: string): boolean {
    return this.shared.written.has(stepId);
  }

  /** How many work steps have been appended so far; compare two readings. */
  workCount(): number {
    return this.shared.work;
  }

  onAppend(listener: (step: Step, trajId: string) => void): () => void {
    this.shared.listeners.add(listener);
    return () => this.shared.listeners.delete(listener);
  }
}
