// The watchdog of one block: stop it after `silenceMs` without a sign of life,
// or after `wallMs` whatever happens. just-bash reports output only when a
// block ends, so signs of life are what we can see while it runs: the block
// starting, the mind's own commands finishing, and beacons from a nested run
// whose model is thinking (so recursion is not killed while it waits).
export type StopReason = "silence" | "wall";



export interface Watchdog {
  beacon(): void;
  /** Why the block was stopped, once it was. */
  readonly reason: StopReason | null;
  dispose(): void;
}

export function startWatchdog(opts: { silenceMs: number; wallMs: number; onStop: (reason: StopReason) => void }): Watchdog {
  // Beacons come from inside a running script, where just-bash's
  // defense-in-depth blocks the global timers: take them now, before it runs.
  const setTimer = globalThis.setTimeout.bind(globalThis);
  const clearTimer = globalThis.clearTimeout.bind(globalThis);
  let reason: StopReason | null = null;
  const stop = (why: StopReason) => {
    if (reason) return;
    reason = why;
    clearTimer(silence);
    clearTimer(wall);
    opts.onStop(why);
  };
  let silence = setTimer(() => stop("silence"), opts.silenceMs);
  const wall = setTimer(() => stop("wall"), opts.wallMs);
  return {
    beacon() {
      if (reason) return;
      clearTimer(silence);
      silence = setTimer(() => stop("silence"), opts.silenceMs);
    },
    get reason() {
      return reason;
    },
    dispose() {
      clearTimer(silence);
      clearTimer(wall);
    },
  };
}
