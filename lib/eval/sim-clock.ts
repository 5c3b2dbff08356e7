// The simulated clock a scenario runs on (issue 23): real work takes the time
// it takes, and every wait is skipped. The mind's core reads time and waits
// only through its Clock port, so a week of its life plays in minutes.
//
// Time runs at the real rate from the last jump. Whenever the world has
// settled (no work marked busy, and nothing new for `settleMs` of real time)
// and someone sleeps, the clock jumps to the earliest sleeper's due time and
// wakes it. A sleeper whose due time comes in real time (a short wait during
// a model call) wakes then, as on a real clock. Work is marked busy by the
// host around what takes real time: model calls, blocks in the sandbox.
import type { Clock } from "../mind/ports";

export interface SimClock extends Clock {
  /** Real work in flight: time passes as it really does, and the clock does not jump until it ends. */
  busy<T>(work: Promise<T>): Promise<T>;
  /** Simulated milliseconds skipped so far (waits not lived through). */
  skippedMs(): number;
  /** How many sleepers wait now. */
  waiting(): number;
}

export interface SimClockOptions {
  /** Real milliseconds with no change before the world counts as settled (default 2). */
  settleMs?: number;
  /** The real clock (default Date.now). */
  realNow?: () => number;
}

interface Sleeper {
  due: number;
  seq: number;
  wake: () => void;
}

export function simClock(startMs: number, opts: SimClockOptions = {}): SimClock {
  const settleMs = opts.settleMs ?? 2;
  const realNow = opts.realNow ?? (() => Date.now());
  let base = startMs;
  let anchor = realNow();
  let skipped = 0;
  let inFlight = 0;
  let seq = 0;
  const sleepers: Sleeper[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;

  const now = () => base + (realNow() - anchor);

  /** Look again after `ms` of real time (the soonest of the asked looks wins). */
  let timerAt = Infinity;
  function lookIn(ms: number) {
    const at = realNow() + Math.max(0, ms);
    if (timer && timerAt <= at) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(look, Math.max(0, ms));
  }

  function wakeDue(): boolean {
    const t = now();
    const due = sleepers.filter((s) => s.due <= t).sort((a, b) => a.due - b.due || a.seq - b.seq);
    for (const s of due) {
      sleepers.splice(sleepers.indexOf(s), 1);
      s.wake();
    }
    return due.length > 0;
  }

  function look() {
    timer = null;
    timerAt = Infinity;
    if (wakeDue()) return lookIn(settleMs); // let the woken react before deciding anything else
    if (!sleepers.length) return;
    const next = Math.min(...sleepers.map((s) => s.due));
    if (inFlight > 0) return lookIn(next - now()); // busy: only real time passes, and a sleeper due meanwhile wakes then
    // Settled and waiting: skip to the next due time.
    skipped += next - now();
    base = next;
    anchor = realNow();
    wakeDue();
    lookIn(settleMs);
  }

  return {
    now,
    sleep(ms, signal) {
      return new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        const sleeper: Sleeper = {
          due: now() + Math.max(0, ms),
          seq: seq++,
          wake: () => {
            signal.removeEventListener("abort", abort);
            resolve();
          },
        };
        const abort = () => {
          const i = sleepers.indexOf(sleeper);
          if (i >= 0) sleepers.splice(i, 1);
          resolve();
        };
        signal.addEventListener("abort", abort, { once: true });
        sleepers.push(sleeper);
        lookIn(settleMs);
      });
    },
    async busy<T>(work: Promise<T>): Promise<T> {
      inFlight++;
      try {
        return await work;
      } finally {
        inFlight--;
        lookIn(settleMs);
      }
    },
    skippedMs: () => skipped,
    waiting: () => sleepers.length,
  };
}
