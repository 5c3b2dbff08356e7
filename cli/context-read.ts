// What `reverie context` reads of a trajectory folder or a trajectory.jsonl
// on disk, without lib/archive's streams or zod: the files as they lie (the
// folder's, or the summaries beside a lone file), every trajectory's header
// (which one is the root depends on them), and the root's lines, scanned
// (cli/context-scan.ts). An archive (.zip, .tar.gz, .tar), or a file whose
// name does not say it is JSON lines, is read by cli/context-archive.ts.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { headlongRollupDir, isHeadlongRollup, TIERS_FILE } from "../lib/context/sealed-lookup";
import type { ContextSource } from "../lib/context/stream";
import { classifyPath } from "../lib/trajectory/layout";
import type { Step } from "../lib/trajectory/schema";
import { readFull, scan, streamSource } from "./context-scan";
import { readForScan } from "./context-scan-wasm";
import { noTrajectoryIn, walk } from "./folder-walk";

/** A trajectory of the file: where it lies, and what its header says. */
export interface Traj {
  dir: string;
  name?: string;
  parentTraj?: string;
}

/** The root's stream and what was skipped of its lines (and its header's name, when it has one). */
export interface RootStream {
  source: ContextSource;
  skipped: Record<string, number>;
  name?: string;
}

/** What the context needs of a file: its trajectories, the summaries beside each, the mind's name; the root's stream once the root is picked. */
export interface ReadTree {
  holder: "file" | "folder";
  trajectories: Traj[];
  /** By trajectory folder: tiers.jsonl's text, Headlong's rollup files' texts. */
  tiers: Map<string, string>;
  headlong: Map<string, string[]>;
  mindName?: string;
  /** The stream of trajectories[i]; after a Rescan of `line`, `again` reads that line in full. */
  stream(i: number): Promise<RootStream>;
  again(line: number): void;
}

export const MAX_MIND_JSON = 1024 * 1024;
/** The head read of a trajectory that is not the root: enough for its header, almost always. */
const HEAD = 64 * 1024;

