// Decorating a step log: forward everything, replace a few methods. One place,
// so a decorator never silently drops a method another one added (`past`).
import type { StepLog } from "./ports";

export function decorateLog(log: StepLog, over: Partial<Omit<StepLog, "trajId">>): StepLog {
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
    ...over,
  };
}
