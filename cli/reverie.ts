// reverie check <path> [--json]                  count what a trajectory file or archive holds
// reverie show <path> <step-id|8-hex-prefix> [--full]   print one step (with its blob, --full)
// reverie context <path> [--budget TOKENS] [--json]   what the mind's model is shown of it (cli/context.ts)
// reverie sh [--workspace DIR] [--traj FILE] -c SCRIPT   run a script in the built-in sandbox (cli/sh.ts)
import { openAsBlob } from "node:fs";
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { ArchiveError } from "../lib/archive/types";
import { importArchive, type ImportSink, type StepBatchItem } from "../lib/import/importer";
import { checkSummary } from "../lib/import/stats";
import { context, CONTEXT_HELP, CONTEXT_USAGE_LINE } from "./context";
import { sh, SH_HELP, SH_USAGE_LINE } from "./sh";
import type { Out } from "./out";

const USAGE = `usage:
  reverie check <path> [--json]
  reverie show <path> <step-id|prefix> [--full]
  ${CONTEXT_USAGE_LINE}
  ${SH_USAGE_LINE}

<path> is a trajectory.jsonl, or a Headlong folder tree packed as .zip or .tar.gz.

${CONTEXT_HELP}

${SH_HELP}`;

const std: Out = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

export async function main(argv: string[], io: Out = std): Promise<number> {
  const [command, ...rest] = argv;
  // sh and context take flags with values (sh a script that may look like flags): they read their own arguments.
  if (command === "sh" || command === "context") {
    try {
      return await (command === "sh" ? sh : context)(rest, io, USAGE);
    } catch (e) {
      io.err(`reverie: ${describe(e)}\n`);
      return 1;
    }
  }
  const flags = new Set(rest.filter((a) => a.startsWith("--")));
  const args = rest.filter((a) => !a.startsWith("--"));
  const known = command === "check" ? ["--json", "--help"] : command === "show" ? ["--full", "--help"] : ["--help"];
  const unknown = [...flags].filter((f) => !known.includes(f));
  if (unknown.length) {
    io.err(`reverie: unknown option ${unknown.join(", ")}\n${USAGE}\n`);
    return 2;
  }
  try {
    if (command === "check" && args.length === 1) return await check(args[0] as string, flags.has("--json"), io);
    if (command === "show" && args.length === 2) return await show(args[0] as string, args[1] as string, flags.has("--full"), io);
    if (command === "help" || flags.has("--help") || command === undefined) {
      io.out(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    }
    io.err(`reverie: unknown command or arguments: ${argv.join(" ")}\n${USAGE}\n`);
    return 2;
  } catch (e) {
    io.err(`reverie: ${describe(e)}\n`);
    return 1;
  }
}

function describe(e: unknown): string {
  if (e instanceof ArchiveError) return e.message;
  const code = (e as { code?: string }).code;
  if (code === "ENOENT") return `no such file: ${(e as { path?: string }).path ?? ""}`;
  if (code === "EISDIR") return "that is a folder; pack it as .zip or .tar.gz, or give its trajectory.jsonl";
  return e instanceof Error ? e.message : String(e);
}

async function open(path: string): Promise<Blob> {
  const s = await stat(path);
  if (s.isDirectory()) throw Object.assign(new Error("folder"), { code: "EISDIR" });
  return openAsBlob(path);
}

const nullSink = (
  onSteps?: (trajId: string, batch: StepBatchItem[]) => void,
  onBlob?: (path: string, text: string) => void,
  onTrajectory?: (trajId: string, dir: string) => void,
): ImportSink => ({
  trajectory: async (t) => onTrajectory?.(t.trajId, t.dir),
  steps: async (trajId, batch) => onSteps?.(trajId, batch),
  blob: async (path, text) => onBlob?.(path, text),
  mind: async () => {},
});

async function check(path: string, json: boolean, io: Out): Promise<number> {
  const stats = await importArchive(await open(path), nullSink(), { name: basename(path) });
  const summary = checkSummary(stats);
  if (json) {
    io.out(`${JSON.stringify(summary)}\n`);
    for (const w of stats.warnings) io.err(`warning: ${w}\n`);
  } else {
    io.out(`${plural(summary.steps, "step")} in ${plural(summary.trajectories, "trajectory", "trajectories")}, ${plural(summary.runs, "run")}, ${plural(summary.forks, "fork")}; ${plural(summary.skipped, "line")} skipped\n`);
    for (const [type, n] of Object.entries(summary.byType).sort((a, b) => b[1] - a[1])) io.out(`  ${String(n).padStart(8)}  ${type}\n`);
    for (const w of stats.warnings) io.err(`warning: ${w}\n`);
  }
  return 0;
}

async function show(path: string, idOrPrefix: string, full: boolean, io: Out): Promise<number> {
  const want = idOrPrefix.toLowerCase();
  if (!/^[0-9a-f-]{4,36}$/.test(want)) {
    io.err(`reverie: '${idOrPrefix}' is not a step id or a hex prefix of one\n`);
    return 2;
  }
  const found: (StepBatchItem & { trajId: string })[] = [];
  const blobs = new Map<string, string>();
  const dirs = new Map<string, string>();
  await importArchive(
    await open(path),
    nullSink(
      (trajId, batch) => {
        for (const item of batch) if (item.step.step_id.toLowerCase().startsWith(want)) found.push({ ...item, trajId });
      },
      // Blobs are kept only with --full; they can be large.
      full ? (p, text) => blobs.set(p, text) : undefined,
      (trajId, dir) => dirs.set(trajId, dir),
    ),
    { name: basename(path) },
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
      else io.err(`warning: the blob ${ref} is not in the archive; the inline text is shown\n`);
    }
  }
  io.out(`${JSON.stringify(step, null, 2)}\n`);
  return 0;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
