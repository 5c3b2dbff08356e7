// One running mind: its thinkers behind the dispatcher. The inner life keeps
// its own schedule (pacing); the responder answers each message at once, in
// parallel, so a long inner-life run never delays a reply. Start-up recovery
// runs once, before either thinks. In quiet hours that hold messages, a
// message waits at this door until they end.
import { isKind, type BudgetConfig, type Step, type StepOf } from "../trajectory/schema";
import { AlarmClock } from "./alarms/clock";
import { budgetedModel, type SpendPort } from "./budget/budget";
import { Dispatcher, wakes } from "./dispatch";
import { heldUntil, quietUntil } from "./pacing/quiet-hours";
import type { Journal } from "./log/journal";
import type { SealedPast } from "../context/sealed-past";
import type { ModelPort, TierStorePort } from "./ports";
import { recoverAtStart } from "./recovery";
import type { SelfTexts } from "./self/self";
import { Summarizer } from "./summaries/summarizer";
import type { Emit } from "./events";
import { InnerLife, type FirstWake, type InnerLifeDeps } from "./thinkers/inner-life";
import { Responder } from "./thinkers/responder";
import type { Watchers } from "./watchers/watchers";

/** How far back start-up looks for unfinished runs and unanswered messages. */
const STARTUP_SCAN = 200;
/** Offered steps remembered, at least (up to twice as many). */
const OFFERED_KEPT = 1024;

/** The mind keeps its own alarms (read from its log at start). */
export interface MindDeps extends Omit<InnerLifeDeps, "alarms"> {
  /** Its persona, for a mind without texts of its own (`self`): a test's. */
  persona: string;
  /** The responder's model (the mind's own, unless its human picked another). */
  responderModel?: ModelPort;
  /** The mind's spend caps and what it has spent: every thinker's model calls go through them. */
  budget?: { caps: BudgetConfig; spend: SpendPort };
  /**
   * The sealed past beside the log: a summarizer seals its complete blocks in
   * the background, with `model` (the mind's own when absent). `before`: the
   * first wake waits for the sealed past to be read (a host that starts the
   * mind for one wake at a time; a tab starts at once and shows it once read).
   */
  summaries?: { past: SealedPast; store: TierStorePort; model?: ModelPort; readBeforeFirstWake?: boolean };
  /** The watchers it wrote itself (lib/mind/watchers/watchers.ts): they run after its steps from its start until it stops. */
  watchers?: Watchers;
}

/** The thinkers that only read the mind's own texts (the responder, the summarizer) read them as recorded, at each call. */
const selfTexts = (deps: MindDeps): { self?: () => SelfTexts } => {
  const self = deps.self;
  return self ? { self: () => self.texts() } : {};
};

export class Mind {
  readonly innerLife: InnerLife;
  readonly responder: Responder;
  readonly summarizer: Summarizer | null;
  /** The mind's alarms: a due one wakes the inner life. */
  readonly alarms: AlarmClock;
  private readonly dispatcher: Dispatcher;
  private readonly stopController = new AbortController();
  private done: Promise<void> | null = null;
  /** Messages held for the end of the quiet stretch (pacing.quiet.messages "hold"), and alerts (alarms false), oldest first. */
  private held: Step[] = [];
  /** The steps offered to the thinkers lately, by id. */
  private offered = new Set<string>();

  constructor(private readonly deps: MindDeps) {
    const capped = (m: ModelPort) => (deps.budget ? budgetedModel(m, deps.budget.caps, deps.budget.spend, deps.clock) : m);
    this.summarizer = deps.summaries
      ? new Summarizer({ ...deps.summaries, model: capped(deps.summaries.model ?? deps.model), clock: deps.clock, journal: deps.journal.forThinker(), selfName: deps.selfName, persona: deps.persona, ...selfTexts(deps) })
      : null;
    const emit: Emit = (e) => {
      // Summaries wait for the inner life to be between runs, and while its model is failing or its spend is paused (one endpoint: let its own calls find it working first).
      if (e.type === "status") this.summarizer?.setBusy("inner-life", e.status.state === "thinking" || e.status.state === "paused" || (e.status.state === "waiting" && e.status.lastError !== undefined));
      deps.emit(e);
    };
    this.alarms = new AlarmClock(deps.journal, deps.clock);
    this.innerLife = new InnerLife({ ...deps, model: capped(deps.model), emit, alarms: this.alarms });
    this.responder = new Responder({
      // Its replies and decisions are not the inner life's work (they must not reset its pacing).
      journal: deps.journal.forThinker(),
      model: capped(deps.responderModel ?? deps.model),
      selfName: deps.selfName,
      persona: deps.persona,
      ...selfTexts(deps),
      signal: this.stopController.signal,
      onBusy: (messageId) => this.summarizer?.setBusy("responder", messageId !== null),
      contexts: deps.contexts,
      where: deps.where,
    });
    this.dispatcher = new Dispatcher([this.responder]);
  }

  get journal(): Journal {
    return this.deps.journal;
  }

  /**
   * Recover, then think; resolves when stopped (or, with a host that keeps
   * the waits, when the inner life handed its wait over and every reply is
   * written). `resume`: the mind goes on after a wait its host kept, due at
   * `dueAt` (ms): the wake is its pacing's, and only lateness beyond the
   * due time counts as being away.
   */
  start(opts: { resume?: { dueAt: number } } = {}): Promise<void> {
    this.done ??= this.run(opts.resume);
    return this.done;
  }

