// The simulated clock a scenario runs on (issue 23): real work takes the time
// it takes, and every wait is skipped. The mind's core reads time and waits
// only through its Clock port, so a week of its life plays in minutes.
//
// Time runs at the real rate from the last jump. Whenever the world has
// settled (no work marked busy, and nothing new for a few turns of the event
// loop) and someone sleeps, the clock jumps to the earliest sleeper's due
// time and wakes it. A sleeper whose due time comes in real time (a short wait during
// a model call) wakes then, as on a real clock. Work is marked busy by the
// host around what takes real time: model calls, blocks in the sandbox.
import type { Clock } from "../mind/ports";

export interface SimClock extends Clock {
  /**
   * Real work in flight: the clock does not jump until it ends. On a real-rate
   * clock time passes as it really does meanwhile. On a fixed one, work given
   * a charge (`fixedMs`, a model call) counts that many simulated ms from its
   * start, whatever it really took, and is handed back one at a time in the
   * order it began, each once the world has settled: what else begins while
   * it is out is then the same whether it took a millisecond or a minute.
   * Work without a charge (a block) counts no time and ends as it ends.
   */
  busy<T>(work: Promise<T>, fixedMs?: number): Promise<T>;
  /** Simulated milliseconds skipped so far (waits not lived through). */
  skippedMs(): number;
  /** How many sleepers wait now. */
  waiting(): number;
}

export interface SimClockOptions {
  /** Turns of the event loop with nothing new (no sleep, wake or work begun or ended) before the world counts as settled (default 3). */
  settleTurns?: number;
  /** The real clock (default Date.now). */
  realNow?: () => number;
  /**
   * Simulated time moves only by jumps and by what `busy` work is charged, never
   * with real time: a run is repeatable whatever its model's real latency
   * (`reverie eval --seed`).
   */
  fixed?: boolean;
}

interface Sleeper {
  due: number;
  seq: number;
  wake: () => void;
}

/** One turn of the event loop: every microtask queued before it has run, and the I/O that was ready. */
const nextTurn: (f: () => void) => void = typeof setImmediate === "function" ? (f) => void setImmediate(f) : (f) => void setTimeout(f, 0);

export function simClock(startMs: number, opts: SimClockOptions = {}): SimClock {
  const settleTurns = opts.settleTurns ?? 3;
  const realNow = opts.realNow ?? (() => Date.now());
  const fixed = opts.fixed ?? false;
  let base = startMs;
  let anchor = realNow();
  let skipped = 0;
  let inFlight = 0;
  let seq = 0;
  const sleepers: Sleeper[] = [];

  const now = () => (fixed ? base : base + (realNow() - anchor));

  function wakeDue(): boolean {
    const t = now();
    const due = sleepers.filter((s) => s.due <= t).sort((a, b) => a.due - b.due || a.seq - b.seq);
    for (const s of due) {
      sleepers.splice(sleepers.indexOf(s), 1);
      s.wake();
    }
    return due.length > 0;
  }

  // Settling: the clock may only jump once the woken have done all they do
  // without real work, which a fixed delay cannot promise on a loaded machine
  // (and a jump too early makes two runs differ). Any change starts the count
  // of quiet turns again.
  let changes = 0;
  let settling = false;
  function changed() {
    changes++;
    if (settling) return;
    settling = true;
    let seen = changes;
    let quiet = 0;
    const turn = () => {
      if (changes !== seen) {
        seen = changes;
        quiet = 0;
      } else quiet++;
      if (quiet < settleTurns) return nextTurn(turn);
      settling = false;
      // A charged piece of work that has ended goes back first, alone: the world settles again before anything else.
      const first = held[0];
      if (first?.ended) {
        held.shift();
        first.release();
        return;
      }
      look();
    };
    nextTurn(turn);
  }
  /** Charged work on a fixed clock, in the order it began, until it is handed back. */
  const held: { ended: boolean; release: () => void }[] = [];

  // On a real-rate clock, a sleeper whose due time comes while work is in flight wakes then, by a real timer.
  let timer: ReturnType<typeof setTimeout> | null = null;
  let timerAt = Infinity;
  function wakeAtRealTime(ms: number) {
    const at = realNow() + Math.max(0, ms);
    if (timer && timerAt <= at) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(() => {
      timer = null;
      timerAt = Infinity;
      if (wakeDue()) changed();
      else look();
    }, Math.max(0, ms));
  }

  function look() {
    if (wakeDue()) return changed(); // let the woken react before deciding anything else
    if (!sleepers.length) return;
    const next = Math.min(...sleepers.map((s) => s.due));
    // Busy: only real time passes (on a fixed clock, none until the work is charged); the work's end looks again.
    if (inFlight > 0) return fixed ? undefined : wakeAtRealTime(next - now());
    // Settled and waiting: skip to the next due time.
    skipped += next - now();
    base = next;
    anchor = realNow();
    wakeDue();
    changed();
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
        changed();
      });
    },
    async busy<T>(work: Promise<T>, fixedMs = 0): Promise<T> {
      const from = now();
      inFlight++;
      changed();
      const hold: { ended: boolean; release: () => void } | null = fixed && fixedMs > 0 ? { ended: false, release: () => undefined } : null;
      if (hold) held.push(hold);
      try {
        return await work;
      } finally {
        if (hold) {
          await new Promise<void>((resolve) => {
            hold.release = resolve;
            hold.ended = true;
            changed();
          });
        }
        inFlight--;
        if (fixed) base = Math.max(base, from + fixedMs);
        changed();
      }
    },
    skippedMs: () => skipped,
    waiting: () => sleepers.length,
  };
}
