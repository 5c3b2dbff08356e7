// FAKE — a clock that moves only when the test moves it. `sleep` resolves
// when `advance` passes its deadline, or at once when its signal aborts.
import type { Clock } from "../../../lib/mind/ports";

interface Sleeper {
  until: number;
  ms: number;
  resolve: () => void;
}

export class FakeClock implements Clock {
  private t: number;
  private readonly sleepers = new Set<Sleeper>();
  /** Every sleep asked for, in ms, in order. */
  readonly requested: number[] = [];

  constructor(start = Date.parse("2025-01-01T00:00:00.000Z")) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    this.requested.push(ms);
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper: Sleeper = {
        until: this.t + ms,
        ms,
        resolve: () => {
          this.sleepers.delete(sleeper);
          signal.removeEventListener("abort", sleeper.resolve);
          resolve();
        },
      };
      this.sleepers.add(sleeper);
      signal.addEventListener("abort", sleeper.resolve, { once: true });
    });
  }

  /** Move time on; sleepers whose deadline is passed wake up. */
  advance(ms: number): void {
    this.t += ms;
    for (const s of [...this.sleepers]) if (s.until <= this.t) s.resolve();
  }

  /** Move time to the earliest pending deadline and wake that sleeper. */
  advanceToNextWake(): number {
    const next = Math.min(...[...this.sleepers].map((s) => s.until));
    if (!Number.isFinite(next)) throw new Error("nobody is sleeping");
    const by = next - this.t;
    this.advance(by);
    return by;
  }

  /** Pending sleeps (their lengths in ms). */
  get sleeping(): number[] {
    return [...this.sleepers].map((s) => s.ms);
  }
}

/** Let other tasks run: wait for `cond`, giving the event loop turns (no timers). */
export async function until(cond: () => boolean, what: string, turns = 20_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (cond()) return;
    await new Promise<void>((r) => setImmediate(r));
  }
  throw new Error(`never happened: ${what}`);
}

/** Give the event loop a number of turns (to show that something does NOT happen). */
export async function settle(turns = 200): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r));
}
