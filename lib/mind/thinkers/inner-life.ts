// The inner-life thinker ("monolith" in Headlong's words): wake, run, pace,
// sleep, one function per wake (think, act, learn, recall, goals, idle). It
// never answers chat (the responder does); a message resets its pacing and
// wakes it, and it may start a conversation when it has a reason. Status goes
// out through its events (lib/mind/events.ts); every decision that matters is a step.
import type { MindStatus } from "../../protocol";
import { isKind, type NewStep, type PacingConfig, type Step } from "../../trajectory/schema";
import { TriggerQueue, type Subscription } from "../dispatch";
import type { AlarmClock } from "../alarms/clock";
import type { Journal } from "../log/journal";
import { afterWake, delaySeconds, failureDelaySeconds, RESTED, type PacingState } from "../pacing/pacing";
import { outsideQuietS } from "../pacing/quiet-hours";
import type { Emit } from "../events";
import type { Clock, ContextPort, ModelPort, ShellPort } from "../ports";
import type { PacingSnapshot } from "../state/state";
import { taskText, type Instructions, type WakeTask } from "../run/prompt";
import type { SelfFile, SelfPort } from "../self/self";
import type { TrialDeps } from "../run/types";
import { AWAY_NOTE_AFTER_S, formatDuration } from "../recovery";
import { BuildCache, IDLE_BUDGET } from "../../context/build";
import { TokenCounter } from "../../context/tokens";
import { DEFAULT_NESTING, shellmRun, type Nesting, type RunDeps, type RunLimits, type RunOutcome, type ShellState } from "../run/run";
import { idleFirstLook, leanLook } from "./first-look";
import { wakeWhere, type WakeWhere } from "../where";

export const INNER_LIFE = "monolith";

/** The same non-idle outcome this many wakes in a row trips the loop-breaker. */
export const REPEAT_WAKES = 3;

export interface InnerLifeDeps {
  journal: Journal;
  model: ModelPort;
  shell: ShellPort;
  clock: Clock;
  selfName: string;
  /** The standing instructions, read at each wake (installed skills and the mind's own texts can change between wakes): a text, or rendered in parts with the first look's. */
  instructions: string | (() => Promise<string | Instructions>);
  /** The mind's own texts: each block's changes to them are recorded after it. */
  self?: SelfPort;
  /** What `self try` needs from the home (absent: trials cannot be tried). */
  trial?: TrialDeps;
  pacing: PacingConfig;
  limits: RunLimits;
  nesting?: Nesting;
  /** Where the shell starts; the thinker keeps it from run to run (see `shellState()`). */
  shellState: ShellState;
  /** What it tells its home: its status, the reply as it streams, the shell's state and the pacing to keep, a wait handed off. */
  emit: Emit;
  /** Where what each model call saw is recorded ("what the model saw"). */
  contexts?: ContextPort;
  /** Where the mind runs (and its lease epoch, when it holds one): written on every wake step. */
  where?: WakeWhere;
  /** The mind's alarms (lib/mind/alarms/clock.ts): a due one wakes the mind, and a wait ends when the next is due. */
  alarms?: AlarmClock;
  /** Where the pacing stood when the mind last stopped (its home keeps it): the mind goes on at that pace. */
  pacingState?: PacingSnapshot;
  /**
   * Its home keeps the waits between wakes: the loop ends at a wait (a
   * `handed-off` event says when the next wake is due) instead of waiting in
   * place (the server runner's wake queue holds idle minds as jobs, not as
   * sleeping loops).
   */
  keepsWaits?: boolean;
}

/** How a (re)started inner life begins: a fresh start, or going on after a wait its host kept (its pacing says whether a retry or a scheduled wake). */
export type FirstWake = WakeTask | { reason: "resume"; waitedS: number };

interface WakeOutcome extends RunOutcome {
  didWork: boolean;
}

/** What a wake's FINAL says it did: `FINAL="learn: …"`. Unprefixed answers are left as they are. */
const FUNCTION = /^\s*(think|act|learn|recall|goals|idle)\b\s*[:—–-]?\s*([\s\S]*)$/i;

/** The step that records the function a wake chose, if its FINAL names one. */
export function functionStep(answer: string): NewStep | null {
  const m = FUNCTION.exec(answer);
  if (!m) return null;
  const fn = (m[1] ?? "").toLowerCase();
  const rest = (m[2] ?? "").trim();
  if (fn === "idle") return { type: "idle", content: rest || "Nothing needed doing.", source: INNER_LIFE };
  if (fn === "think") return { type: "thought", content: rest || answer.trim(), source: INNER_LIFE };
  return { type: "observation", content: `${fn}: ${rest}`, source: INNER_LIFE };
}

