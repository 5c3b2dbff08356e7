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
// these tables can afford: they change when a person does something. The
// steps table changes with every model call: a read it prompts is throttled.
import Dexie, { type ObservabilitySet } from "dexie";
import type { ReverieDb } from "./db";

type TableName = "minds" | "settings" | "door";

/**
 * A table whose every write need not be read at once: changes to it read
 * again at most every `everyMs`, and only while `when(last value)` holds.
 * A mind writes its steps tens of times a second; a count of them shown to a
 * person (sync's pending steps) can follow at a person's pace.
 */
export interface Throttled<T> {
  tables: readonly "steps"[];
  everyMs: number;
  when: (value: T) => boolean;
}

/** An observable as dexie-react-hooks' useObservable takes it. */
export interface Watched<T> {
  subscribe(next: (value: T) => void, error?: (e: unknown) => void): { unsubscribe(): void };
}

/** `read()` now and after every change to `tables` (and, throttled, to `throttled.tables`); a read overtaken by a change is dropped, not shown. */
export function watchTables<T>(db: ReverieDb, tables: readonly TableName[], read: () => Promise<T>, throttled?: Throttled<T>): Watched<T> {
  const prefixesOf = (names: readonly string[]) => names.map((t) => `idb://${db.name}/${t}/`);
  const prefixes = prefixesOf(tables);
  const slow = prefixesOf(throttled?.tables ?? []);
  const touch = (parts: ObservabilitySet, of: string[]) => of.length > 0 && ("all" in parts || Object.keys(parts).some((key) => of.some((p) => key.startsWith(p))));
  return {
    subscribe(next, error) {
      let closed = false;
      let reading = false;
      let again = false;
      let last: { value: T } | null = null;
      let timer: ReturnType<typeof setTimeout> | null = null;
      let readAt = Number.NEGATIVE_INFINITY;
      const run = async () => {
        if (timer) clearTimeout(timer);
        timer = null;
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        do {
          again = false;
          readAt = Date.now();
          try {
            const value = await read();
            last = { value };
            if (!closed && !again) next(value);
          } catch (e) {
            if (!closed && !again) error?.(e);
          }
        } while (again && !closed);
        reading = false;
      };
      const onChange = (parts: ObservabilitySet) => {
        if (closed) return;
        if (touch(parts, prefixes)) return void run();
        if (!throttled || timer || !last || !throttled.when(last.value) || !touch(parts, slow)) return;
        timer = setTimeout(() => void run(), Math.max(0, readAt + throttled.everyMs - Date.now()));
      };
      Dexie.on.storagemutated.subscribe(onChange);
      // Not synchronously: a subscriber that leaves at once (React's probe for a current value) costs no read.
      queueMicrotask(() => {
        if (!closed) void run();
      });
      return {
        unsubscribe() {
          closed = true;
          if (timer) clearTimeout(timer);
          Dexie.on.storagemutated.unsubscribe(onChange);
        },
      };
    },
  };
}
