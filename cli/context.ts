// `reverie context <path> [--budget TOKENS] [--json]`: what the mind's model
// is shown of a trajectory, by the same buildContext the mind calls. The past
// comes as sealed summaries where the trajectory has them (tiers.jsonl beside
// its trajectory.jsonl, checked against the stream) and as elisions where it
// does not; the newest steps verbatim. A malformed line, or one that is not a
// valid step, is skipped and counted; the steps after it are read as usual.
// A folder or a trajectory.jsonl on disk is read as cli/context-read.ts says
// (the steps shown checked in full, the others known by their first bytes),
// an archive by cli/context-archive.ts.
import { buildContext, DEFAULT_BUDGET, type BuiltContext } from "../lib/context/build";
import { sealedLookup, TIERS_FILE, type Rollup } from "../lib/context/sealed-lookup";
import { DEFAULT_TIERS } from "../lib/context/staircase";
import { TokenCounter } from "../lib/context/tokens";
import { parentDir, TRAJECTORY_FILE } from "../lib/trajectory/layout";
import type { ContextArgs } from "./context-args";
import { readOnDisk, type ReadTree, type RootStream, type Traj } from "./context-read";
import { Rescan } from "./context-scan";
import { readTiers } from "./context-tiers";
import type { Out } from "./out";

const where = (t: Traj) => `${t.dir ? `${t.dir}/` : ""}${TRAJECTORY_FILE}`;

/** The root trajectory (the first, when there are several), and a note saying which when the file holds more than one. */
function pickRoot(trajectories: readonly Traj[], holder: "file" | "folder"): { root: Traj; at: number; note?: string } | undefined {
  const dirs = new Set(trajectories.map((t) => t.dir));
  const roots = trajectories.filter((t) => !t.parentTraj && parentDir(t.dir, dirs) === undefined);
  const root = roots[0] ?? [...trajectories].sort((a, b) => a.dir.split("/").length - b.dir.split("/").length)[0];
  if (!root) return undefined;
  const at = trajectories.indexOf(root);
  if (trajectories.length === 1) return { root, at };
  const named = `${where(root)}${root.name ? ` (${root.name})` : ""}`;
  if (roots.length > 1) return { root, at, note: `note: the ${holder} holds ${trajectories.length} trajectories, ${roots.length} of them roots; this is the first: ${named}\n` };
  return { root, at, note: `note: the ${holder} holds ${trajectories.length} trajectories; this is the root: ${named}\n` };
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
  const tree = (await readOnDisk(args.path)) ?? (await (await import("./context-archive")).readArchived(args.path));
  const picked = pickRoot(tree.trajectories, tree.holder);
  if (!picked) {
    io.err(`reverie: no trajectory.jsonl in ${args.path}\n`);
    return 1;
  }
  const { root } = picked;
  const rollups: Rollup[] = [];
  const err = picked.note ?? "";
  let tierWarning = "";
  const tiersText = tree.tiers.get(root.dir);
  if (tiersText !== undefined) {
    const parsed = await readTiers(tiersText);
    rollups.push(...parsed.rollups);
    if (parsed.skipped) tierWarning = `warning: skipped ${plural(parsed.skipped, "line")} of ${root.dir ? `${root.dir}/` : ""}${TIERS_FILE} that ${parsed.skipped === 1 ? "is not a sealed summary" : "are not sealed summaries"}\n`;
  }
  const headlongTexts = tree.headlong.get(root.dir) ?? [];
  if (headlongTexts.length) {
    const { parseHeadlongRollup } = await import("../lib/context/rollups");
    for (const text of headlongTexts) {
      const r = parseHeadlongRollup(text, DEFAULT_TIERS);
      if (r) rollups.push(r);
    }
  }
  // The context is worked out, and only then printed: a line read in full may turn out not to be what its first bytes said, and the stream is read again.
  for (;;) {
    const stream = await tree.stream(picked.at);
    try {
      const { err: more, out } = render(args, tree, root, stream, rollups, tierWarning);
      io.err(err + more);
      io.out(out);
      return 0;
    } catch (e) {
      if (!(e instanceof Rescan)) throw e;
      tree.again(e.line);
    }
  }
}

function render(args: ContextArgs, tree: ReadTree, root: Traj, stream: RootStream, rollups: readonly Rollup[], tierWarning: string): { err: string; out: string } {
  let err = "";
  const skipped = Object.values(stream.skipped).reduce((a, b) => a + b, 0);
  if (skipped) {
    const why = Object.entries(stream.skipped).map(([reason, n]) => `${reason}: ${n}`).join(", ");
    err += `warning: skipped ${plural(skipped, "malformed line")} of ${where(root)} (${why}); the steps after ${skipped === 1 ? "it" : "them"} are read\n`;
  }
  err += tierWarning;
  const src = stream.source;
  const sealed = sealedLookup(rollups, src, DEFAULT_TIERS);
  const { mismatched, headlong, duplicates } = sealed.report;
  if (mismatched) {
    const one = mismatched === 1;
    err += `warning: ${plural(mismatched, "sealed summary", "sealed summaries")} ${one ? "does" : "do"} not match the stream and ${one ? "is" : "are"} not used: ${one ? "its" : "their"} first and last steps are not at ${one ? "its block's" : "their blocks'"} ends\n`;
  }
  if (headlong) err += `note: ${plural(headlong, "Headlong rollup")} (rollups/) not used: Headlong counts its own filtered steps, not this stream\n`;
  if (duplicates) err += `warning: ${plural(duplicates, "sealed summary", "sealed summaries")} of a block that already had one ${duplicates === 1 ? "is" : "are"} not used (the first one sealed it)\n`;

  const counter = new TokenCounter();
  const built = buildContext(src, {
    selfName: tree.mindName ?? stream.name ?? root.name ?? "",
    budget: args.budget ?? DEFAULT_BUDGET,
    tiers: DEFAULT_TIERS,
    summary: sealed.summary,
    missing: sealed.missing,
    counter,
  });
  if (args.json) return { err, out: `${JSON.stringify({ messages: built.messages, tokens: built.tokens, parts: built.parts })}\n` };
  let out = "";
  for (const m of built.messages) out += `--- ${m.role} (${plural(counter.count(m.content), "token")}) ---\n${m.content}\n`;
  out += `\n${src.length ? partsLine(built) : `no steps in the stream; ${thousands(built.tokens)} tokens`}\n`;
  return { err, out };
}
