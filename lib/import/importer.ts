// Import a Headlong trajectory (a single trajectory.jsonl, a folder tree
// packed as .zip / .tar.gz, or a folder as it lies on disk, which the command
// line reads) into a sink, streaming: steps go out in batches as they are
// read, so a 100,000-step file never sits whole in memory. Shared by the
// browser (Dexie sink) and the command line (counting sink).
import { type ArchiveLimits, byteSize, thousands } from "../archive/limits";
import { ArchiveError, readArchive, type ArchiveEntry, type ArchiveSource } from "../archive/read";
import * as z from "zod";
import { classifyPath, InvalidLine, keptLine, parentDir, readLine, type StepLine } from "../trajectory/headlong";
import { LineSplitter, linesOf, MAX_LINE_BYTES, overLongReason } from "./lines";
import { countSkipped, emptyStats, type ImportStats } from "./stats";
import { EVAL_RESULTS_FILE, parseEvalResults } from "../eval/results";
import { systemIds } from "../system/system";

export interface ImportedTrajectory {
  /** The trajectory's id: the step_id of its first `trajectory` line (or a new id when it has none). */
  trajId: string;
  /** Its folder inside the archive ("" for a lone trajectory.jsonl). */
  dir: string;
  name: string;
  parentTraj?: string;
  parentStep?: string;
}

export interface StepBatchItem {
  /** The kept line: a valid step, or a line kept as invalid (an InvalidLine, counted in the stats). */
  step: StepLine;
  /** The line exactly as it was in the file, so export gives the same JSON back. */
  raw: string;
}

export interface ImportSink {
  trajectory(t: ImportedTrajectory): Promise<void>;
  steps(trajId: string, batch: StepBatchItem[]): Promise<void>;
  /** `path` is `<dir>/blobs/<name>` as in the archive. Without it blobs are counted, not read (`reverie check`). */
  blob?(path: string, text: string): Promise<void>;
  mind(json: unknown): Promise<void>;
  /** A trajectory's sealed summaries (`<dir>/tiers.jsonl`), its text as in the archive; without it they are skipped. */
  tiers?(dir: string, text: string): Promise<void>;
  /**
   * The archive's results.json (a `reverie eval --out` run's scoreboard), its
   * text as in the archive: handed over even when it is not readable results,
   * so export gives the file back (the importer warns). Without it, it is only checked.
   */
  results?(text: string): Promise<void>;
}

export interface ImportOptions {
  name?: string;
  signal?: AbortSignal;
  onProgress?: (bytesRead: number, totalBytes: number, stats: ImportStats) => void;
  /** Steps per sink call. */
  batchSize?: number;
  newId?: () => string;
  /** The archive's bounds (lib/archive ARCHIVE_LIMITS) and the longest line read (MAX_LINE_BYTES), where not given. */
  limits?: Partial<ArchiveLimits> & { maxLineBytes?: number };
}

const MAX_MIND_JSON = 1024 * 1024;
/** A week's results with a few thousand wakes is a few hundred kB; far beyond that is not a scoreboard. */
export const MAX_RESULTS_JSON = 5 * 1024 * 1024;

/**
 * Lines skipped beyond one per byte of the file read. Every skipped line
 * takes at least two bytes ("x" and its newline), so a file read as it is
 * never passes this; a compressed flood of short junk lines does, long before
 * the inflate limits stop it (a JSON.parse that fails costs microseconds, and
 * 64 MiB of "x" lines is 32 million of them).
 */
export const SKIPPED_LINES_SLACK = 100_000;

const pathParts = (path: string) => path.replace(/\\/g, "/").replace(/^\.?\/+/, "").split("/").filter(Boolean);

/** A trajectory's sealed summaries: `tiers.jsonl` beside its trajectory.jsonl. */
const isTiersFile = (path: string) => pathParts(path).at(-1) === "tiers.jsonl";

/** results.json beside mind.json: at the archive's root, or in the one folder it was packed in. */
const isResultsFile = (path: string) => {
  const parts = pathParts(path);
  return parts.length <= 2 && parts.at(-1) === EVAL_RESULTS_FILE;
};

