// Three harnesses for the same scripted day, on a simulated clock: reactive
// (a model wakes only for a message), scheduled (reactive plus a fixed timer)
// and persistent (Reverie's inner life, paced by the real lib/mind/pacing/pacing.ts).
// Pure: the clock is a number of seconds since the day began, advanced by the
// simulation itself; nothing here waits, reads the time or touches the world.
import { afterWake, delaySeconds, RESTED, type PacingState } from "../mind/pacing/pacing";
import { costUsd } from "../llm/price";
import { type Price } from "../mind/settings/model";
import type { PacingConfig } from "../trajectory/schema";
import type { ScriptedDay } from "./days";

export type HarnessKind = "reactive" | "scheduled" | "persistent";
export const HARNESSES: readonly HarnessKind[] = ["reactive", "scheduled", "persistent"];

/** What one kind of wake costs and how long it keeps the thinker busy: the simulation's assumptions. */
export interface WakeCostModel {
  /** Model calls per wake. */
  calls: number;
  /** Per call. */
  inputTokens: number;
  outputTokens: number;
  /** How long the wake's run lasts, seconds (a message that arrives meanwhile waits for it). */
  runS: number;
}

export interface Assumptions {
  /** A wake that answers messages. */
  messageWake: WakeCostModel;
  /** A wake that finds nothing new (the start, a timer tick, a paced wake) and idles. */
  idleWake: WakeCostModel;
  /** The scheduled harness's timer, seconds. */
  scheduleEveryS: number;
  /** The persistent harness's pacing (Reverie's default unless changed). */
  pacing: PacingConfig;
  price: Price;
}

/** start: the persistent mind started; timer: the scheduled harness's tick; paced: a wake the pacing chose. */
export type SimCause = "start" | "message" | "timer" | "paced";

export interface SimWake {
  atS: number;
  endS: number;
  cause: SimCause;
  /** Indices into the day's messages this wake answered. */
  answers: number[];
  /** Persistent only: the pacing level at the wake and the pause the pacing chose before it. */
  level?: number;
  pauseS?: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  usd: number;
}

export interface HarnessResult {
  harness: HarnessKind;
  wakes: SimWake[];
  calls: number;
  inputTokens: number;
  outputTokens: number;
  usd: number;
  /** Per message of the day: seconds from its arrival to the end of the wake that answered it (null: not answered within the day). */
  latencyS: (number | null)[];
}

/** When the thinker would wake of its own accord, given it is free from `freeAtS`. */
interface Schedule {
  nextAt(freeAtS: number): number;
  woke(wake: SimWake, worked: boolean): void;
  /** The pacing state a persistent wake records. */
  readonly state?: PacingState;
  /** How many queued messages one wake answers. */
  batch: "one" | "all";
}

const never = (): Schedule => ({ nextAt: () => Infinity, woke: () => undefined, batch: "one" });

/** A timer every `everyS`: a tick missed while busy fires once the thinker is free (ticks coalesce, as the dispatcher's do). */
function timer(everyS: number): Schedule {
  let nextTick = everyS;
  return {
    nextAt: () => nextTick,
    woke(wake) {
      if (wake.cause === "timer") nextTick = (Math.floor(wake.atS / everyS) + 1) * everyS;
    },
    batch: "one",
  };
}

/**
 * The inner life's loop (lib/mind/thinkers/inner-life.ts) over the real
 * pacing: a start wake at once, then a pause of delaySeconds(level) after each
 * wake; a message cuts the pause short and rests the pacing.
 */
function paced(cfg: PacingConfig): Schedule & { state: PacingState } {
  let state: PacingState = RESTED;
  let next = 0;
  let started = false;
  return {
    get state() {
      return state;
    },
    nextAt: (freeAtS) => (started ? next : freeAtS),
    woke(wake, worked) {
      started = true;
      state = afterWake(state, { reactive: wake.cause === "message" || wake.cause === "start", didWork: worked }, cfg);
      next = wake.endS + delaySeconds(state.level, cfg);
    },
    batch: "all",
  };
}

