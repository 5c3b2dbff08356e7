// `reverie context <path> [--budget TOKENS] [--json]`: what the mind's model
// is shown of a trajectory, by the same buildContext the mind calls. The past
// comes as sealed summaries where the trajectory has them (tiers.jsonl beside
// its trajectory.jsonl, checked against the stream) and as elisions where it
// does not; the newest steps verbatim. A malformed line, or one that is not a
// valid step, is skipped and counted; the steps after it are read as usual.
import { readdir, readFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { detectFormat, readArchive, type ArchiveEntry, type ArchiveSource } from "../lib/archive";
import { arraySource, buildContext, DEFAULT_BUDGET, inStream, type BuiltContext } from "../lib/context/build";
import { headlongRollupDir, isHeadlongRollup, parseHeadlongRollup, parseTiers, sealedLookup, TIERS_FILE, type Rollup } from "../lib/context/rollups";
import { DEFAULT_TIERS } from "../lib/context/staircase";
import { TokenCounter } from "../lib/context/tokens";
import { LineSplitter, linesOf, overLongReason } from "../lib/import/lines";
import { classifyPath, parentDir, readLine, TRAJECTORY_FILE } from "../lib/trajectory/headlong";
import type { Step } from "../lib/trajectory/schema";
import type { ContextArgs } from "./context-args";
import type { Out } from "./out";
import { openPath } from "./source";

interface Traj {
  dir: string;
  name?: string;
  parentTraj?: string;
  steps: Step[];
  skipped: Record<string, number>;
}

/** What the file holds that the context needs: every trajectory's steps, and the summaries beside each. */
interface Tree {
  trajectories: Traj[];
  /** By trajectory folder: tiers.jsonl's text, Headlong's rollup files' texts. */
  tiers: Map<string, string>;
  headlong: Map<string, string[]>;
  mindName?: string;
}

const MAX_MIND_JSON = 1024 * 1024;

async function readSteps(entry: ArchiveEntry, dir: string): Promise<Traj> {
  const traj: Traj = { dir, steps: [], skipped: {} };
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

async function readTree(source: ArchiveSource, name: string): Promise<Tree> {
  const tree: Tree = { trajectories: [], tiers: new Map(), headlong: new Map() };
  for await (const entry of readArchive(source, { name })) {
    const role = classifyPath(entry.path);
    if (role.kind === "trajectory") tree.trajectories.push(await readSteps(entry, role.dir));
    else if (role.kind === "mind" && (entry.size ?? 0) <= MAX_MIND_JSON) tree.mindName = nameIn(await entry.text());
    else if (role.kind === "other" && basename(entry.path) === TIERS_FILE) tree.tiers.set(dirname(entry.path).replace(/^\.$/, ""), await entry.text());
    else if (role.kind === "other" && isHeadlongRollup(entry.path)) {
      const dir = headlongRollupDir(entry.path);
      tree.headlong.set(dir, [...(tree.headlong.get(dir) ?? []), await entry.text()]);
    } else await entry.skip();
  }
  return tree;
}

function nameIn(json: string): string | undefined {
  try {
    const name = (JSON.parse(json) as { name?: unknown } | null)?.name;
    return typeof name === "string" && name.trim() ? name.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** A lone trajectory.jsonl's summaries are files beside it on disk. */
async function readBeside(file: string, tree: Tree): Promise<void> {
  const dir = dirname(resolve(file));
  const tiers = await readFile(join(dir, TIERS_FILE), "utf8").catch(() => undefined);
  if (tiers !== undefined) tree.tiers.set("", tiers);
  const rollups = join(dir, "rollups");
  const tierDirs = await readdir(rollups).catch(() => [] as string[]);
  const texts: string[] = [];
  for (const t of tierDirs.filter((d) => /^t\d+$/.test(d)).sort()) {
    for (const f of (await readdir(join(rollups, t)).catch(() => [] as string[])).sort()) {
      if (isHeadlongRollup(`rollups/${t}/${f}`)) texts.push(await readFile(join(rollups, t, f), "utf8"));
    }
  }
  if (texts.length) tree.headlong.set("", texts);
}

const where = (t: Traj) => `${t.dir ? `${t.dir}/` : ""}${TRAJECTORY_FILE}`;

/** The root trajectory (the first, when there are several), and a note saying which when the file holds more than one. */
function pickRoot(trajectories: Traj[], holder: "file" | "folder"): { root: Traj; note?: string } | undefined {
  const dirs = new Set(trajectories.map((t) => t.dir));
  const roots = trajectories.filter((t) => !t.parentTraj && parentDir(t.dir, dirs) === undefined);
  const root = roots[0] ?? [...trajectories].sort((a, b) => a.dir.split("/").length - b.dir.split("/").length)[0];
  if (!root) return undefined;
  if (trajectories.length === 1) return { root };
  const named = `${where(root)}${root.name ? ` (${root.name})` : ""}`;
  if (roots.length > 1) return { root, note: `note: the ${holder} holds ${trajectories.length} trajectories, ${roots.length} of them roots; this is the first: ${named}\n` };
  return { root, note: `note: the ${holder} holds ${trajectories.length} trajectories; this is the root: ${named}\n` };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** 12,345: as toLocaleString("en-US") writes it, without loading ICU's number formats (tens of ms at a cold start). */
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** `tier 2 ×1, tier 1 ×2, elided ×1, verbatim 34 steps; 12,345 tokens` */
function partsLine(built: BuiltContext): string {
  const tiers = new Map<number, number>();
  let elided = 0;
  let verbatim = 0;
  for (const p of built.parts) {
    if (p.kind === "tier") tiers.set(p.tier, (tiers.get(p.tier) ?? 0) + 1);
    else if (p.kind === "elided") elided++;
    else if (p.kind === "verbatim") verbatim += p.step_ids.length;
  }
  // Coarsest first, as the staircase reads; then the elisions, then the tail.
  const shown = [...tiers].sort((a, b) => b[0] - a[0]).map(([tier, n]) => `tier ${tier} ×${n}`);
  if (elided) shown.push(`elided ×${elided}`);
  shown.push(`verbatim ${plural(verbatim, "step")}`);
  return `${shown.join(", ")}; ${thousands(built.tokens)} tokens`;
}

/** Exit codes as check and show: 0 done, 1 the file is the problem (thrown, for the caller to word), 2 the arguments are (cli/context-args.ts). */
export async function context(args: ContextArgs, io: Out): Promise<number> {
  const { source, name, kind } = await openPath(args.path);
  const tree = await readTree(source, name);
  // A folder or an archive holds the summaries; a lone trajectory.jsonl has them beside it.
  if (kind === "file" && source instanceof Blob && detectFormat(name, new Uint8Array(await source.slice(0, 512).arrayBuffer())) === "jsonl") await readBeside(args.path, tree);
  const picked = pickRoot(tree.trajectories, kind);
  if (!picked) {
    io.err(`reverie: no trajectory.jsonl in ${args.path}\n`);
    return 1;
  }
  const { root, note } = picked;
  if (note) io.err(note);
  const skipped = Object.values(root.skipped).reduce((a, b) => a + b, 0);
  if (skipped) {
    const why = Object.entries(root.skipped).map(([reason, n]) => `${reason}: ${n}`).join(", ");
    io.err(`warning: skipped ${plural(skipped, "malformed line")} of ${where(root)} (${why}); the steps after ${skipped === 1 ? "it" : "them"} are read\n`);
  }

  const src = arraySource(root.steps.filter(inStream));
  const rollups: Rollup[] = [];
  const tiersText = tree.tiers.get(root.dir);
  if (tiersText !== undefined) {
    const parsed = parseTiers(tiersText);
    rollups.push(...parsed.rollups);
    if (parsed.skipped) io.err(`warning: skipped ${plural(parsed.skipped, "line")} of ${root.dir ? `${root.dir}/` : ""}${TIERS_FILE} that ${parsed.skipped === 1 ? "is not a sealed summary" : "are not sealed summaries"}\n`);
  }
  for (const text of tree.headlong.get(root.dir) ?? []) {
    const r = parseHeadlongRollup(text, DEFAULT_TIERS);
    if (r) rollups.push(r);
  }
  const sealed = sealedLookup(rollups, src, DEFAULT_TIERS);
  const { mismatched, headlong, duplicates } = sealed.report;
  if (mismatched) {
    const one = mismatched === 1;
    io.err(`warning: ${plural(mismatched, "sealed summary", "sealed summaries")} ${one ? "does" : "do"} not match the stream and ${one ? "is" : "are"} not used: ${one ? "its" : "their"} first and last steps are not at ${one ? "its block's" : "their blocks'"} ends\n`);
  }
  if (headlong) io.err(`note: ${plural(headlong, "Headlong rollup")} (rollups/) not used: Headlong counts its own filtered steps, not this stream\n`);
  if (duplicates) io.err(`warning: ${plural(duplicates, "sealed summary", "sealed summaries")} of a block that already had one ${duplicates === 1 ? "is" : "are"} not used (the first one sealed it)\n`);

  const counter = new TokenCounter();
  const built = buildContext(src, {
    selfName: tree.mindName ?? root.name ?? "",
    budget: args.budget ?? DEFAULT_BUDGET,
    tiers: DEFAULT_TIERS,
    summary: sealed.summary,
    missing: sealed.missing,
    counter,
  });
  if (args.json) {
    io.out(`${JSON.stringify({ messages: built.messages, tokens: built.tokens, parts: built.parts })}\n`);
    return 0;
  }
  for (const m of built.messages) io.out(`--- ${m.role} (${plural(counter.count(m.content), "token")}) ---\n${m.content}\n`);
  io.out(`\n${src.length ? partsLine(built) : `no steps in the stream; ${thousands(built.tokens)} tokens`}\n`);
  return 0;
}
