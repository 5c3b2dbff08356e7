// `reverie check <path> [--json]` counts what a trajectory holds;
// `reverie show <path> <step-id|prefix> [--full]` prints one step (with its
// blob's whole text, --full). <path> is read by cli/source.ts.
import { importArchive, type ImportSink, type StepBatchItem } from "../lib/import/importer";
import { checkSummary } from "../lib/import/stats";
import type { Out } from "./out";
import { openPath } from "./source";

const nullSink = (
  onSteps?: (trajId: string, batch: StepBatchItem[]) => void,
  onBlob?: (path: string, text: string) => void,
  onTrajectory?: (trajId: string, dir: string) => void,
): ImportSink => ({
  trajectory: async (t) => onTrajectory?.(t.trajId, t.dir),
  steps: async (trajId, batch) => onSteps?.(trajId, batch),
  // Without onBlob, blobs are not read at all (a folder's are files never opened).
  ...(onBlob ? { blob: async (path: string, text: string) => onBlob(path, text) } : {}),
  mind: async () => {},
});

export async function check(path: string, json: boolean, io: Out): Promise<number> {
  const { source, name } = await openPath(path);
  const stats = await importArchive(source, nullSink(), { name });
  const summary = checkSummary(stats);
  if (json) {
    io.out(`${JSON.stringify(summary)}\n`);
    for (const w of stats.warnings) io.err(`warning: ${w}\n`);
  } else {
    // Why each line was skipped, so a line cut by the length limit says so.
    const why = Object.entries(stats.skippedReasons).map(([reason, n]) => `${reason}: ${n}`);
    io.out(`${plural(summary.steps, "step")} in ${plural(summary.trajectories, "trajectory", "trajectories")}, ${plural(summary.runs, "run")}, ${plural(summary.forks, "fork")}; ${plural(summary.skipped, "line")} skipped${why.length ? ` (${why.join(", ")})` : ""}\n`);
    for (const [type, n] of Object.entries(summary.byType).sort((a, b) => b[1] - a[1])) io.out(`  ${String(n).padStart(8)}  ${type}\n`);
    for (const w of stats.warnings) io.err(`warning: ${w}\n`);
  }
  return 0;
}

export async function show(path: string, idOrPrefix: string, full: boolean, io: Out): Promise<number> {
  const want = idOrPrefix.toLowerCase();
  if (!/^[0-9a-f-]{4,36}$/.test(want)) {
    io.err(`reverie: '${idOrPrefix}' is not a step id or a hex prefix of one\n`);
    return 2;
  }
  const found: (StepBatchItem & { trajId: string })[] = [];
  const blobs = new Map<string, string>();
  const dirs = new Map<string, string>();
  const { source, name, kind } = await openPath(path);
  await importArchive(
    source,
    nullSink(
      (trajId, batch) => {
        for (const item of batch) if (item.step.step_id.toLowerCase().startsWith(want)) found.push({ ...item, trajId });
      },
      // Blobs are kept only with --full; they can be large.
      full ? (p, text) => blobs.set(p, text) : undefined,
      (trajId, dir) => dirs.set(trajId, dir),
    ),
    { name },
  );
  if (found.length === 0) {
    io.err(`reverie: no step ${idOrPrefix} in ${path}\n`);
    return 1;
  }
  if (found.length > 1) {
    io.err(`reverie: ${idOrPrefix} matches ${found.length} steps; give more of the id:\n${found.map((f) => `  ${f.step.step_id} ${f.step.type}\n`).join("")}`);
    return 1;
  }
  const item = found[0] as StepBatchItem & { trajId: string };
  const dir = dirs.get(item.trajId) ?? "";
  const step = JSON.parse(item.raw) as Record<string, unknown>;
  if (full) {
    for (const field of ["stdout", "stderr"]) {
      const ref = step[`${field}_ref`];
      if (typeof ref !== "string") continue;
      // Blob refs are relative to the step's own trajectory folder.
      const text = blobs.get(dir ? `${dir}/${ref}` : ref);
      if (text !== undefined) step[field] = text;
      else io.err(`warning: the blob ${ref} is not in the ${kind === "folder" ? "folder" : "archive"}; the inline text is shown\n`);
    }
  }
  io.out(`${JSON.stringify(step, null, 2)}\n`);
  return 0;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
