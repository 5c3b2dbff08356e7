// The tab's way in for a mind (the inbound side of its IndexedDB state): the
// steps others append to it (its page's messages and config changes, another
// tab, the sync engine's deliveries from the server's inbox) are read from
// IndexedDB's change feed (watch-others), and people's changes to its memory,
// goals and own texts from the two queues the page fills while it runs. Each
// reaches the running mind once, in order.
import type { InboundPort } from "../../mind/state/inbound";
import type { ReverieDb } from "../db/db";
import type { Watched } from "../db/watch";
import { serveCurationQueue, watchCurationQueue } from "../minds/curations";
import { serveSelfChanges, watchSelfChanges } from "../minds/self-changes";
import { lastSeq, parseRows } from "../steps/steps";
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
      const curations = served(watchCurationQueue(db, mindId), () => serveCurationQueue(db, mindId, (c) => sink.change({ id: c.id, kind: "curation", body: c })), "the mind's memory");
      const texts = served(watchSelfChanges(db, mindId), () => serveSelfChanges(db, mindId, (c) => sink.change({ id: c.id, kind: "self", body: c })), "the mind's own texts");
      return {
        async close() {
          curations.unsubscribe();
          texts.unsubscribe();
          await serving;
          unwatch();
        },
      };
    },
  };
}
