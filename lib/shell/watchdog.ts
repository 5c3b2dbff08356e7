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
  let reason: StopReason | null = null;
  const stop = (why: StopReason) => {
    if (reason) return;
    reason = why;
    clearTimeout(silence);
    clearTimeout(wall);
    opts.onStop(why);
  };
  let silence = setTimeout(() => stop("silence"), opts.silenceMs);
  const wall = setTimeout(() => stop("wall"), opts.wallMs);
  return {
    beacon() {
      if (reason) return;
      clearTimeout(silence);
      silence = setTimeout(() => stop("silence"), opts.silenceMs);
    },
    get reason() {
      return reason;
    },
    dispose() {
      clearTimeout(silence);
      clearTimeout(wall);
    },
  };
}
