// Live reads of the small tables (minds, settings): read again whenever a
// write touches one of the tables read, in this tab, another tab or a worker.
//
// Not Dexie's liveQuery, for these: each liveQuery subscription merges every
// change it hears (every table, every key) into a set that it clears only
// when its own query runs again. A list of minds does not run again while a
// mind thinks, so its set grew by each step's keys: a page on the list of
// minds spent ~1 ms of its main thread per model call inserting keys nobody
// would look at, and kept them all. Here a change costs a look at its table
// names. Coarser than liveQuery (any write to the table reads again), which
// these tables can afford: they change when a person does something.
import Dexie, { type ObservabilitySet } from "dexie";
import type { ReverieDb } from "./db";

type TableName = "minds" | "settings";

/** An observable as dexie-react-hooks' useObservable takes it. */
export interface Watched<T> {
  subscribe(next: (value: T) => void, error?: (e: unknown) => void): { unsubscribe(): void };
}

/** `read()` now and after every change to `tables`; a read overtaken by a change is dropped, not shown. */
export function watchTables<T>(db: ReverieDb, tables: readonly TableName[], read: () => Promise<T>): Watched<T> {
  const prefixes = tables.map((t) => `idb://${db.name}/${t}/`);
  const touches = (parts: ObservabilitySet) => "all" in parts || Object.keys(parts).some((key) => prefixes.some((p) => key.startsWith(p)));
  return {
    subscribe(next, error) {
      let closed = false;
      let reading = false;
      let again = false;
      const run = async () => {
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        do {
          again = false;
          try {
            const value = await read();
            if (!closed && !again) next(value);
          } catch (e) {
            if (!closed && !again) error?.(e);
          }
        } while (again && !closed);
        reading = false;
      };
      const onChange = (parts: ObservabilitySet) => {
        if (!closed && touches(parts)) void run();
      };
      Dexie.on.storagemutated.subscribe(onChange);
      // Not synchronously: a subscriber that leaves at once (React's probe for a current value) costs no read.
      queueMicrotask(() => {
        if (!closed) void run();
      });
      return {
        unsubscribe() {
          closed = true;
          Dexie.on.storagemutated.unsubscribe(onChange);
        },
      };
    },
  };
}