/** The trajectory folder a `tiers.jsonl` entry sits in, named as classifyPath names folders. */
const tiersDir = (path: string) => pathParts(path).slice(0, -1).join("/");

export async function importArchive(source: ArchiveSource, sink: ImportSink, opts: ImportOptions = {}): Promise<ImportStats> {
  const stats = emptyStats();
  const batchSize = opts.batchSize ?? 2000;
  const newId = opts.newId ?? (() => systemIds.uuid());
  const seen = new Set<string>();
  const dirs = new Set<string>();
  const trajOfDir = new Map<string, string>();
  let lastBytes = 0;
  let lastTotal = source.size;
  let resultsSeen: string | null = null;

  for await (const entry of readArchive(source, {
    name: opts.name,
    signal: opts.signal,
    limits: opts.limits,
    onProgress: (read, total) => {
      lastBytes = read;
      lastTotal = total;
      opts.onProgress?.(read, total, stats);
    },
  })) {
    const role = classifyPath(entry.path);
    if (role.kind === "blob") {
      if (sink.blob) await sink.blob(`${role.dir ? `${role.dir}/` : ""}blobs/${role.name}`, await entry.text());
      else await entry.skip();
      stats.blobs++;
    } else if (role.kind === "mind") {
      if ((entry.size ?? 0) > MAX_MIND_JSON) {
        await entry.skip();
        stats.warnings.push("mind.json is over 1 MB and was not read; the trajectory was imported without it.");
        continue;
      }
      // Read outside the try: a damaged entry is the archive's error, not a bad mind.json.
      const text = await entry.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        stats.warnings.push("mind.json is not valid JSON; the trajectory was imported without it.");
        continue;
      }
      try {
        await sink.mind(json);
      } catch (e) {
        // Valid JSON can still defeat a reader: nested a hundred thousand deep, it overflows any recursive walk.
        stats.warnings.push(`mind.json could not be used (${e instanceof Error ? e.message : String(e)}); the trajectory was imported without it.`);
      }
    } else if (role.kind === "trajectory") {
      dirs.add(role.dir);
      await importTrajectory(entry.stream(), role.dir, {
        sink,
        stats,
        seen,
        batchSize,
        newId,
        signal: opts.signal,
        maxLineBytes: opts.limits?.maxLineBytes ?? MAX_LINE_BYTES,
        parentOf: (dir) => {
          const p = parentDir(dir, dirs);
          return p === undefined ? undefined : trajOfDir.get(p);
        },
        onTraj: (dir, id) => trajOfDir.set(dir, id),
        progress: () => opts.onProgress?.(lastBytes, lastTotal, stats),
        bytesRead: () => lastBytes,
      });
    } else if (role.kind === "other" && sink.tiers && isTiersFile(entry.path)) {
      await sink.tiers(tiersDir(entry.path), await entry.text());
    } else if (role.kind === "other" && isResultsFile(entry.path)) {
      if (resultsSeen !== null) {
        await entry.skip();
        stats.warnings.push(`${entry.path} was not read: the archive's results are ${resultsSeen}.`);
      } else {
        resultsSeen = entry.path;
        await readResults(entry, sink, stats);
      }
    } else {
      await entry.skip();
    }
  }
  if (stats.trajectories === 0) stats.warnings.push("No trajectory.jsonl was found in this file.");
  return stats;
}

/** results.json to the sink, checked: a file that is not readable results is kept (and warned of), one too big is skipped. */
async function readResults(entry: ArchiveEntry, sink: ImportSink, stats: ImportStats): Promise<void> {
  const tooBig = `${entry.path} is over ${byteSize(MAX_RESULTS_JSON)} and was not read; the trajectory was imported without its scoreboard.`;
  if ((entry.size ?? 0) > MAX_RESULTS_JSON) {
    await entry.skip();
    stats.warnings.push(tooBig);
    return;
  }
  const text = await entry.text();
  // An entry's size is not always known before it is read (a folder on disk, some tars).
  if (text.length > MAX_RESULTS_JSON) {
    stats.warnings.push(tooBig);
    return;
  }
  const parsed = parseEvalResults(text);
  if (!parsed.ok) stats.warnings.push(`${parsed.error}; it was kept as it is, without a scoreboard.`);
  await sink.results?.(text);
}

