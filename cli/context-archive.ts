// What `reverie context` reads of an archive (.zip, .tar.gz, .tar), or of a
// file whose name does not say it is JSON lines: lib/archive's one pass over
// its entries, every line of every trajectory read and checked by
// lib/trajectory's readLine. cli/context-read.ts reads folders and
// trajectory.jsonl files on disk without any of that.
import { detectFormat, readArchive, type ArchiveEntry, type ArchiveSource } from "../lib/archive";
import { arraySource, inStream } from "../lib/context/stream";
import { headlongRollupDir, isHeadlongRollup, TIERS_FILE } from "../lib/context/sealed-lookup";
import { LineSplitter, linesOf, overLongReason } from "../lib/import/lines";
import { classifyPath, readLine } from "../lib/trajectory/headlong";
import type { Step } from "../lib/trajectory/schema";
import { MAX_MIND_JSON, nameIn, readBeside, type ReadTree, type Traj } from "./context-read";
import { openPath } from "./source";
import { basename, dirname } from "node:path";

type Read = Traj & { steps: Step[]; skipped: Record<string, number> };

async function readSteps(entry: ArchiveEntry, dir: string): Promise<Read> {
  const traj: Read = { dir, steps: [], skipped: {} };
  const seen = new Set<string>();
  const skip = (reason: string, n = 1) => void (traj.skipped[reason] = (traj.skipped[reason] ?? 0) + n);
  let first = true;
  const take = (line: string) => {
    // The context reads fields, never writes a step back: a valid line may stay the object it parsed to.
    const r = readLine(line, { asWritten: true, seen: (id) => seen.has(id) });
    if (!r.ok) return r.reason === "blank" ? undefined : skip(r.reason);
    const kept = r.valid ? r.step : r.invalid;
    seen.add(kept.step_id);
    if (first && kept.type === "trajectory") {
      const header = JSON.parse(r.raw) as Record<string, unknown>;
      if (typeof header.name === "string") traj.name = header.name;
      if (typeof header.parent_traj === "string") traj.parentTraj = header.parent_traj;
    }
    first = false;
    // The context never sees a line that is not a valid step; it is counted with the skipped ones.
    if (!r.valid) return skip("not a valid step");
    traj.steps.push(r.step);
  };
  const splitter = new LineSplitter();
  for await (const lines of linesOf(entry.stream(), splitter)) lines.forEach(take);
  if (splitter.overLong > 0) skip(overLongReason(splitter.maxLineBytes), splitter.overLong);
  return traj;
}

/** The tree an archive holds, every trajectory read in full. */
export async function readArchived(path: string): Promise<ReadTree> {
  const { source, name, kind } = await openPath(path);
  const read: Read[] = [];
  const tree: ReadTree = {
    holder: kind,
    trajectories: read,
    tiers: new Map(),
    headlong: new Map(),
    stream: async (i) => {
      const t = read[i];
      if (!t) throw new Error(`no trajectory ${i}`);
      return { source: arraySource(t.steps.filter(inStream)), skipped: t.skipped, ...(t.name !== undefined ? { name: t.name } : {}) };
    },
    // Every line was read in full: nothing is taken on trust, nothing is read again.
    again: () => undefined,
  };
  for await (const entry of readArchive(source, { name })) {
    const role = classifyPath(entry.path);
    if (role.kind === "trajectory") read.push(await readSteps(entry, role.dir));
    else if (role.kind === "mind" && (entry.size ?? 0) <= MAX_MIND_JSON) tree.mindName = nameIn(await entry.text());
    else if (role.kind === "other" && basename(entry.path) === TIERS_FILE) tree.tiers.set(dirname(entry.path).replace(/^\.$/, ""), await entry.text());
    else if (role.kind === "other" && isHeadlongRollup(entry.path)) {
      const dir = headlongRollupDir(entry.path);
      tree.headlong.set(dir, [...(tree.headlong.get(dir) ?? []), await entry.text()]);
    } else await entry.skip();
  }
  // A folder or an archive holds the summaries; a lone trajectory.jsonl has them beside it.
  if (kind === "file" && (await isJsonl(source, name))) readBeside(path, tree);
  return tree;
}

async function isJsonl(source: ArchiveSource, name: string): Promise<boolean> {
  return source instanceof Blob && detectFormat(name, new Uint8Array(await source.slice(0, 512).arrayBuffer())) === "jsonl";
}
