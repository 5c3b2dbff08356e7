// Taking a mind back: the steps another home (the server runner) wrote are
// pulled into this browser in the server's order, each with its usage row
// (so this tab's caps count what the server spent) and its blobs, before the
// tab's own loop starts again. Steps stay append-only on both sides.
//
// Rows this browser wrote that never reached the server, after the point
// where the server went on without them (a laptop that slept past its lease
// and kept thinking), were written under a lease that was no longer theirs:
// the server refused them, and they do not stay in the main line either.
// They are set aside (../steps/aside.ts), never deleted: each row stays
// where it is, byte for byte, recorded as set aside, so no read sees it in
// the main line; a copy of each, whole and in order, is appended to a child
// trajectory of their own ("cut off in this tab"), which uploads after the
// server's steps. Nothing is lost, nothing doubles, and the main line reads
// as one, the same as the server's.
import type { Step } from "../../trajectory/schema";
import { awayDigest, type AwayDigest } from "../../sync/client/away-digest";
import type { HomeClient } from "../../sync/client/home-client";
import { SYNC_LIMITS } from "../../sync/wire";
import { blobRefs } from "../../sync/client/engine";
import { readLine } from "../../trajectory/headlong";
import type { ReverieDb, StepRow, UsageRow } from "../db/db";
import { usageRow } from "../derived/usage";
import { getMind } from "../minds/minds";
import { forkTrajectory, getBlob, putBlob, placePulled } from "../steps/steps";
import { asideCopies, setAside, withoutSetAside } from "../steps/aside";
import { getSync, updateSync } from "./sync";

export interface Pulled {
  /** Steps the server had that this browser did not. */
  added: number;
  /** This browser's own steps past the server's line, set aside (see above). */
  setAside: number;
  /** The child trajectory their copies went to. */
  asideTraj?: string;
  /** What the other home did, when it did anything. */
  digest: AwayDigest | null;
}

export const CUT_OFF_NAME = "cut off in this tab";

/**
 * Pull what the server holds beyond this browser's copy. Call it while no
 * loop of this mind writes in this browser (before its worker starts).
 */