interface TrajectoryContext {
  sink: ImportSink;
  stats: ImportStats;
  seen: Set<string>;
  batchSize: number;
  newId: () => string;
  signal?: AbortSignal;
  maxLineBytes: number;
  /** The parent trajectory by folder, for children whose first line does not say. */
  parentOf: (dir: string) => string | undefined;
  onTraj: (dir: string, trajId: string) => void;
  progress: () => void;
  /** Bytes of the file read so far (compressed bytes for a compressed file). */
  bytesRead: () => number;
}

async function importTrajectory(stream: ReadableStream<Uint8Array>, dir: string, ctx: TrajectoryContext): Promise<void> {
  const { stats } = ctx;
  const splitter = new LineSplitter(ctx.maxLineBytes);
  let traj: ImportedTrajectory | null = null;
  let batch: StepBatchItem[] = [];

  const open = async (first: StepLine | null) => {
    // A first `trajectory` line names the trajectory (its id, name and parent) even when it is not a valid step.
    const header = first?.type === "trajectory" ? first : null;
    const fields = header ? HeaderFields.parse(header instanceof InvalidLine ? JSON.parse(header.raw) : header) : {};
    traj = {
      trajId: header ? header.step_id : ctx.newId(),
      dir,
      name: fields.name ?? (dir.split("/").pop() || "trajectory"),
      parentTraj: fields.parent_traj ?? ctx.parentOf(dir),
      parentStep: fields.parent_step,
    };
    ctx.onTraj(dir, traj.trajId);
    stats.trajectories++;
    await ctx.sink.trajectory(traj);
    return traj;
  };
  const flush = async () => {
    if (!traj || batch.length === 0) return;
    await ctx.sink.steps(traj.trajId, batch);
    batch = [];
    ctx.progress();
  };
  const seen = (stepId: string) => ctx.seen.has(stepId);
  const skip = (reason: string) => {
    countSkipped(stats, reason);
    if (stats.skipped > ctx.bytesRead() + SKIPPED_LINES_SLACK) {
      throw new ArchiveError(
        `This file inflates to more unreadable lines than it has bytes (${thousands(stats.skipped)} lines from ${byteSize(ctx.bytesRead())}); it looks like a decompression bomb and was not read further.`,
      );
    }
  };
  const take = async (line: string) => {
    const r = readLine(line, { seen });
    const kept = keptLine(r);
    if (!r.ok || !kept) {
      if (!r.ok && r.reason !== "blank") skip(r.reason);
      return;
    }
    ctx.seen.add(kept.step_id);
    traj ??= await open(kept);
    countStep(stats, kept);
    if (!r.valid) stats.invalid++;
    // Kept byte for byte, valid or not: export gives the same line back.
    batch.push({ step: kept, raw: r.raw });
    if (batch.length >= ctx.batchSize) await flush();
  };

  for await (const lines of linesOf(stream, splitter, ctx.signal)) for (const line of lines) await take(line);
  const file = `${dir ? `${dir}/` : ""}trajectory.jsonl`;
  if (splitter.overLong > 0) {
    // A cut by a limit says so: counted with the skipped lines, and named in a warning.
    countSkipped(stats, overLongReason(ctx.maxLineBytes), splitter.overLong);
    stats.warnings.push(`${file}: ${splitter.overLong} line(s) over ${byteSize(ctx.maxLineBytes)} skipped unread; the lines around them were read.`);
  }
  if (!traj) {
    await open(null);
    stats.warnings.push(`${file} holds no readable steps.`);
  }
  await flush();
}

/** What a trajectory's first line says of it, read leniently: a field that is not a string is left out. */
const HeaderFields = z.object({
  name: z.string().optional().catch(undefined),
  parent_traj: z.string().optional().catch(undefined),
  parent_step: z.string().optional().catch(undefined),
});

function countStep(stats: ImportStats, step: StepLine): void {
  stats.steps++;
  stats.byType[step.type] = (stats.byType[step.type] ?? 0) + 1;
  if (step.type === "shellm-run") stats.runIds.add(step.step_id);
  else if (step.run_id) stats.runIds.add(step.run_id);
  if (step.type === "fork") stats.forks++;
}