  private async run(resume: { dueAt: number } | undefined): Promise<void> {
    const { journal, clock, selfName } = this.deps;
    let unanswered: Step[];
    let waitedS = 0;
    try {
      const tail = await journal.log.tail(STARTUP_SCAN);
      const last = tail[tail.length - 1];
      if (resume && last) waitedS = Math.max(0, Math.round(clock.now() - Date.parse(last.ts)) / 1000);
      const recovery = recoverAtStart(tail, clock.now(), selfName, resume ? { quietUntil: resume.dueAt } : {});
      for (const step of recovery.steps) await journal.append(step);
      unanswered = recovery.unanswered;
      // Every alarm ever set, not the tail's: one set 100,000 steps ago still rings.
      await this.alarms.load();
    } catch (e) {
      this.alarms.dispose();
      this.deps.emit({ type: "status", status: { state: "stopped", lastError: `Could not start (reading or writing the trajectory failed): ${e instanceof Error ? e.message : String(e)}` } });
      return;
    }
    void this.summarizer?.start();
    this.deps.watchers?.start();
    if (this.deps.summaries?.readBeforeFirstWake) await this.summarizer?.load();
    // Found unanswered at start inside quiet hours that hold messages: they wait for the stretch's end like new ones.
    // A step that came in while it started may be in the tail as well: offered once.
    const admitted = unanswered.filter((m) => this.firstOffer(m.step_id) && !this.hold(m));
    for (const m of admitted) this.dispatcher.offer(m);
    const messages = admitted.filter((m): m is StepOf<"message"> => isKind(m, "message") && wakes(this.innerLife.subscription, m));
    const first: FirstWake = messages.length ? { reason: "message", messages } : resume ? { reason: "resume", waitedS } : { reason: "start" };
    await this.innerLife.start(first);
    await this.dispatcher.settled();
    this.alarms.dispose();
  }

  /** Resolves once the summarizer has nothing ready to seal and no watcher has a run under way or waiting: a host putting the mind away between wakes lets them finish. */
  async caughtUp(): Promise<void> {
    await Promise.all([this.summarizer?.caughtUp(), this.deps.watchers?.idle()]);
  }

  /** A step appeared in the trajectory (from this tab, another tab, or the mind itself). */
  notify(step: Step): void {
    if (!this.firstOffer(step.step_id)) return;
    this.deps.watchers?.offer(step);
    this.admit(step);
  }

  /** True the first time a step is offered (a step can reach the mind twice as it starts: in its tail, and through its way in). */
  private firstOffer(stepId: string): boolean {
    if (this.offered.has(stepId)) return false;
    this.offered.add(stepId);
    // Cut back in one go: far more than can come twice.
    if (this.offered.size > 2 * OFFERED_KEPT) this.offered = new Set([...this.offered].slice(-OFFERED_KEPT));
    return true;
  }

  /** A step let in to the thinkers (a held message, again at its stretch's end). */
  private admit(step: Step): void {
    this.summarizer?.poke();
    if (this.hold(step)) return;
    this.dispatcher.offer(step);
    if (wakes(this.innerLife.subscription, step)) this.innerLife.offer(step);
  }

  /**
   * Quiet hours that hold messages: a person's message arriving inside them
   * is kept here, short of both thinkers, so neither the responder answers it
   * nor the inner life wakes for it; at the stretch's end it is handed to
   * them as if it had just come (each reaches the responder once, which
   * claims it). One door for both, so the two cannot disagree about a
   * message. True when `step` was held. A host that put the mind away
   * meanwhile (its wait handed off) finds the message unanswered at its next
   * start, which is the stretch's end at the latest.
   */
  private hold(step: Step): boolean {
    // An alert from an alert link is an alarm from outside: it rings through quiet hours unless its human said alarms wait.
    const alert = step.type === "observation" && step.source === "alert";
    // A person's change to its memory or goals is already made; only the wake it brings waits, as a message's would.
    const curation = step.type === "observation" && step.source === "curation";
    if (!alert && !curation && (!isKind(step, "message") || step.from === this.deps.selfName)) return false;
    const quiet = this.deps.pacing.quiet;
    const until = alert ? (quiet?.alarms === false ? quietUntil(this.deps.clock.now(), quiet) : null) : heldUntil(this.deps.clock.now(), quiet);
    if (until === null) return false;
    if (this.held.some((m) => m.step_id === step.step_id)) return true;
    this.held.push(step);
    // Every message held now waits for the same stretch's end: one wait lets them all in.
    if (this.held.length === 1) void this.release(until);
    return true;
  }

  /** At `until` (ms, on the mind's clock), the held messages come in, unless the mind stopped first. */
  private async release(until: number): Promise<void> {
    const { clock } = this.deps;
    const stopped = this.stopController.signal;
    await clock.sleep(Math.max(0, until - clock.now()), stopped);
    if (stopped.aborted) return;
    const due = this.held;
    this.held = [];
    // Through the door again: a clock that slept past another quiet stretch's start holds them on.
    for (const m of due) this.admit(m);
  }

  /** Stop at once: runs under way are cut and recorded as stopped. */
  async stop(): Promise<void> {
    this.stopController.abort();
    await Promise.all([this.innerLife.stop(), this.summarizer?.stop(), this.deps.watchers?.stop()]);
    await this.done;
  }
}
