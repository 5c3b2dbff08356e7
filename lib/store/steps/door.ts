// The tab's door: how a mind's pages hand it a step from outside (a person's
// message, a config change, what its sync engine brings from the server's
// inbox). While the mind runs, a page does not write its trajectory: the step
// waits here for the mind's one writer, which takes it (stamped as it takes
// it) through the mind's way in (lib/store/state/inbound.ts), so the
// trajectory reads in time order and has one writer. A stopped mind has no
// writer: the step is appended at once, as the store's one writer appends.
import { parseStep, type Step } from "../../trajectory/schema";
import type { DoorRow, ReverieDb } from "../db/db";
import { watchTables, type Watched } from "../db/watch";
import * as z from "zod";
import { appendStep } from "./steps";

/** Hand `step` to the mind: to its writer while it runs, else appended now. Whichever way, a step of an id already there is not written again. False when it was. */
export async function enter(db: ReverieDb, mindId: string, step: Step, now = Date.now()): Promise<boolean> {
  return db.transaction("rw", [db.minds, db.steps, db.door], async () => {
    const id = step.step_id.toLowerCase();
    if ((await db.steps.get({ mind_id: mindId, step_id: id })) || (await db.door.get([mindId, id]))) return false;
    if (await running(db, mindId)) await db.door.add({ mind_id: mindId, id, at: now, json: JSON.stringify(step) });
    else await appendStep(db, mindId, step);
    return true;
  });
}

/** What waits at the door, in the order it was handed in; a row that is not a step is left out (and taken away by `leave`). */
export async function waiting(db: ReverieDb, mindId: string): Promise<{ id: string; step: Step | null }[]> {
  const rows = await db.door.where("[mind_id+at]").between([mindId, -Infinity], [mindId, Infinity]).toArray();
  return rows.map((r: DoorRow) => ({ id: r.id, step: readStep(r.json) }));
}

/** What waits, now and after every change. */
export const watchDoor = (db: ReverieDb, mindId: string): Watched<{ id: string; step: Step | null }[]> => watchTables(db, ["door"], () => waiting(db, mindId));

/** Taken (or found written already): off the door. */
export async function leave(db: ReverieDb, mindId: string, ids: readonly string[]): Promise<void> {
  if (ids.length) await db.door.bulkDelete(ids.map((id): [string, string] => [mindId, id]));
}

/** Has the mind this step already (its writer took it, or it was appended while it was stopped)? */
export async function written(db: ReverieDb, mindId: string, id: string): Promise<boolean> {
  return (await db.steps.get({ mind_id: mindId, step_id: id })) !== undefined;
}

/**
 * What waits when the mind is not running (its worker stopped, or ended at
 * once, before it took them): appended now, in order, as if handed in now.
 * Nothing happens while it runs. How many were appended.
 */
export async function drainDoor(db: ReverieDb, mindId: string): Promise<number> {
  return db.transaction("rw", [db.minds, db.steps, db.door], async () => {
    if ((await running(db, mindId)) !== false) return 0;
    let n = 0;
    for (const { id, step } of await waiting(db, mindId)) {
      if (step && !(await written(db, mindId, id))) {
        await appendStep(db, mindId, step);
        n++;
      }
      await db.door.delete([mindId, id]);
    }
    return n;
  });
}

/** Whether the mind's human wants it running (its record's flag; undefined: no such mind, or a damaged record). Read here, not through minds.ts, which hands its config steps in through this door. */
async function running(db: ReverieDb, mindId: string): Promise<boolean | undefined> {
  const flag = z.object({ running: z.boolean() }).safeParse((await db.minds.get(mindId))?.json);
  return flag.success ? flag.data.running : undefined;
}

function readStep(json: string): Step | null {
  try {
    const parsed = parseStep(JSON.parse(json));
    return parsed.ok ? parsed.step : null;
  } catch {
    return null;
  }
}
