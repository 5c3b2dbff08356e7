// People's changes to a mind's memories and goals (lib/shell/curation.ts), as
// this browser applies them. A stopped mind's files are its saved rows: the
// change and its step are written in one transaction. A running mind's files
// are its worker's (held in memory, saved after each change), so the change
// waits in a queue here (a settings row, per mind) that the worker takes from,
// applies in its sandbox and records; the page follows the step. Whichever
// way, the step has the request's id, so a request is applied once.
import * as z from "zod";
import { FileRecord } from "../../mind/state/state";
import { applyCuration, Curation, type CurationFs, type CurationStep } from "../../shell/curation";
import { WORKSPACE } from "../../shell/limits";
import type { Step } from "../../trajectory/schema";
import type { ReverieDb } from "../db/db";
import type { Watched } from "../db/watch";
import { changeQueue } from "./change-queue";
import { appendStep, stepWritten } from "../steps/steps";
import { getMind } from "./minds";
import { systemIds } from "../../system/system";

const queue = changeQueue(z.array(Curation), "curations");

/** The requests waiting for the mind's worker, oldest first (a damaged queue reads as empty). */
export const queuedCurations = (db: ReverieDb, mindId: string): Promise<Curation[]> => queue.list(db, mindId);

/** The queue, now and after every change (the worker's watch; the Memory tab's "waiting" line). */
export const watchCurationQueue = (db: ReverieDb, mindId: string): Watched<Curation[]> => queue.watch(db, mindId);

/** `fresh`: this call made or queued it (false: it was made or queued already, by an earlier call). */
export type Curated = ({ applied: true; step: CurationStep } | { applied: false }) & { fresh: boolean };

/**
 * Apply `c` now (the mind is stopped) or queue it for the mind's worker (it
 * runs). A request whose step is already written, or already queued, is not
 * applied again: the answer is its step, or "queued".
 */
export async function curate(db: ReverieDb, mindId: string, c: Curation, now = Date.now(), ids = systemIds): Promise<Curated> {
  return db.transaction("rw", [db.minds, db.files, db.steps, db.settings], async () => {
    const stepId = c.id.toLowerCase();
    const written = await db.steps.get({ mind_id: mindId, step_id: stepId });
    if (written) return { applied: true, step: JSON.parse(written.json) as CurationStep, fresh: false };
    const mind = await getMind(db, mindId);
    if (!mind) throw new Error(`No mind ${mindId} in this browser.`);
    if (mind.running) return { applied: false, fresh: await queue.add(db, mindId, c) };
    const step = await applyCuration(savedRowsFs(db, mindId, now), c, now, ids);
    await appendStep(db, mindId, step);
    return { applied: true, step, fresh: true };
  });
}

/** The running mind makes what waits, in order, each through `make` (in its sandbox, recording its step); a request whose step is written already only leaves the queue. */
export function serveCurationQueue(db: ReverieDb, mindId: string, make: (c: Curation) => Promise<Step>): Promise<void> {
  return queue.serve(db, mindId, make);
}

/**
 * What waits when the mind is not running (its worker stopped before it
 * took them): applied to the saved rows, as a request made now would be.
 * Nothing happens while it runs.
 */
export async function drainCurationQueue(db: ReverieDb, mindId: string, now = Date.now()): Promise<number> {
  return db.transaction("rw", [db.minds, db.files, db.steps, db.settings], async () => {
    if ((await getMind(db, mindId))?.running !== false) return 0;
    const waiting = await queuedCurations(db, mindId);
    for (const c of waiting) {
      if (await db.steps.get({ mind_id: mindId, step_id: c.id.toLowerCase() })) continue;
      await appendStep(db, mindId, await applyCuration(savedRowsFs(db, mindId, now), c, now, systemIds));
    }
    await queue.clear(db, mindId);
    return waiting.length;
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
  return stepWritten(db, mindId, id, signal) as Promise<CurationStep | null>;
}
