// A played scenario as an archive the app imports (`reverie eval --out`):
// the Headlong layout an export of a mind has (lib/store/exchange/export.ts),
// `mind.json`, each trajectory's `trajectory.jsonl` with its `tiers.jsonl`
// and `blobs/` beside it, children nested in their parent's folder, and
// `results.json` at the root, which the app's scoreboard reads.
import type { OutEntry } from "../archive/write";
import { TIERS_FILE } from "../context/rollups";
import type { MemoryMindState } from "../mind/state/memory-state";
import { mindFile, type MindSettings } from "../mind/settings/settings";
import { MIND_FILE, TRAJECTORY_FILE, trajDirName } from "../trajectory/headlong";
import { EVAL_RESULTS_FILE, type EvalResults } from "./results";

const jsonl = (rows: readonly unknown[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join("");

export async function evalArchiveEntries(state: MemoryMindState<MindSettings>, results: EvalResults): Promise<OutEntry[]> {
  const record = await state.record();
  if (!record) throw new Error("the played mind has no record to write");
  const out: OutEntry[] = [{ path: MIND_FILE, data: `${JSON.stringify(mindFile(record.settings), null, 2)}\n` }];
  const walk = async (trajId: string, parentDir: string | null, depth: number) => {
    const { name, blobs } = state.trajectory(trajId);
    const own = trajDirName(trajId, parentDir === null ? record.settings.name : name);
    const dir = parentDir === null ? own : `${parentDir}/${own}`;
    out.push({ path: `${dir}/${TRAJECTORY_FILE}`, data: jsonl(state.steps(trajId)) });
    // The store's seqs stay behind: the database that imports the file numbers its steps anew.
    const tiers = (await state.tiers(trajId).list()).map(({ first_seq: _f, last_seq: _l, ...line }) => line);
    if (tiers.length) out.push({ path: `${dir}/${TIERS_FILE}`, data: jsonl(tiers) });
    for (const b of blobs) out.push({ path: `${dir}/blobs/${b}`, data: (await state.blob(trajId, b)) ?? "" });
    if (depth < 64) for (const child of state.children(trajId)) await walk(child, dir, depth + 1);
  };
  await walk(state.mindId, null, 0);
  out.push({ path: EVAL_RESULTS_FILE, data: `${JSON.stringify(results, null, 2)}\n` });
  return out;
}
