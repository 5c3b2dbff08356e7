// Export an owner (a mind or an imported archive) as a Headlong-layout
// archive: `<hex8>-<slug>/trajectory.jsonl`, children nested in their
// parent's folder, `blobs/` beside each, the trajectory's sealed summaries as
// `tiers.jsonl` beside it (what `npx reverie context` reads), plus
// `mind.json` (never keys), and an eval run's `results.json` as it was imported.
import Dexie from "dexie";
import type { OutEntry } from "../../archive/write";
import { TIERS_FILE } from "../../context/rollups";
import { trajDirName } from "../../trajectory/headlong";
import { parseArchive } from "../minds/archives";
import type { TrajectoryRow } from "../../trajectory/source";
import type { ReverieDb } from "../db/db";
import { parseMind } from "../minds/minds";
import { MIND_JSON_FORMAT, mindFile } from "../../mind/settings/settings";
import { getResultsText, RESULTS_BLOB } from "../minds/results";
import { setAside, withoutSetAside } from "../steps/aside";

export { MIND_JSON_FORMAT };

/** The folder each trajectory gets in the export. Imported ones keep their folders. */
export function exportDirs(trajs: readonly TrajectoryRow[]): Map<string, string> {
  const byId = new Map(trajs.map((t) => [t.traj_id, t]));
  const out = new Map<string, string>();
  const dirOf = (t: TrajectoryRow, depth = 0): string => {
    const known = out.get(t.traj_id);
    if (known !== undefined) return known;
    let dir: string;
    if (t.dir) dir = t.dir;
    else {
      const parent = t.parent_traj ? byId.get(t.parent_traj) : undefined;
      const own = trajDirName(t.traj_id, t.name);
      dir = parent && parent !== t && depth < 64 ? `${dirOf(parent, depth + 1)}/${own}` : own;
    }
    out.set(t.traj_id, dir);
    return dir;
  };
  for (const t of trajs) dirOf(t);
  return out;
}

/** The mind.json of an export: persona and settings, never the key. */
export function mindJson(ownerJson: unknown): Record<string, unknown> {
  const mind = parseMind(ownerJson);
  if (mind) return mindFile(mind);
  const archive = parseArchive(ownerJson);
  const original = archive?.mind && typeof archive.mind === "object" ? (archive.mind as Record<string, unknown>) : {};
  return { format: MIND_JSON_FORMAT, version: 1, ...original, name: archive?.name ?? original.name ?? "trajectory" };
}

export async function* exportEntries(db: ReverieDb, ownerId: string): AsyncGenerator<OutEntry> {
  const owner = await db.minds.get(ownerId);
  if (!owner) throw new Error(`Nothing to export: no mind or archive ${ownerId}.`);
  const trajs = await db.trajectories.where("mind_id").equals(ownerId).toArray();
  const dirs = exportDirs(trajs);
  yield { path: "mind.json", data: `${JSON.stringify(mindJson(owner.json), null, 2)}\n` };
  const results = await getResultsText(db, ownerId);
  if (results !== undefined) yield { path: RESULTS_BLOB, data: results };
  for (const t of trajs) {
    const dir = dirs.get(t.traj_id) ?? trajDirName(t.traj_id, t.name);
    yield { path: `${dir}/trajectory.jsonl`, data: await trajectoryText(db, ownerId, t.traj_id) };
    const tiers = await tiersText(db, ownerId, t.traj_id);
    if (tiers) yield { path: `${dir}/${TIERS_FILE}`, data: tiers };
    const prefix = t.dir ? `${t.dir}/blobs/` : "blobs/";
    const blobs = await db.blobs.where("[mind_id+name]").between([ownerId, prefix], [ownerId, `${prefix}\uffff`]).toArray();
    for (const b of blobs) yield { path: `${dir}/blobs/${b.name.slice(prefix.length)}`, data: b.text };
  }
}

/** A trajectory's lines exactly as stored: an archive's pages, or a mind's rows. */
async function trajectoryText(db: ReverieDb, owner: string, traj: string): Promise<string> {
  const pages = await db.pages.where("[mind_id+traj_id+page]").between([owner, traj, Dexie.minKey], [owner, traj, Dexie.maxKey]).toArray();
  if (pages.length > 0) return pages.map((p) => `${p.lines}\n`).join("");
  const rows = await db.steps.where("[mind_id+traj_id+seq]").between([owner, traj, Dexie.minKey], [owner, traj, Dexie.maxKey]).toArray();
  // Without the rows a pull set aside: their copies are in the trajectory they were set aside in.
  return withoutSetAside(rows, await setAside(db, owner))
    .map((r) => `${r.json}\n`)
    .join("");
}

/**
 * A trajectory's sealed summaries as tiers.jsonl lines (finest tier first),
 * or "" when it has none. The store's seqs are left out: the database that
 * reads the file numbers its steps anew.
 */
async function tiersText(db: ReverieDb, owner: string, traj: string): Promise<string> {
  const rows = await db.tiers.where("[mind_id+traj_id]").equals([owner, traj]).toArray();
  rows.sort((a, b) => a.tier - b.tier || a.index - b.index);
  return rows.map(({ mind_id: _m, traj_id: _t, first_seq: _f, last_seq: _l, ...line }) => `${JSON.stringify(line)}\n`).join("");
}
