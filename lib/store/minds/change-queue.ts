// A queue of people's changes waiting for a mind's worker, kept in one
// settings row per mind: a running worker holds the mind's files in memory
// and would save over a change written beside it, so the page queues the
// change and the worker makes it in its sandbox. Each change has an id that
// becomes its step's, so it is made once: a change whose step is written
// already only leaves the queue. Memory curations (curations.ts) and changes
// to the mind's own texts (self-changes.ts) each have one.
import type * as z from "zod";
import type { Step } from "../../trajectory/schema";
import type { ReverieDb } from "../db/db";
import { watchTables, type Watched } from "../db/watch";
import { appendStep } from "../steps/steps";

export interface ChangeQueue<T extends { id: string }> {
  /** What waits, oldest first (a damaged queue reads as empty). */
  list(db: ReverieDb, mindId: string): Promise<T[]>;
  /** The queue now and after every change. */
  watch(db: ReverieDb, mindId: string): Watched<T[]>;
  /** Add `c` unless it waits already (inside the caller's transaction); false when it was there. */
  add(db: ReverieDb, mindId: string, c: T): Promise<boolean>;
  /** Empty it (inside the caller's transaction). */
  clear(db: ReverieDb, mindId: string): Promise<void>;
  /**
   * The worker makes what waits, in order, each through `apply`, then writes
   * its step (unless `apply` wrote it: `written`) and takes it off the queue in
   * one transaction.
   */
  serve(db: ReverieDb, mindId: string, apply: (c: T) => Promise<{ step: Step; written?: boolean }>): Promise<void>;
}

export function changeQueue<T extends { id: string }>(schema: z.ZodType<T[]>, prefix: string): ChangeQueue<T> {
  const key = (mindId: string) => `${prefix}:${mindId}`;
  const list = async (db: ReverieDb, mindId: string): Promise<T[]> => {
    const parsed = schema.safeParse((await db.settings.get(key(mindId)))?.value);
    return parsed.success ? parsed.data : [];
  };
  return {
    list,
    watch: (db, mindId) => watchTables(db, ["settings"], () => list(db, mindId)),
    async add(db, mindId, c) {
      const queue = await list(db, mindId);
      if (queue.some((q) => q.id === c.id)) return false;
      await db.settings.put({ key: key(mindId), value: [...queue, c] });
      return true;
    },
    clear: (db, mindId) => db.settings.delete(key(mindId)),
    async serve(db, mindId, apply) {
      for (const c of await list(db, mindId)) {
        const done = await db.steps.get({ mind_id: mindId, step_id: c.id.toLowerCase() });
        const made = done ? null : await apply(c);
        await db.transaction("rw", [db.steps, db.settings], async () => {
          if (made && !made.written && !(await db.steps.get({ mind_id: mindId, step_id: made.step.step_id }))) await appendStep(db, mindId, made.step);
          await db.settings.put({ key: key(mindId), value: (await list(db, mindId)).filter((q) => q.id !== c.id) });
        });
      }
    },
  };
}
