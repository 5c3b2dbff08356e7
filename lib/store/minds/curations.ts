// People's changes to a mind's memories and goals (lib/shell/curation.ts), as
// this browser applies them. A stopped mind's files are its saved rows: the
// change and its step are written in one transaction. A running mind's files
// are its worker's (held in memory, saved after each change), so the change
// waits in a queue here (a settings row, per mind) that the worker takes from,
// applies in its sandbox and records; the page follows the step. Whichever
// way, the step has the request's id, so a request is applied once.
import { liveQuery } from "dexie";
import * as z from "zod";
import { FileRecord } from "../../mind/state";
import { applyCuration, Curation, type CurationFs, type CurationStep } from "../../shell/curation";
import { WORKSPACE } from "../../shell/limits";
import type { Step } from "../../trajectory/schema";
import type { ReverieDb } from "../db/db";
import { watchTables, type Watched } from "../db/watch";
import { appendStep } from "../steps/steps";
import { getMind } from "./minds";

const queueKey = (mindId: string) => `curations:${mindId}`;
const Queue = z.array(Curation);

/** The requests waiting for the mind's worker, oldest first (a damaged queue reads as empty). */
export async function queuedCurations(db: ReverieDb, mindId: string): Promise<Curation[]> {
  const parsed = Queue.safeParse((await db.settings.get(queueKey(mindId)))?.value);
  return parsed.success ? parsed.data : [];
}

/** The queue, now and after every change (the worker's watch; the Memory tab's "waiting" line). */
export function watchCurationQueue(db: ReverieDb, mindId: string): Watched<Curation[]> {
  return watchTables(db, ["settings"], () => queuedCurations(db, mindId));
}

/** `fresh`: this call made or queued it (false: it was made or queued already, by an earlier call). */
export type Curated = ({ applied: true; step: CurationStep } | { applied: false }) & { fresh: boolean };

/**
 * Apply `c` now (the mind is stopped) or queue it for the mind's worker (it
 * runs). A request whose step is already written, or already queued, is not
 * applied again: the answer is its step, or "queued".
 */
export async function curate(db: ReverieDb, mindId: string, c: Curation, now = Date.now(), ids = { uuid: () => crypto.randomUUID() }): Promise<Curated> {
  return db.transaction("rw", [db.minds, db.files, db.steps, db.settings], async () => {
    const stepId = c.id.toLowerCase();
    const written = await db.steps.get({ mind_id: mindId, step_id: stepId });
    if (written) return { applied: true, step: JSON.parse(written.json) as CurationStep, fresh: false };
    const mind = await getMind(db, mindId);
    if (!mind) throw new Error(`No mind ${mindId} in this browser.`);
    if (mind.running) {
      const queue = await queuedCurations(db, mindId);
      if (queue.some((q) => q.id === c.id)) return { applied: false, fresh: false };
      await db.settings.put({ key: queueKey(mindId), value: [...queue, c] });
      return { applied: false, fresh: true };
    }
    const step = await applyCuration(savedRowsFs(db, mindId, now), c, now, ids);
    await appendStep(db, mindId, step);
    return { applied: true, step, fresh: true };
  });
}

/**
 * The mind's worker applies what waits, in order, each through `apply` (its
 * sandbox), then writes its step and takes it off the queue in one
 * transaction. A request whose step is written already (its worker stopped
 * between the two) only leaves the queue.
 */
export async function serveCurationQueue(db: ReverieDb, mindId: string, apply: (c: Curation) => Promise<Step>): Promise<void> {
  for (const c of await queuedCurations(db, mindId)) {
    const done = await db.steps.get({ mind_id: mindId, step_id: c.id.toLowerCase() });
    const step = done ? null : await apply(c);
    await db.transaction("rw", [db.steps, db.settings], async () => {
      if (step && !(await db.steps.get({ mind_id: mindId, step_id: step.step_id }))) await appendStep(db, mindId, step);
      await db.settings.put({ key: queueKey(mindId), value: (await queuedCurations(db, mindId)).filter((q) => q.id !== c.id) });
    });
  }
}

/**
 * What waits when the mind is not running (its worker stopped before it
 * took them): applied to the saved rows, as a request made now would be.
 * Nothing happens while it runs.
 */
export async function drainCurationQueue(db: ReverieDb, mindId: string, now = Date.now()): Promise<number> {
  return db.transaction("rw", [db.minds, db.files, db.steps, db.settings], async () => {
    if ((await getMind(db, mindId))?.running !== false) return 0;
    const queue = await queuedCurations(db, mindId);
    for (const c of queue) {
      if (await db.steps.get({ mind_id: mindId, step_id: c.id.toLowerCase() })) continue;
      await appendStep(db, mindId, await applyCuration(savedRowsFs(db, mindId, now), c, now, { uuid: () => crypto.randomUUID() }));
    }
    await db.settings.delete(queueKey(mindId));
    return queue.length;
  });
}

/** A stopped mind's saved rows as a CurationFs, inside the caller's transaction: a file keeps its mode, a new one's folders are made. */
function savedRowsFs(db: ReverieDb, mindId: string, now: number): CurationFs {
  const row = async (path: string) => {
    const r = FileRecord.safeParse(await db.files.get([mindId, path]));
    return r.success ? r.data : null;
  };
  return {
    async read(path) {
      const r = await row(path);
      return r?.kind === "file" ? new TextDecoder().decode(r.data ?? new Uint8Array()) : null;
    },
    async write(path, text) {
      // Its folders, from the workspace down, as `mkdir -p` would make them.
      const parts = path.slice(WORKSPACE.length + 1).split("/").slice(0, -1);
      for (let i = 0; i <= parts.length; i++) {
        const dir = [WORKSPACE, ...parts.slice(0, i)].join("/");
        const there = await row(dir);
        if (there && there.kind !== "dir") throw new Error(`${dir} is not a folder, so ${path} cannot be written.`);
        if (!there) await db.files.put({ path: dir, kind: "dir", mode: 0o755, mtime: now, mind_id: mindId });
      }
      const existing = await row(path);
      if (existing && existing.kind !== "file") throw new Error(`${path} is not a file.`);
      await db.files.put({ path, kind: "file", data: new TextEncoder().encode(text), mode: existing?.mode ?? 0o644, mtime: now, mind_id: mindId });
    },
    async remove(path) {
      await db.files.delete([mindId, path]);
    },
  };
}

/** The step of request `id` once it is written (by the worker), or null when `signal` ends the wait first. */
export function curationStep(db: ReverieDb, mindId: string, id: string, signal: AbortSignal): Promise<CurationStep | null> {
  return new Promise((resolve) => {
    const sub = liveQuery(() => db.steps.get({ mind_id: mindId, step_id: id.toLowerCase() })).subscribe({
      next: (row) => {
        if (!row) return;
        end();
        resolve(JSON.parse(row.json) as CurationStep);
      },
      error: () => undefined,
    });
    const end = () => {
      sub.unsubscribe();
      signal.removeEventListener("abort", stop);
    };
    const stop = () => {
      end();
      resolve(null);
    };
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
}
