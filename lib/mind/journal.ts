// The one writer of a mind's steps: stamps ids and times, links steps to the
// run that is under way, and counts "work" so pacing can tell an empty wake
// from a busy one. The shell's agent commands append through it too.
import { formatTs, WORK_KINDS, type NewStep, type Step } from "../trajectory/schema";
import type { Clock, Ids, StepLog } from "./ports";

export { WORK_KINDS };

export interface RunContext {
  runId: string;
  triggerStep?: string;
}

export class Journal {
  private work = 0;
  /** The run under way, if any: steps appended while it is set carry its id. */
  run: RunContext | null = null;
  private readonly listeners = new Set<(step: Step) => void>();

  constructor(
    readonly log: StepLog,
    private readonly ids: Ids,
    private readonly clock: Clock,
  ) {}

  newId(): string {
    return this.ids.uuid();
  }

  /** Append a step; `step_id` may be given when a blob had to be named after it. */
  async append(step: NewStep & { step_id?: string }): Promise<Step> {
    const full = { ...step, step_id: step.step_id ?? this.ids.uuid(), ts: formatTs(this.clock.now()) } as Step;
    await this.log.append(full);
    if (WORK_KINDS.has(full.type)) this.work++;
    for (const l of this.listeners) l(full);
    return full;
  }

  /** Append a step inside the current run (run_id and trigger_step filled in). */
  inRun(step: NewStep): NewStep {
    if (!this.run) return step;
    return { run_id: this.run.runId, trigger_step: this.run.triggerStep, ...step } as NewStep;
  }

  /** How many work steps have been appended so far; compare two readings. */
  workCount(): number {
    return this.work;
  }

  onAppend(listener: (step: Step) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
