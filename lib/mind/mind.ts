// One running mind: its thinkers behind the dispatcher. The inner life keeps
// its own schedule (pacing); the responder answers each message at once, in
// parallel, so a long inner-life run never delays a reply. Start-up recovery
// runs once, before either thinks.
import { isKind, type Step, type StepOf } from "../trajectory/schema";
import { Dispatcher, wakes } from "./dispatch";
import type { Journal } from "./journal";
import type { ModelPort } from "./ports";
import { recoverAtStart } from "./recovery";
import { InnerLife, type InnerLifeDeps } from "./thinkers/inner-life";
import { Responder } from "./thinkers/responder";

/** How far back start-up looks for unfinished runs and unanswered messages. */
const STARTUP_SCAN = 200;

export interface MindDeps extends InnerLifeDeps {
  persona: string;
  /** The responder's model (the mind's own, unless its human picked another). */
  responderModel?: ModelPort;
}

export class Mind {
  readonly innerLife: InnerLife;
  readonly responder: Responder;
  private readonly dispatcher: Dispatcher;
  private readonly stopController = new AbortController();
  private done: Promise<void> | null = null;

  constructor(private readonly deps: MindDeps) {
    this.innerLife = new InnerLife(deps);
    this.responder = new Responder({
      // Its replies and decisions are not the inner life's work (they must not reset its pacing).
      journal: deps.journal.forThinker(),
      model: deps.responderModel ?? deps.model,
      selfName: deps.selfName,
      persona: deps.persona,
      signal: this.stopController.signal,
    });
    this.dispatcher = new Dispatcher([this.responder]);
  }

  get journal(): Journal {
    return this.deps.journal;
  }

  /** Recover, then think; resolves when stopped. */
  start(): Promise<void> {
    this.done ??= this.run();
    return this.done;
  }

  private async run(): Promise<void> {
    const { journal, clock, selfName } = this.deps;
    let unanswered: Step[];
    try {
      const recovery = recoverAtStart(await journal.log.tail(STARTUP_SCAN), clock.now(), selfName);
      for (const step of recovery.steps) await journal.append(step);
      unanswered = recovery.unanswered;
    } catch (e) {
      this.deps.onStatus({ state: "stopped", lastError: `Could not start (reading or writing the trajectory failed): ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    for (const m of unanswered) this.dispatcher.offer(m);
    const messages = unanswered.filter((m): m is StepOf<"message"> => isKind(m, "message") && wakes(this.innerLife.subscription, m));
    await this.innerLife.start(messages.length ? { reason: "message", messages } : { reason: "start" });
    await this.dispatcher.settled();
  }

  /** A step appeared in the trajectory (from this tab, another tab, or the mind itself). */
  notify(step: Step): void {
    this.dispatcher.offer(step);
    if (wakes(this.innerLife.subscription, step)) this.innerLife.offer(step);
  }

  /** Stop at once: runs under way are cut and recorded as stopped. */
  async stop(): Promise<void> {
    this.stopController.abort();
    await this.innerLife.stop();
    await this.done;
  }
}
