// `reverie eval --out DIR`: each run written as the app's archives are, both
// unpacked (what `reverie check` and `reverie context` read) and packed as
// `<name>.tar.gz` (what the home page's import takes). A --vary run puts each
// variant in a folder of its own, with results.json of them all at the top.
import { createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { writeTarGz } from "../lib/archive/write";
import { evalArchiveEntries } from "../lib/eval/archive";
import type { PlayedScenario } from "../lib/eval/play";
import { EVAL_RESULTS_FILE, EVAL_RESULTS_FORMAT, type EvalResults } from "../lib/eval/results";
import { slugify } from "../lib/trajectory/headlong";

/** A folder --out may write into: missing, empty, or an earlier run's output (whose files it replaces). Else the problem. */
export async function checkOutDir(dir: string): Promise<{ problem: string } | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOENT") return null;
    return { problem: code === "ENOTDIR" ? `--out ${dir} is a file, not a folder` : `--out ${dir} cannot be read: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (names.length === 0) return null;
  const earlier = await readFile(join(dir, EVAL_RESULTS_FILE), "utf8").then(
    (t) => (JSON.parse(t) as { format?: unknown }).format === EVAL_RESULTS_FORMAT,
    () => false,
  );
  return earlier ? null : { problem: `--out ${dir} is not empty and holds no earlier results.json: give a new folder` };
}

const archiveName = (r: EvalResults) => slugify(r.label ? `${r.scenario} ${r.label}` : r.scenario) || "eval";

/** One run's archive into `dir`: its files, and the same packed as a .tar.gz. Returns the .tar.gz's path. */
async function writeRun(dir: string, state: PlayedScenario["state"], results: EvalResults): Promise<string> {
  const entries = await evalArchiveEntries(state, results);
  for (const e of entries) {
    const path = join(dir, e.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, e.data);
  }
  const tar = join(dir, `${archiveName(results)}.tar.gz`);
  await pipeline(Readable.fromWeb(writeTarGz(entries) as WebReadableStream<Uint8Array>), createWriteStream(tar));
  return tar;
}

/**
 * Write the runs. `summary` (a --vary run's results of every variant) goes to
 * DIR/results.json, each run to a folder named for its variant; a single run
 * is DIR itself. Returns what to tell the person.
 */
export async function writeEvalOut(dir: string, runs: { state: PlayedScenario["state"]; results: EvalResults }[], summary?: object): Promise<string | { problem: string }> {
  const refused = await checkOutDir(dir);
  if (refused) return refused;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const tars: string[] = [];
  if (!summary) {
    const [one] = runs;
    if (one) tars.push(await writeRun(dir, one.state, one.results));
  } else {
    for (const r of runs) tars.push(await writeRun(join(dir, archiveName(r.results)), r.state, r.results));
    await writeFile(join(dir, EVAL_RESULTS_FILE), `${JSON.stringify(summary, null, 2)}\n`);
  }
  return `${resolve(dir)}: import ${tars.length === 1 ? "the archive" : "an archive"} from the app's home page (${tars.map((t) => t.slice(resolve(dir).length + 1)).join(", ")})`;
}
