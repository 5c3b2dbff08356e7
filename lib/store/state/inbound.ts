// The tab's way in for a mind (the inbound side of its IndexedDB state): the
// steps its pages hand it while it runs (a person's message, a config change,
// the sync engine's deliveries from the server's inbox) wait at its door
// (lib/store/steps/door.ts) until its writer takes them; people's changes to
// its memory, goals and own texts wait in the two queues the page fills while
// it runs; and a step another writer stored (there should be none while it
// runs here) comes from IndexedDB's change feed (watch-others). Each reaches
// the running mind once, in order.
import type { InboundPort } from "../../mind/state/inbound";
import type { ReverieDb } from "../db/db";
import type { Watched } from "../db/watch";
import { serveCurationQueue, watchCurationQueue } from "../minds/curations";
import { serveSelfChanges, watchSelfChanges } from "../minds/self-changes";
import { leave, waiting, watchDoor, written } from "../steps/door";
import { lastSeq, parseRows } from "../steps/steps";
import type { Step } from "../../trajectory/schema";
import { watchOthers } from "../steps/watch-others";

/** How often the store is read for steps others appended, at most (a person's message waits this much longer, at worst). */
const WATCH_MS = 50;

/** `own`: whether this mind's own writer stored the step (the mind holds what it wrote; only others' steps come in). */
export function tabInbound(db: ReverieDb, mindId: string, own: (stepId: string) => boolean): InboundPort {
  return {
    async open(sink) {
      const unwatch = watchOthers(
        db,
        mindId,
        await lastSeq(db, mindId),
        (rows) => {
          const theirs = rows.filter((r) => !own(r.step_id));
          const trajOf = new Map(theirs.map((r) => [r.seq, r.traj_id]));
          const parsed = parseRows(theirs);
          if (parsed.steps.length) sink.steps(parsed.steps.map((step, i) => ({ trajId: trajOf.get(parsed.seqs[i]) ?? mindId, step })));
        },
        { everyMs: WATCH_MS },
      );
      // The queues are served one change at a time, in order, whenever one holds something.
      let serving = Promise.resolve();
      const served = <T>(queue: Watched<T[]>, serve: () => Promise<void>, what: string) =>
        queue.subscribe(
          (waiting) => {
            if (!waiting.length) return;
            serving = serving.then(serve).catch((e: unknown) => console.warn(`Could not make a change to ${what}: ${e instanceof Error ? e.message : String(e)}`));
          },
          () => undefined,
        );
      // The door: what waits is taken by the mind's writer (a step it has already only leaves the door).
      const take = async () => {
        const fresh: Step[] = [];
        const done: string[] = [];
        for (const { id, step } of await waiting(db, mindId)) {
          done.push(id);
          if (step && !(await written(db, mindId, id))) fresh.push(step);
        }
        if (fresh.length) await sink.arrive(fresh);
        await leave(db, mindId, done);
      };
      const door = served(watchDoor(db, mindId), take, "the mind's trajectory");
      const curations = served(watchCurationQueue(db, mindId), () => serveCurationQueue(db, mindId, (c) => sink.change({ id: c.id, kind: "curation", body: c })), "the mind's memory");
      const texts = served(watchSelfChanges(db, mindId), () => serveSelfChanges(db, mindId, (c) => sink.change({ id: c.id, kind: "self", body: c })), "the mind's own texts");
      return {
        async close() {
          door.unsubscribe();
          curations.unsubscribe();
          texts.unsubscribe();
          // What was handed in up to now is the mind's to write (an operator's stop, recorded before it stops).
          serving = serving.then(take).catch(() => undefined);
          await serving;
          unwatch();
        },
      };
    },
  };
}
