// The real clock and id source: the one place a running mind's time and ids
// come from outside its ports. Every home hands these in (a test or a
// scenario hands in its own), so nothing below them reads the time or makes
// an id by itself.
import type { Clock, Ids } from "../mind/ports";

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
    }),
};

export const systemIds: Ids = { uuid: () => crypto.randomUUID() };