function scheduleOf(harness: HarnessKind, a: Assumptions): Schedule {
  if (harness === "reactive") return never();
  if (harness === "scheduled") return timer(a.scheduleEveryS);
  return paced(a.pacing);
}

/** The cost of one wake of `model` at `price`: the same arithmetic as a mind's own calls. */
export function wakeCost(model: WakeCostModel, price: Price): Pick<SimWake, "calls" | "inputTokens" | "outputTokens" | "usd"> {
  return {
    calls: model.calls,
    inputTokens: model.calls * model.inputTokens,
    outputTokens: model.calls * model.outputTokens,
    usd: model.calls * costUsd(price, { inputTokens: model.inputTokens, outputTokens: model.outputTokens }),
  };
}

/** Run one harness through `day`. Wakes that would begin after the day's end are not run. */
export function simulate(harness: HarnessKind, day: ScriptedDay, a: Assumptions): HarnessResult {
  const msgs = day.messages.map((m, i) => ({ ...m, i })).sort((x, y) => x.atS - y.atS || x.i - y.i);
  const schedule = scheduleOf(harness, a);
  const latencyS: (number | null)[] = day.messages.map(() => null);
  const wakes: SimWake[] = [];
  const queue: number[] = [];
  let next = 0;
  let t = 0;
  for (;;) {
    while (next < msgs.length && (msgs[next]?.atS ?? Infinity) <= t) queue.push(msgs[next++]?.i ?? 0);
    let cause: SimCause;
    if (queue.length > 0) cause = "message";
    else {
      const msgAt = msgs[next]?.atS ?? Infinity;
      const ownAt = Math.max(t, schedule.nextAt(t));
      const at = Math.min(msgAt, ownAt);
      if (at >= day.lengthS) break;
      t = at;
      if (msgAt <= ownAt) continue;
      cause = harness === "scheduled" ? "timer" : wakes.length === 0 ? "start" : "paced";
    }
    const answers = cause === "message" ? (schedule.batch === "all" ? queue.splice(0) : queue.splice(0, 1)) : [];
    const model = cause === "message" ? a.messageWake : a.idleWake;
    const prev = wakes[wakes.length - 1];
    const state = schedule.state;
    const wake: SimWake = {
      atS: t,
      endS: t + model.runS,
      cause,
      answers,
      ...(harness === "persistent" ? { level: cause === "message" ? 0 : (state?.level ?? 0), pauseS: prev ? t - prev.endS : 0 } : {}),
      ...wakeCost(model, a.price),
    };
    wakes.push(wake);
    for (const i of answers) latencyS[i] = wake.endS - (day.messages[i]?.atS ?? wake.endS);
    // Answering a message is work; a wake that found nothing new idles.
    schedule.woke(wake, cause === "message");
    t = wake.endS;
  }
  return {
    harness,
    wakes,
    calls: sum(wakes, (w) => w.calls),
    inputTokens: sum(wakes, (w) => w.inputTokens),
    outputTokens: sum(wakes, (w) => w.outputTokens),
    usd: sum(wakes, (w) => w.usd),
    latencyS,
  };
}

export function compareHarnesses(day: ScriptedDay, a: Assumptions): HarnessResult[] {
  return HARNESSES.map((h) => simulate(h, day, a));
}

const sum = <T>(xs: readonly T[], f: (x: T) => number) => xs.reduce((t, x) => t + f(x), 0);

/** The mean and the worst of the answered messages' latencies (null when none was answered). */
export function latencySummary(latencyS: readonly (number | null)[]): { meanS: number | null; maxS: number | null; unanswered: number } {
  const known = latencyS.filter((l): l is number => l !== null);
  return {
    meanS: known.length ? sum(known, (l) => l) / known.length : null,
    maxS: known.length ? Math.max(...known) : null,
    unanswered: latencyS.length - known.length,
  };
}
