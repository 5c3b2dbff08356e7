// The outer loop: wake, run, pace, sleep, and wake at once when a message
// arrives. One per running mind. Status goes out through `onStatus`; every
// decision that matters is a step.
import type { MindStatus } from "../protocol";
import type { PacingConfig, Step, StepOf } from "../trajectory/schema";
import type { Journal, RunScope } from "./journal";
import { afterWake, delaySeconds, failureDelaySeconds, RESTED, type PacingState } from "./pacing";
import type { Clock, ModelPort, ShellPort } from "./ports";
import { messageLine, taskText, type WakeTask } from "./prompt";
import { DEFAULT_NESTING, shellmRun, type Nesting, type RunLimits, type RunOutcome, type ShellState } from "./run";

type Message = StepOf<"message">;

interface WakeOutcome extends RunOutcome {
  didWork: boolean;
  /** Messages the run replied to. */
  answered: Set<string>;
}

export interface LoopDeps {
  journal: Journal;
  model: ModelPort;
  shell: ShellPort;
  clock: Clock;
  selfName: string;
  /** The standing instructions, read at each wake (installed skills can change between wakes). */
  instructions: string | (() => Promise<string>);
  pacing: PacingConfig;
  limits: RunLimits;
  nesting?: Nesting;
  /** Where the shell starts; the loop keeps it from run to run (see `shellState()`). */
  shellState: ShellState;
  onStatus: (status: MindStatus) => void;
  onPartial?: (text: string) => void;
}

/** A wake-gap note is written when the mind starts after this long away. */
export const AWAY_NOTE_AFTER_S = 300;
/** How far back start-up looks for unfinished runs and unanswered messages. */
const STARTUP_SCAN = 200;

export class MindLoop {
  private pacing: PacingState = RESTED;
  private failures = 0;
  private pending: Message[] = [];
  private readonly stopController = new AbortController();
  private wakeController = new AbortController();
  /** A message arrived between wakes: the next wait is skipped. */
  private wakeRequested = false;
  /** The run under way, if any: messages that arrive meanwhile are appended to it as feedback. */
  private run: RunScope | null = null;
  private shell: ShellState;
  private done: Promise<void> | null = null;

  constructor(private readonly deps: LoopDeps) {
    this.shell = { ...deps.shellState };
  }

  /** The shell's env and cwd as the last run left them. */
  shellState(): ShellState {
    return this.shell;
  }

  /** Start the loop; resolves when it has stopped. */
  start(): Promise<void> {
    this.done ??= this.loop();
    return this.done;
  }

  /** Stop at once: a run under way is cut and recorded as stopped. */
  async stop(): Promise<void> {
    this.stopController.abort();
    this.wakeController.abort();
    await this.done;
  }

  /**
   * A new step appeared in the trajectory (from this tab, another tab, or the
   * mind itself). Messages from others wake the mind at once.
   */
  async notify(step: Step): Promise<void> {
    if (step.type !== "message") return;
    const m = step as Message;
    if (m.from === this.deps.selfName) return;
    if (this.pending.some((p) => p.step_id === m.step_id)) return;
    this.pending.push(m);
    const run = this.run;
    if (run) {
      // The run under way sees it at its next iteration.
      try {
        await run.append({ type: "feedback", content: `A message arrived while you were busy:\n${messageLine(m)}` });
      } catch {
        // Storage failed (the run itself will report it). The message stays
        // pending, so it still wakes the mind after this run; the dispatcher
        // calls notify without awaiting it, so a rejection would go unhandled.
      }
    } else {
      // Between wakes: cut the wait short (or skip it, if it has not begun).
      this.wakeRequested = true;
      this.wakeController.abort();
    }
  }

  /** Put messages back in front of the queue (a failed wake did not get to them). */
  private requeue(messages: Message[]): void {
    const queued = new Set(this.pending.map((m) => m.step_id));
    this.pending = [...messages.filter((m) => !queued.has(m.step_id)), ...this.pending];
  }

