// The dispatcher: who wakes for which step, and what waits while a thinker is
// busy. Thinkers subscribe to step types; a step a thinker wrote does not wake
// that thinker unless it asks to (`triggerSelf`). While a thinker is busy,
// `message` and `action` triggers queue first in, first out (bounded: the
// oldest is dropped, with a note), and every other trigger coalesces to the
// latest. When it frees up: messages first, then actions, then the rest.
import type { Step } from "../trajectory/schema";

export interface Subscription {
  /** The thinker's name, as written in the `source` of its steps. */
  name: string;
  types: readonly string[];
  /** Wake on steps this thinker wrote itself. */
  triggerSelf?: boolean;
  /** A finer filter, e.g. "messages addressed to me". */
  accept?: (step: Step) => boolean;
}

export const QUEUE_LIMIT = 16;
const FIFO_KINDS = new Set(["message", "action"]);

/** Does `step` wake the thinker with subscription `sub`? */
export function wakes(sub: Subscription, step: Step): boolean {
  if (!sub.types.includes(step.type)) return false;
  if (!sub.triggerSelf && step.source === sub.name) return false;
  return sub.accept ? sub.accept(step) : true;
}

/** What a busy thinker has waiting. Pure: every method returns what happened. */
export class TriggerQueue {
  private readonly messages: Step[] = [];
  private readonly actions: Step[] = [];
  private latest: Step | null = null;

  constructor(private readonly limit = QUEUE_LIMIT) {}

  /** Queue a trigger; returns the trigger dropped to make room, if any. */
  push(step: Step): Step | null {
    if (!FIFO_KINDS.has(step.type)) {
      this.latest = step;
      return null;
    }
    const fifo = step.type === "message" ? this.messages : this.actions;
    if (fifo.some((s) => s.step_id === step.step_id)) return null;
    fifo.push(step);
    return fifo.length > this.limit ? (fifo.shift() ?? null) : null;
  }

  /** The next trigger to handle: messages first, then actions, then the latest of the rest. */
  take(): Step | null {
    const next = this.messages.shift() ?? this.actions.shift() ?? this.latest;
    if (next === this.latest) this.latest = null;
    return next ?? null;
  }

  /** Every queued message, oldest first, taken out of the queue (a wake can read them all at once). */
  takeMessages(): Step[] {
    return this.messages.splice(0, this.messages.length);
  }

  get size(): number {
    return this.messages.length + this.actions.length + (this.latest ? 1 : 0);
  }

  has(stepId: string): boolean {
    return [...this.messages, ...this.actions, ...(this.latest ? [this.latest] : [])].some((s) => s.step_id === stepId);
  }
}

/** A thinker the dispatcher runs: one trigger at a time. */
export interface Handler {
  readonly subscription: Subscription;
  handle(trigger: Step): Promise<void>;
  /** A trigger was dropped from a full queue. */
  dropped?(step: Step): void;
}

/**
 * Runs handlers: a trigger for an idle handler starts it at once; for a busy
 * one it waits in that handler's queue. Handlers never throw into here (a
 * failure is theirs to record); one that does is logged as dropped work.
 */
export class Dispatcher {
  private readonly state = new Map<Handler, { busy: boolean; queue: TriggerQueue }>();
  private readonly running = new Set<Promise<void>>();

  constructor(handlers: readonly Handler[], limit = QUEUE_LIMIT) {
    for (const h of handlers) this.state.set(h, { busy: false, queue: new TriggerQueue(limit) });
  }

  offer(step: Step): void {
    for (const [handler, s] of this.state) {
      if (!wakes(handler.subscription, step)) continue;
      if (!s.busy) {
        this.start(handler, step);
        continue;
      }
      const dropped = s.queue.push(step);
      if (dropped) handler.dropped?.(dropped);
    }
  }

  private start(handler: Handler, trigger: Step): void {
    const s = this.state.get(handler);
    if (!s) return;
    s.busy = true;
    const run = (async () => {
      let next: Step | null = trigger;
      while (next) {
        try {
          await handler.handle(next);
        } catch {
          // A handler records its own failures; nothing may stop the dispatcher.
        }
        next = s.queue.take();
      }
      s.busy = false;
    })();
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /** Resolves when every handler is idle (for an orderly stop, and tests). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