export class InnerLife {
  readonly subscription: Subscription;
  private pacing: PacingState = RESTED;
  private failures = 0;
  private readonly queue = new TriggerQueue();
  private readonly stopController = new AbortController();
  private wakeController = new AbortController();
  /** A trigger arrived between wakes: the next wait is skipped. */
  private wakeRequested = false;
  /** An alert or a person's change to its memory came since the last wake began: the next one has news to read, so no lean first look. */
  private news = false;
  private shell: ShellState;
  private repeats = { outcome: "", count: 0 };
  /** Token counts kept across wakes: each step is counted once in the mind's life. */
  private readonly counter = new TokenCounter();
  /** What the context's build keeps from call to call, for the mind's life too: a wake's calls show mostly the pieces the last one showed. */
  private readonly contextCache = new BuildCache();
  private done: Promise<void> | null = null;
  /** The pacing as the host was last told it ("level/ticks/failures"). */
  private reported: string;

  constructor(private readonly deps: InnerLifeDeps) {
    this.shell = { ...deps.shellState };
    if (deps.pacingState) {
      this.pacing = { level: deps.pacingState.level, ticks: deps.pacingState.ticks };
      this.failures = deps.pacingState.failures;
    }
    this.reported = `${this.pacing.level}/${this.pacing.ticks}/${this.failures}`;
    // A person's message, an alert from an alert link, a person's change to its memory or goals, or its owner's change to its own texts: each cuts the wait short (only a message rests the pacing).
    this.subscription = {
      name: INNER_LIFE,
      types: ["message", "observation", "self-edit"],
      accept: (s) =>
        (isKind(s, "message") && s.from !== deps.selfName) ||
        (s.type === "observation" && (s.source === "alert" || s.source === "curation")) ||
        (isKind(s, "self-edit") && (s.by.kind === "human" || s.by.kind === "revert")),
    };
  }

  /** The shell's env and cwd as the last run left them. */
  shellState(): ShellState {
    return this.shell;
  }

  /** Tell the home the pacing, when it changed since last told. */
  private reportPacing(): void {
    const now = this.pacingState();
    const key = `${now.level}/${now.ticks}/${now.failures}`;
    if (key === this.reported) return;
    this.reported = key;
    this.deps.emit({ type: "pacing", pacing: now });
  }

  private status(status: MindStatus): void {
    this.deps.emit({ type: "status", status });
  }

  /** The pacing as it stands (what its home keeps between wakes). */
  pacingState(): PacingSnapshot {
    return { ...this.pacing, failures: this.failures };
  }

  /** Start with the first task (start-up, messages waiting, or going on after a kept wait); resolves when stopped or when the host took the wait. */
  start(first: FirstWake = { reason: "start" }): Promise<void> {
    if (first.reason === "resume") {
      const task: WakeTask = this.failures > 0 ? { reason: "retry", failures: this.failures } : { reason: "scheduled", level: this.pacing.level };
      this.done ??= this.loop(task, Math.max(0, first.waitedS));
    } else this.done ??= this.loop(first);
    return this.done;
  }

  /** Stop at once: a run under way is cut and recorded as stopped. */
  async stop(): Promise<void> {
    this.stopController.abort();
    this.wakeController.abort();
    await this.done;
  }

  /**
   * A trigger for this thinker (a message from someone). During a run it
   * waits (the run sees the message in its context at its next iteration,
   * once); between wakes it cuts the wait short.
   */
  offer(step: Step): void {
    // Only messages queue (a wake reads them all); an alert or a curation just cuts the wait short: the run sees it in its context.
    const dropped = isKind(step, "message") ? this.queue.push(step) : null;
    if (!isKind(step, "message")) this.news = true;
    if (dropped) {
      void this.deps.journal
        .append({ type: "feedback", content: `Too many messages at once: message ${dropped.step_id.slice(0, 8)} was dropped from the inner life's queue (the responder still sees it).`, source: "system" })
        .catch(() => undefined);
    }
    this.wakeRequested = true;
    this.wakeController.abort();
  }