  private async loop(): Promise<void> {
    const { deps } = this;
    const stop = this.stopController.signal;
    let task: WakeTask;
    let delay = 0;
    try {
      task = await this.startUp();
    } catch (e) {
      deps.onStatus({ state: "stopped", lastError: `Could not start (reading or writing the trajectory failed): ${errorText(e)}` });
      return;
    }
    while (!stop.aborted) {
      let outcome: WakeOutcome | null = null;
      let lastError: string | undefined;
      try {
        outcome = await this.wake(task, delay);
        lastError = outcome.end === "model-error" ? (outcome.error ?? "the model call failed") : undefined;
      } catch (e) {
        // Storage failed (disk full, database closed): nothing can be written,
        // so back off and try again rather than crash.
        lastError = `Storage failed: ${errorText(e)}`;
      }
      if (stop.aborted) break;
      const failed = lastError !== undefined;
      if (failed) {
        // A failed wake is not an idle one: it leaves the pacing level alone,
        // and the messages it was woken for are still waiting for an answer.
        this.failures++;
        if (task.reason === "message") this.requeue(task.messages.filter((m) => !outcome?.answered.has(m.step_id)));
      } else if (outcome) {
        this.failures = 0;
        const reactive = task.reason === "message" || task.reason === "start";
        this.pacing = afterWake(this.pacing, { reactive, didWork: outcome.didWork }, deps.pacing);
      }
      this.pending = this.pending.filter((m) => !outcome?.answered.has(m.step_id));
      if (failed) delay = failureDelaySeconds(this.failures, deps.pacing);
      else delay = this.pending.length > 0 ? 0 : delaySeconds(this.pacing.level, deps.pacing);
      deps.onStatus({ state: "waiting", nextWakeAt: deps.clock.now() + delay * 1000, level: this.pacing.level, lastError });
      // A new message cuts the wait short, even a retry backoff.
      const waitStart = deps.clock.now();
      if (delay > 0 && !this.wakeRequested) await deps.clock.sleep(delay * 1000, AbortSignal.any([stop, this.wakeController.signal]));
      if (stop.aborted) break;
      // The wake step records how long the mind actually waited.
      delay = Math.round(deps.clock.now() - waitStart) / 1000;
      if (this.pending.length > 0) {
        task = { reason: "message", messages: this.pending };
        this.pending = [];
      } else if (this.failures > 0) {
        task = { reason: "retry", failures: this.failures };
      } else {
        task = { reason: "scheduled", level: this.pacing.level };
      }
    }
    deps.onStatus({ state: "stopped" });
  }

  /** One wake: a wake marker, then a run. */
  private async wake(task: WakeTask, delay: number): Promise<WakeOutcome> {
    const { deps } = this;
    const { journal } = deps;
    const trigger = task.reason === "message" ? task.messages[task.messages.length - 1]?.step_id : undefined;
    const wakeStep = await journal.append({
      type: "wake",
      reason: task.reason,
      level: this.pacing.level,
      delay_s: delay,
      trigger_step: trigger,
      source: "monolith",
    });
    this.wakeRequested = false;
    this.wakeController = new AbortController();
    const answered = new Set<string>();
    const off = journal.onAppend((s) => {
      const reply = s as Partial<Message>;
      if (s.type === "message" && reply.reply_to) answered.add(reply.reply_to);
    });
    const workBefore = journal.workCount();
    deps.onStatus({ state: "thinking" });
    try {
      this.run = await journal.openRun({ model: deps.model.name, trigger_step: trigger ?? wakeStep.step_id, wake: wakeStep.step_id, launched_by: "monolith" });
      const outcome = await shellmRun(
        {
          model: deps.model,
          shell: deps.shell,
          selfName: deps.selfName,
          instructions: typeof deps.instructions === "string" ? deps.instructions : await deps.instructions(),
          limits: deps.limits,
          nesting: deps.nesting ?? DEFAULT_NESTING,
          depth: 0,
          signal: this.stopController.signal,
          onIteration: (runId, iteration) => deps.onStatus({ state: "thinking", runId, iteration }),
          onPartial: deps.onPartial,
        },
        this.run,
        { prompt: taskText(task), shell: this.shell },
      );
      this.shell = outcome.shell;
      return { ...outcome, didWork: journal.workCount() > workBefore, answered };
    } finally {
      this.run = null;
      off();
    }
  }

  /**
   * Before the first wake: close a run that a closed tab cut off, note a long
   * absence, and pick up messages that arrived while the mind was not running.
   */
  private async startUp(): Promise<WakeTask> {
    const { journal, clock } = this.deps;
    const tail = await journal.log.tail(STARTUP_SCAN);
    const lastRun = [...tail].reverse().find((s) => s.type === "shellm-run");
    if (lastRun) {
      const ended = tail.some((s) => s.run_id === lastRun.step_id && (s.type === "final" || s.type === "error" || s.type === "thought"));
      if (!ended) {
        await journal.append({
          type: "error",
          reason: "interrupted",
          content: "This run was cut off (the tab closed or the mind stopped mid-thought).",
          run_id: lastRun.step_id,
          source: "system",
        });
      }
    }
    const newest = tail[tail.length - 1];
    const awayS = newest ? Math.floor((clock.now() - Date.parse(newest.ts)) / 1000) : 0;
    if (awayS >= AWAY_NOTE_AFTER_S) {
      await journal.append({ type: "observation", content: `I was away for ${formatDuration(awayS)}; my last step was at ${newest?.ts}.`, source: "system" });
    }
    const sinceRun = lastRun ? tail.slice(tail.indexOf(lastRun)) : tail;
    const replied = new Set(tail.flatMap((s) => (s.type === "message" && (s as Message).reply_to ? [(s as Message).reply_to as string] : [])));
    const unanswered = sinceRun.filter(
      (s): s is Message => s.type === "message" && (s as Message).from !== this.deps.selfName && !replied.has(s.step_id),
    );
    if (unanswered.length > 0) return { reason: "message", messages: unanswered };
    return { reason: "start" };
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function formatDuration(s: number): string {
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
}
