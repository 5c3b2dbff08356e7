// A queue of people's changes waiting for a mind's worker, kept in one
// settings row per mind: a running worker holds the mind's files in memory
// and would save over a change written beside it, so the page queues the
// change and the running mind takes it through its way in
// (lib/store/state/inbound.ts), makes it in its sandbox and records it. Each
// change has an id that becomes its step's, so it is made once: a change
// whose step is written already only leaves the queue. Memory curations
// (curations.ts) and changes to the mind's own texts (self-changes.ts) each
// have one.
import type * as z from "zod";
import type { ReverieDb } from "../db/db";
import { watchTables, type Watched } from "../db/watch";

export interface ChangeQueue<T extends { id: string }> {
  /** What waits, oldest first (a damaged queue reads as empty). */
  list(db: ReverieDb, mindId: string): Promise<T[]>;
  /** The queue now and after every change. */
  watch(db: ReverieDb, mindId: string): Watched<T[]>;
  /** Add `c` unless it waits already (inside the caller's transaction); false when it was there. */
  add(db: ReverieDb, mindId: string, c: T): Promise<boolean>;
  /** Empty it (inside the caller's transaction). */
  clear(db: ReverieDb, mindId: string): Promise<void>;
  /** The running mind makes what waits, in order, each through `make` (which records its step), then takes it off the queue. */
  serve(db: ReverieDb, mindId: string, make: (c: T) => Promise<unknown>): Promise<void>;
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
    async serve(db, mindId, make) {
      for (const c of await list(db, mindId)) {
        if (!(await db.steps.get({ mind_id: mindId, step_id: c.id.toLowerCase() }))) await make(c);
        await db.transaction("rw", [db.settings], async () => {
          await db.settings.put({ key: key(mindId), value: (await list(db, mindId)).filter((q) => q.id !== c.id) });
        });
      }
    },
  };
}