  private async loop(first: WakeTask, waitedS = 0): Promise<void> {
    const { deps } = this;
    const stop = this.stopController.signal;
    let task = first;
    let delay = waitedS;
    while (!stop.aborted) {
      let outcome: WakeOutcome | null = null;
      let lastError: string | undefined;
      task = deps.alarms?.wakeFor(task) ?? task;
      try {
        outcome = await this.wake(task, delay);
        lastError = outcome.end === "model-error" ? (outcome.error ?? "the model call failed") : undefined;
      } catch (e) {
        // Storage failed (disk full, database closed): nothing can be written,
        // so back off and try again rather than crash.
        lastError = `Storage failed: ${errorText(e)}`;
      }
      if (stop.aborted) break;
      // At a spend cap: pause until the period rolls over (a raised cap restarts the mind; a message cuts the pause short).
      const paused = outcome?.end === "budget" ? outcome.paused : undefined;
      if (paused) {
        delay = Math.max(1, Math.ceil((paused.resetsAt - deps.clock.now()) / 1000));
      } else if (lastError !== undefined) {
        // A failed wake is not an idle one: it leaves the pacing level alone.
        this.failures++;
        // Honour a Retry-After, within reason (an hour at most).
        delay = Math.max(failureDelaySeconds(this.failures, deps.pacing), Math.min(outcome?.retryAfterS ?? 0, 3600));
      } else if (outcome) {
        this.failures = 0;
        const reactive = task.reason === "message" || task.reason === "start" || task.reason === "alarm";
        this.pacing = afterWake(this.pacing, { reactive, didWork: outcome.didWork }, deps.pacing);
        delay = delaySeconds(this.pacing.level, deps.pacing);
      }
      // The next alarm ends the wait when it is due sooner (not a retry's backoff or a spend pause: those hold).
      let alarms = paused || lastError !== undefined ? undefined : deps.alarms;
      // Quiet hours: no spontaneous wake inside them (a message still wakes the mind). An alarm rings
      // through them, unless its human said not (`held`): then one due inside them waits for their end
      // too, and the wait that runs to their end does not listen for alarms.
      const quiet = deps.pacing.quiet;
      const held = quiet?.alarms === false;
      if (alarms && held) delay = alarms.waitS(delay);
      if (quiet) {
        const outside = outsideQuietS(deps.clock.now(), delay, quiet);
        if (held && outside > delay) alarms = undefined;
        delay = outside;
      }
      if (this.queue.size > 0) delay = 0;
      if (alarms && !held) delay = alarms.waitS(delay);
      this.reportPacing();
      this.status(paused ? { state: "paused", reason: "budget", ...paused } : { state: "waiting", nextWakeAt: deps.clock.now() + delay * 1000, level: this.pacing.level, lastError });
      // The home keeps the wait (the server's wake queue): the loop ends here, and the mind is started again when it is due.
      if (delay > 0 && !this.wakeRequested && deps.keepsWaits) {
        deps.emit({ type: "handed-off", wakeAt: deps.clock.now() + delay * 1000, paused: paused !== undefined });
        return;
      }
      // A new message cuts the wait short, even a retry backoff.
      const waitStart = deps.clock.now();
      const intended = this.wakeRequested ? 0 : delay;
      if (delay > 0 && !this.wakeRequested) {
        const cut = AbortSignal.any([stop, this.wakeController.signal]);
        await (alarms ? alarms.sleep(delay * 1000, cut) : deps.clock.sleep(delay * 1000, cut));
      }
      if (stop.aborted) break;
      // The wake step records how long the mind actually waited.
      delay = Math.round(deps.clock.now() - waitStart) / 1000;
      // Far longer than meant: the tab was frozen or the computer slept. Say so, as after a restart.
      const lateS = Math.floor(delay - intended);
      if (lateS >= AWAY_NOTE_AFTER_S) {
        await deps.journal.append({ type: "observation", content: `I was away for ${formatDuration(lateS)} (my tab was frozen or the computer slept).`, source: "system" }).catch(() => undefined);
      }
      const messages = this.queue.takeMessages().filter((s) => isKind(s, "message"));
      if (messages.length > 0) {
        this.pacing = RESTED; // a message resets the pacing
        task = { reason: "message", messages };
      } else if (this.failures > 0) task = { reason: "retry", failures: this.failures };
      else task = { reason: "scheduled", level: this.pacing.level };
    }
    this.status({ state: "stopped" });
  }

