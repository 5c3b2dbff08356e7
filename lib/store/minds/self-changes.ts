// The owner's changes to a mind's own texts (lib/shell/self/change.ts), as
// this browser makes them. A stopped mind's texts are its saved rows: the
// file and its self-edit step are written in one transaction. A running
// mind's are its worker's (its ledger, lib/home/self-ledger.ts), so the change
// waits in a queue the worker serves; the page follows the step by its id.
import * as z from "zod";
import { FileRecord } from "../../mind/state/state";
import { SELF_FILES, type SelfFile } from "../../mind/self/self";
import { planSelfChange, SelfChange, type SelfEdit } from "../../shell/self/change";
import { SELF_DIR } from "../../shell/self/paths";
import { isKind, parseStep, stampStep, type NewStep, type Step } from "../../trajectory/schema";
import type { ReverieDb } from "../db/db";
import type { Watched } from "../db/watch";
import { appendStep } from "../steps/steps";
import { changeQueue } from "./change-queue";
import { saveWorkspaceFile } from "./files";
import { getMind } from "./minds";
import { systemIds } from "../../system/system";

const queue = changeQueue(z.array(SelfChange), "self-changes");

/** The owner's changes waiting for the mind's worker, oldest first. */
export const queuedSelfChanges = (db: ReverieDb, mindId: string): Promise<SelfChange[]> => queue.list(db, mindId);
export const watchSelfChanges = (db: ReverieDb, mindId: string): Watched<SelfChange[]> => queue.watch(db, mindId);

/** The running mind makes what waits, through its ledger (which records each step itself). */
export function serveSelfChanges(db: ReverieDb, mindId: string, make: (c: SelfChange) => Promise<Step>): Promise<void> {
  return queue.serve(db, mindId, make);
}

/** Made now (`step`: the self-edit, or the error that says why not) or queued for its worker. */
export type SelfChanged = { step: Step } | { queued: true };

const rowText = async (db: ReverieDb, mindId: string, file: SelfFile): Promise<string | null> => {
  const r = FileRecord.safeParse(await db.files.get([mindId, `${SELF_DIR}/${file}`]));
  return r.success && r.data.kind === "file" ? new TextDecoder().decode(r.data.data ?? new Uint8Array()) : null;
};

/** A step of the mind's by id, if it is a self-edit. */
export async function findSelfEdit(db: ReverieDb, mindId: string, id: string): Promise<SelfEdit | undefined> {
  const row = await db.steps.get({ mind_id: mindId, step_id: id.toLowerCase() });
  const parsed = row ? parseStep(JSON.parse(row.json)) : undefined;
  return parsed?.ok && isKind(parsed.step, "self-edit") ? parsed.step : undefined;
}

/**
 * Make `c` now when the mind is stopped, or queue it for its worker. The
 * change is worked out before the transaction (hashing is not IndexedDB work,
 * and would end it), then made in it only if the file still holds the text it
 * was worked out from; otherwise it is worked out again.
 */
export async function changeSelf(db: ReverieDb, mindId: string, c: SelfChange, now = Date.now()): Promise<SelfChanged> {
  for (;;) {
    // The texts it is worked out from, read first.
    const texts = new Map<SelfFile, string | null>();
    for (const file of SELF_FILES) texts.set(file, await rowText(db, mindId, file));
    const planned = await planSelfChange(
      c,
      (file) => texts.get(file) ?? null,
      (id) => findSelfEdit(db, mindId, id),
    );
    const record = async (step: NewStep & { step_id: string }): Promise<SelfChanged> => {
      const stamped = stampStep(step, { id: step.step_id, now });
      await appendStep(db, mindId, stamped);
      return { step: stamped };
    };
    const done = await db.transaction("rw", [db.minds, db.files, db.steps, db.settings], async (): Promise<SelfChanged | "again"> => {
      const written = await db.steps.get({ mind_id: mindId, step_id: c.id });
      if (written) return { step: JSON.parse(written.json) as Step };
      const mind = await getMind(db, mindId);
      if (!mind) throw new Error(`No mind ${mindId} in this browser.`);
      if (mind.running) {
        await queue.add(db, mindId, c);
        return { queued: true };
      }
      if ("refused" in planned) return record(planned.refused);
      if ((await rowText(db, mindId, planned.file)) !== texts.get(planned.file)) return "again";
      const existing = FileRecord.safeParse(await db.files.get([mindId, `${SELF_DIR}/${planned.file}`]));
      await db.files.put({ path: `${SELF_DIR}/${planned.file}`, kind: "file", data: new TextEncoder().encode(planned.text), mode: existing.success ? existing.data.mode : 0o644, mtime: now, mind_id: mindId });
      return record(planned.step);
    });
    if (done !== "again") return done;
  }
}

/**
 * Its human saves a file in Files: one of its texts is a change to its texts
 * (a self-edit, as from Settings; refused with the error step's words when it
 * cannot be made); anything else under self/ is refused; every other path is
 * an ordinary workspace file (a stopped mind's only).
 */
export async function saveFromFiles(db: ReverieDb, mindId: string, path: string, text: string, by: string, now = Date.now()): Promise<void> {
  const file = SELF_FILES.find((f) => path === `${SELF_DIR}/${f}`);
  if (file) {
    const done = await changeSelf(db, mindId, { op: "write", id: systemIds.uuid(), file, text, by, via: "files" }, now);
    if ("step" in done && done.step.type === "error") throw new Error((done.step as { content?: string }).content ?? "The change was refused.");
    return;
  }
  if (path === SELF_DIR || path.startsWith(`${SELF_DIR}/`)) throw new Error(`${SELF_DIR}/ holds the mind's own texts (${SELF_FILES.join(", ")}) and its watchers; a new file there is not one of them.`);
  await saveWorkspaceFile(db, mindId, path, text, now);
}
