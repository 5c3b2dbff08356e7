// Where a mind runs (a tab, or its server's runner) and under which lease
// epoch: every wake step says so, whichever thinker writes it.
import type { MindHome } from "../trajectory/schema";

/** Where a mind runs, and under which lease epoch (a function: a tab's epoch can change while it runs, so it is read at each wake). */
export type WakeWhere = { home: MindHome; epoch?: number } | (() => { home: MindHome; epoch?: number });

/** The fields every wake step carries for `where`: its home, and its epoch when it has one. */
export function wakeWhere(where: WakeWhere | undefined): { home?: MindHome; epoch?: number } {
  const at = typeof where === "function" ? where() : where;
  return at ? { home: at.home, ...(at.epoch !== undefined ? { epoch: at.epoch } : {}) } : {};
}