  /** One wake: a wake marker, then a run, then the record of the function it chose. */
  private async wake(task: WakeTask, delay: number): Promise<WakeOutcome> {
    const { deps } = this;
    const { journal } = deps;
    const trigger = task.reason === "message" ? task.messages[task.messages.length - 1]?.step_id : task.reason === "alarm" ? task.alarms[0]?.id : undefined;
    const where = wakeWhere(deps.where);
    const wakeStep = await journal.append({ type: "wake", reason: task.reason, level: this.pacing.level, delay_s: delay, trigger_step: trigger, ...where, source: INNER_LIFE });
    this.wakeRequested = false;
    this.wakeController = new AbortController();
    const workBefore = journal.workCount();
    this.status({ state: "thinking" });
    const run = await journal.openRun({ model: deps.model.name, trigger_step: trigger ?? wakeStep.step_id, wake: wakeStep.step_id, launched_by: INNER_LIFE });
    // Which texts this run has (the guard counts the runs after a change to them).
    const textsAt = deps.self?.version();
    const given = typeof deps.instructions === "string" ? deps.instructions : await deps.instructions();
    const instructions = typeof given === "string" ? given : given.text;
    // A spontaneous wake looks around cheaply first (lean instructions, the life at its coarsest, the last few steps); once it acts, its calls get the whole budget.
    // One an alert or a person's change cut short is not idle: the lean look could show that step only as a summary, or not at all (it keeps just the open block).
    const idle = task.reason === "scheduled" && !this.news;
    this.news = false;
    const look = !idle ? undefined : typeof given === "string" ? idleFirstLook(given) : given.firstLook ? leanLook(given.firstLook.system) : undefined;
    const runDeps: RunDeps = {
      ports: { model: deps.model, shell: deps.shell, ...(deps.contexts ? { contexts: deps.contexts } : {}), ...(deps.self ? { self: deps.self } : {}), ...(deps.trial ? { trial: deps.trial } : {}) },
      config: { selfName: deps.selfName, limits: deps.limits, nesting: deps.nesting ?? DEFAULT_NESTING, replies: false },
      view: {
        instructions,
        ...(typeof given === "string" ? {} : { system: given.system }),
        counter: this.counter,
        cache: this.contextCache,
        // Instructions of another shape (a test's) have no lean form: the first call then only has the smaller budget.
        ...(look ? { firstCallBudget: look.budget, firstLook: look } : idle ? { firstCallBudget: IDLE_BUDGET } : {}),
      },
      depth: 0,
      signal: this.stopController.signal,
      emit: deps.emit,
    };
    const outcome = await shellmRun(runDeps, run, { prompt: taskText(task), shell: this.shell });
    // The texts its calls were made from: an idle wake's first call is its first look, the rest the standing instructions.
    const used: SelfFile[] = ["persona.md", ...(look ? (["first-look.md"] as const) : []), ...(!look || (outcome.calls ?? 1) > 1 ? (["instructions.md"] as const) : [])];
    if (textsAt !== undefined) await deps.self?.ran(textsAt, outcome, used).catch(() => undefined);
    this.shell = outcome.shell;
    if (outcome.shellChanged) deps.emit({ type: "shell-state", shell: outcome.shell });
    // Rung once the model has seen them: a failed call, a spend pause or a stop leaves them to ring at the next wake.
    if (task.reason === "alarm" && (outcome.end === "final" || outcome.end === "thought" || outcome.end === "error")) await deps.alarms?.ring(task.alarms, INNER_LIFE);
    if (outcome.end === "final" && outcome.answer !== undefined) {
      const record = functionStep(outcome.answer);
      if (record) await journal.append(record);
    }
    let didWork = journal.workCount() > workBefore;
    if (await this.repeating(outcome)) didWork = false;
    return { ...outcome, didWork };
  }

  /** The loop-breaker: the same non-idle outcome wake after wake is a mind going round in circles. */
  private async repeating(outcome: RunOutcome): Promise<boolean> {
    const said = outcome.end === "final" ? (outcome.answer ?? "").trim().toLowerCase() : "";
    if (!said || said === "idle" || said.startsWith("idle")) {
      this.repeats = { outcome: "", count: 0 };
      return false;
    }
    this.repeats = said === this.repeats.outcome ? { outcome: said, count: this.repeats.count + 1 } : { outcome: said, count: 1 };
    if (this.repeats.count < REPEAT_WAKES) return false;
    await this.deps.journal.append({
      type: "error",
      reason: "repeat",
      content: `The same outcome ${this.repeats.count} wakes in a row ("${said.slice(0, 80)}"): treated as idle, so the mind slows down. Try something new.`,
      source: "system",
    });
    return true;
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
