// Decorating a step log: forward everything, replace a few methods. One place,
// so a decorator never silently drops a method another one added (`past`,
// `appendAll`).
import type { Step } from "../trajectory/schema";
import type { StepLog } from "./ports";

/** A store log that can write several steps at once, in order (one round trip to the store). */
export interface BatchingLog extends StepLog {
  appendAll?(steps: readonly Step[]): Promise<void>;
}

/**
 * Forward `log`, with `over` in place of some methods. A decorator that
 * replaces `append` but not `appendAll` loses the batch writer (its `append`
 * would be bypassed by it): writers then go one step at a time through its `append`.
 */
export function decorateLog(log: BatchingLog, over: Partial<Omit<BatchingLog, "trajId">>): BatchingLog {
  const { appendAll } = log;
  const batch = appendAll && !over.append ? { appendAll: (steps: readonly Step[]) => appendAll.call(log, steps) } : {};
  return {
    get trajId() {
      return log.trajId;
    },
    append: (step) => log.append(step),
    putBlob: (name, text) => log.putBlob(name, text),
    blob: (ref, trajId) => log.blob(ref, trajId),
    tail: (n) => log.tail(n),
    count: () => log.count(),
    find: (idOrPrefix, limit) => log.find(idOrPrefix, limit),
    search: (text, limit) => log.search(text, limit),
    fork: (child) => log.fork(child),
    ...(log.past ? { past: log.past } : {}),
    ...batch,
    ...over,
  };
}