export async function pullServerSteps(db: ReverieDb, mindId: string, client: HomeClient, creds: { mind: string; token: string }, ids: { uuid(): string }): Promise<Pulled> {
  const rec = await getSync(db, mindId);
  if (!rec) return { added: 0, setAside: 0, digest: null };
  const serverBase = rec.last_seq;
  const localBase = rec.local_seq ?? rec.last_seq;
  const first = await client.steps(creds.mind, creds.token, serverBase);
  if (first.steps.length === 0) return { added: 0, setAside: 0, digest: null };

  // Everything the server has past where this browser last left it, page by page.
  const pages = [first];
  let last = first.steps[first.steps.length - 1]?.seq ?? serverBase;
  while (last < first.last_seq) {
    const page = await client.steps(creds.mind, creds.token, last);
    if (page.steps.length === 0) break;
    pages.push(page);
    last = page.steps[page.steps.length - 1]?.seq ?? last;
  }
  const serverSteps = pages.flatMap((p) => p.steps);
  const trajectories = new Map(pages.flatMap((p) => p.trajectories).map((t) => [t.traj, t]));
  const serverIds = new Set(serverSteps.map((s) => stepIdOf(s.json)));

  // This browser's rows past the common point (any set aside before are no longer its line): those the server has
  // (an upload whose answer was lost) stay; the rest are set aside.
  const mine = withoutSetAside(await db.steps.where("[mind_id+seq]").between([mindId, localBase + 1], [mindId, Infinity]).toArray(), await setAside(db, mindId));
  const stale = mine.filter((r) => !serverIds.has(r.step_id));
  let asideTraj: string | undefined;
  let aside: ReturnType<typeof asideCopies> | null = null;
  if (stale.length) {
    asideTraj = ids.uuid();
    await forkTrajectory(db, mindId, mindId, { trajId: asideTraj, name: CUT_OFF_NAME });
    aside = asideCopies(stale, asideTraj, () => ids.uuid());
    const asideDir = (await db.trajectories.get([mindId, asideTraj]))?.dir ?? "";
    // Their large outputs, where their copies' refs point from their new trajectory's folder (a blob named after its step takes its copy's name).
    for (const r of stale) {
      const fromDir = (await db.trajectories.get([mindId, r.traj_id]))?.dir ?? "";
      for (const ref of blobRefs(r.json)) {
        const text = await getBlob(db, mindId, fromDir ? `${fromDir}/${ref}` : ref);
        const to = `${asideDir}/${aside.rename(ref)}`;
        if (text !== undefined && !(await db.blobs.get([mindId, to]))) await putBlob(db, mindId, to, text);
      }
    }
  }

  // Trajectories the server's steps are in that this browser lacks (a nested run's child), as the server names them.
  for (const t of trajectories.values()) {
    if (t.traj === mindId || (await db.trajectories.get([mindId, t.traj]))) continue;
    await db.trajectories.add({ mind_id: mindId, traj_id: t.traj, name: t.name, dir: t.dir, ...(t.parent_traj ? { parent_traj: t.parent_traj } : {}), ...(t.parent_step ? { parent_step: t.parent_step } : {}) });
  }

  const have = new Set(mine.map((r) => r.step_id));
  const added: Step[] = [];
  const rows: StepRow[] = [];
  const usage: UsageRow[] = [];
  for (const s of serverSteps) {
    const id = stepIdOf(s.json);
    if (have.has(id)) continue;
    const line = readLine(s.json);
    if (!line.ok || !line.valid) throw new Error(`the server's step at seq ${s.seq} does not parse; nothing was pulled`);
    rows.push({ step_id: line.step.step_id, mind_id: mindId, traj_id: s.traj, type: line.step.type, json: s.json });
    const u = usageRow(mindId, line.step, s.traj);
    if (u) usage.push(u);
    if (s.traj === mindId) added.push(line.step);
  }
  // Blobs first, so no step names one this browser lacks.
  for (const s of serverSteps) {
    const dir = trajectories.get(s.traj)?.dir ?? "";
    for (const ref of blobRefs(s.json)) {
      const name = dir ? `${dir}/${ref}` : ref;
      if (await db.blobs.get([mindId, name])) continue;
      const text = await client.blob(creds.mind, creds.token, name);
      if (text !== undefined && text.length <= SYNC_LIMITS.blobBytes) await putBlob(db, mindId, name, text);
    }
  }
  // One transaction: the server's steps in its order (with their usage rows), then the copies of this browser's
  // set-aside ones after them in their own trajectory (so they upload next, as that trajectory), the records that set
  // the rows themselves aside, and where this browser now stands.
  await db.transaction("rw", [db.steps, db.asides, db.usage, db.settings], async () => {
    const keys = await placePulled(db, rows, aside);
    if (usage.length) await db.usage.bulkPut(usage);
    // Their spend still counts in this tab's caps, as in the trajectory they read in now.
    for (const r of stale) await db.usage.where("[mind_id+step_id]").equals([mindId, r.step_id]).modify({ traj_id: asideTraj });
    let at = keys[keys.length - 1];
    if (typeof at !== "number") {
      // Nothing new to add (every step was here): the server's newest is one of ours.
      const lastId = stepIdOf(serverSteps[serverSteps.length - 1]?.json ?? "{}");
      at = (await db.steps.get({ mind_id: mindId, step_id: lastId }))?.seq ?? localBase;
    }
    await updateSync(db, mindId, (r) => ({ ...r, last_seq: last, local_seq: at as number }));
  });
  const selfName = (await getMind(db, mindId))?.name ?? "";
  return { added: rows.length, setAside: stale.length, ...(asideTraj ? { asideTraj } : {}), digest: added.length ? awayDigest(added, selfName) : null };
}

function stepIdOf(json: string): string {
  const v: unknown = JSON.parse(json);
  return v && typeof v === "object" && typeof (v as { step_id?: unknown }).step_id === "string" ? (v as { step_id: string }).step_id : "";
}