export function nameIn(json: string): string | undefined {
  try {
    const name: unknown = (JSON.parse(json) as { name?: unknown } | null)?.name;
    return typeof name === "string" && name.trim() ? name.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** The tree of a folder or of a trajectory.jsonl; undefined for what cli/context-archive.ts reads (an archive, a file not named as JSON lines). */
export async function readOnDisk(path: string): Promise<ReadTree | undefined> {
  const s = statSync(path);
  if (s.isDirectory()) return readFolder(path);
  const head = Buffer.alloc(512);
  const fd = openSync(path, "r");
  let got: number;
  try {
    got = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  // As lib/archive's detectFormat decides, magic bytes first; only a name that says JSON lines is read here.
  const h = head.subarray(0, got);
  const archive = (h[0] === 0x50 && h[1] === 0x4b) || (h[0] === 0x1f && h[1] === 0x8b) || h.toString("latin1", 257, 262) === "ustar";
  if (archive || !/\.(jsonl|ndjson|json)$/.test(basename(path).toLowerCase())) return undefined;
  const tree = emptyTree("file", [{ dir: "", abs: path }]);
  readBeside(path, tree);
  return tree;
}

type Place = Traj & { abs: string };

function emptyTree(holder: "file" | "folder", places: Place[]): ReadTree & { places: Place[] } {
  const streams = new Map<number, RootReader>();
  // Lines to read in full, whatever their first bytes: the root's (the one trajectory whose stream is read).
  const full = new Set<number>();
  const tree = {
    holder,
    places,
    trajectories: places,
    tiers: new Map<string, string>(),
    headlong: new Map<string, string[]>(),
    stream: async (i: number) => {
      const place = places[i];
      if (!place) throw new Error(`no trajectory ${i}`);
      let reader = streams.get(i);
      // Read at once: the promise-based read of a few megabytes takes its chunks one wait at a time.
      if (!reader) streams.set(i, (reader = new RootReader(readForScan(place.abs), full)));
      return reader.stream();
    },
    again: (line: number) => void full.add(line),
  };
  return tree;
}

async function readFolder(path: string): Promise<ReadTree> {
  const files = await walk(path);
  noTrajectoryIn(path, files);
  const tree = emptyTree("folder", []);
  for (const f of files) {
    const role = classifyPath(f.rel);
    if (role.kind === "trajectory") tree.places.push({ dir: role.dir, abs: f.abs });
    else if (role.kind === "mind" && f.size <= MAX_MIND_JSON) tree.mindName = nameIn(readFileSync(f.abs, "utf8"));
    else if (role.kind === "other" && basename(f.rel) === TIERS_FILE) tree.tiers.set(dirname(f.rel).replace(/^\.$/, ""), readFileSync(f.abs, "utf8"));
    else if (role.kind === "other" && isHeadlongRollup(f.rel)) {
      const dir = headlongRollupDir(f.rel);
      tree.headlong.set(dir, [...(tree.headlong.get(dir) ?? []), readFileSync(f.abs, "utf8")]);
    }
  }
  // Which trajectory is the root is told by their headers: each one's first line kept.
  for (const place of tree.places) Object.assign(place, headerOf(place.abs));
  return tree;
}

/** A trajectory's header, from its first line kept (its head, and the whole file only when the head holds no whole line). */
function headerOf(file: string): Pick<Traj, "name" | "parentTraj"> {
  const fd = openSync(file, "r");
  let head: Buffer;
  let whole: boolean;
  try {
    head = Buffer.alloc(HEAD);
    const got = readSync(fd, head, 0, HEAD, 0);
    whole = got < HEAD;
    head = head.subarray(0, got);
  } finally {
    closeSync(fd);
  }
  // A line cut by the head's end is not read from it: it is whole only in the file.
  let s = scan(whole ? head : head.subarray(0, head.lastIndexOf(0x0a) + 1), new Set(), new Map(), true);
  if (!s.kept && !whole) s = scan(readFileSync(file), new Set(), new Map(), true);
  return { ...(s.name !== undefined ? { name: s.name } : {}), ...(s.parentTraj !== undefined ? { parentTraj: s.parentTraj } : {}) };
}

/** A lone trajectory.jsonl's summaries are files beside it on disk. */
export function readBeside(file: string, tree: Pick<ReadTree, "tiers" | "headlong">): void {
  const dir = dirname(resolve(file));
  const tiers = readIfThere(join(dir, TIERS_FILE));
  if (tiers !== undefined) tree.tiers.set("", tiers);
  const rollups = join(dir, "rollups");
  const texts: string[] = [];
  for (const t of listIfThere(rollups).filter((d) => /^t\d+$/.test(d)).sort()) {
    for (const f of listIfThere(join(rollups, t)).sort()) {
      if (isHeadlongRollup(`rollups/${t}/${f}`)) texts.push(readFileSync(join(rollups, t, f), "utf8"));
    }
  }
  if (texts.length) tree.headlong.set("", texts);
}

// Asked first whether they are there: a read that fails makes an error (its stack and all) for nothing.
function readIfThere(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function listIfThere(dir: string): string[] {
  if (!existsSync(dir)) return [];
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The root's lines, scanned again as lines are found to need reading in full; zod asked only for what the compiled checks cannot answer. */
class RootReader {
  private readonly answers = new Map<number, { valid: boolean; step?: Step }>();

  constructor(
    private readonly bytes: Buffer,
    private readonly full: ReadonlySet<number>,
  ) {}

  async stream(): Promise<RootStream> {
    for (;;) {
      const s = scan(this.bytes, this.full, this.answers);
      if (!s.askZod.length) return { source: streamSource(s), skipped: s.skipped, ...(s.name !== undefined ? { name: s.name } : {}) };
      const { checkStep } = await import("../lib/trajectory/schema");
      for (const line of s.askZod) {
        const r = readFull(s.lines, line);
        if (!r.shape.ok) continue;
        const parsed = checkStep(r.shape.value);
        this.answers.set(line, parsed.ok ? { valid: true, step: parsed.step } : { valid: false });
      }
    }
  }
}
