#!/usr/bin/env node
// Benchmark: the command line as a person runs it, whole processes from start
// to exit: `reverie --help`, and `reverie check` and `reverie context` on a
// generated mind's life (bench/context-life.mjs) of 1k and 10k steps in
// Headlong's layout (trajectory.jsonl, blobs/, and tiers.jsonl beside it with
// a stand-in summary for every complete block, as a mind's export has it),
// read as the trajectory.jsonl and as the folder. With HEADLONG_DIR (a
// Headlong checkout; its scripts run from there) it also runs Headlong's own
// `bin/context` on the same files (bench/context-headlong.mjs says how).
//
// Each figure is min / median / max of RUNS runs after a warm-up. Runs are
// interleaved: in each round every case runs once, each right after a
// `node -e 0`, and Headlong's `bin/context` right after `reverie context` on
// the same life; a ratio is taken pair by pair and its median printed.
// Targets: `reverie --help` within 2× `node -e 0`; `reverie context` on the
// 10k life no slower than Headlong's `bin/context` (ratio ≤ 1). The bundle
// is built first (bin/cli-bundle.mjs) and pinned, so no run pays for it.
// Writes bench/results/cli.json.
//
//   npm run bench -- cli          (RUNS=9 SIZES=1000,10000 HEADLONG_DIR=…)
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tsImport } from "tsx/esm/api";
import { ensureBundle } from "../bin/cli-bundle.mjs";
import { headlongAvailable, headlongContext } from "./context-headlong.mjs";
import { makeLife, makeSummaries, newId, writeHeadlong } from "./context-life.mjs";

const { taskText } = await tsImport("../lib/mind/run/prompt.ts", import.meta.url);
const { inStream } = await tsImport("../lib/context/build.ts", import.meta.url);
const { completeBlocks, blockRange, DEFAULT_TIERS } = await tsImport("../lib/context/staircase.ts", import.meta.url);

const RUNS = Number(process.env.RUNS ?? 9);
const SIZES = (process.env.SIZES ?? "1000,10000").split(",").map(Number);
const HEADLONG_DIR = process.env.HEADLONG_DIR;
const BIN = new URL("../bin/reverie.mjs", import.meta.url).pathname;
/** --help within this many `node -e 0`; context at 10k within this many Headlong `bin/context`s. */
const TARGETS = { help_to_node: 2, context_10k_to_headlong: 1 };
const log = (...a) => console.log(...a);

const bundle = await ensureBundle({ onBuild: () => log("building the CLI bundle first…") });
// Every run uses that bundle as it is: an edit to the sources meanwhile must not make a timed run rebuild.
const env = { ...process.env, REVERIE_CLI_BUNDLE: bundle.href };

/** tiers.jsonl for a stream: one stand-in summary per complete block, finest tier first, as the mind's export writes it. */
function tiersJsonl(stream) {
  const summaries = makeSummaries();
  const ids = (a, b) => stream.slice(a, b).map((s) => s.step_id);
  const blocks = completeBlocks(stream.length, DEFAULT_TIERS).sort((a, b) => a.tier - b.tier || a.index - b.index);
  const lines = [];
  for (const b of blocks) {
    summaries.seal(b, ids, DEFAULT_TIERS.fanout);
    const { from, to } = blockRange(b, DEFAULT_TIERS);
    const s = summaries.get(b);
    lines.push(JSON.stringify({ tier: b.tier, index: b.index, content: s.content, cites: s.cites, first_step: stream[from].step_id, last_step: stream[to - 1].step_id, steps: to - from }));
  }
  return { text: lines.map((l) => `${l}\n`).join(""), count: lines.length };
}

/** A command run to its end, in ms; it must exit 0. */
function wall(cmd, args, cmdEnv = env) {
  const t = performance.now();
  const r = spawnSync(cmd, args, { stdio: "ignore", env: cmdEnv });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: exit ${r.status}`);
  return performance.now() - t;
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const r = (v) => Math.round(v * 100) / 100;
  return { min: r(s[0]), median: r(s[Math.floor(s.length / 2)]), max: r(s[s.length - 1]), runs: s.length };
};

const root = mkdtempSync(join(tmpdir(), "reverie-cli-bench-"));
const cases = [{ name: "--help", args: ["--help"] }];
const lives = {};
const withHeadlong = headlongAvailable(HEADLONG_DIR);
try {
  const maxSize = Math.max(...SIZES);
  log(`generating a life of ${maxSize.toLocaleString()} steps (seeded; the smaller sizes are its first N steps)…`);
  const whole = makeLife({ steps: maxSize, taskText });
  for (const N of SIZES) {
    const life = { steps: whole.steps.slice(0, N), blobs: whole.blobs };
    const trajId = newId(N);
    const trajs = join(root, `life-${N}`);
    const { dir, file, lines } = writeHeadlong(trajs, life, trajId);
    // The header line is not in the stream, nor are wakes: the tiers count the stream's own positions.
    const stream = life.steps.filter(inStream);
    const tiers = tiersJsonl(stream);
    writeFileSync(join(dir, "tiers.jsonl"), tiers.text);
    lives[N] = { lines, stream: stream.length, tiers: tiers.count, file, dir };
    const k = `${N / 1000}k`;
    // Headlong's bin/context on the same files, run right after `reverie context <file>` in each round.
    const headlong = withHeadlong ? { name: `headlong bin/context ${k}`, ...headlongContext({ headlongDir: HEADLONG_DIR, root: join(root, `headlong-${N}`), trajs, trajId }) } : undefined;
    cases.push(
      { name: `check ${k} file`, args: ["check", file], steps: N },
      { name: `context ${k} file`, args: ["context", file], steps: N, headlong },
      { name: `check ${k} folder`, args: ["check", dir], steps: N },
      { name: `context ${k} folder`, args: ["context", dir], steps: N },
    );
  }

  // Each case must do its job before it is timed: exit 0, check counts every line, context uses the sealed summaries, Headlong's prints its messages.
  for (const c of cases) {
    const r = spawnSync(process.execPath, [BIN, ...c.args, ...(c.args[0] === "check" ? ["--json"] : [])], { encoding: "utf8", env });
    if (r.status !== 0) throw new Error(`${c.name}: exit ${r.status}\n${r.stderr}`);
    if (c.args[0] === "check" && JSON.parse(r.stdout).steps !== lives[c.steps].lines) throw new Error(`${c.name}: ${JSON.parse(r.stdout).steps} steps, expected ${lives[c.steps].lines}`);
    if (c.args[0] === "context" && !/tier \d ×\d/.test(r.stdout)) throw new Error(`${c.name}: no sealed summary used:\n${r.stdout.slice(-400)}\n${r.stderr}`);
    if (c.headlong) {
      const h = spawnSync(c.headlong.cmd, c.headlong.args, { encoding: "utf8", env: c.headlong.env });
      if (h.status !== 0 || !Array.isArray(JSON.parse(h.stdout))) throw new Error(`${c.headlong.name}: exit ${h.status}\n${h.stderr}`);
    }
  }

  const baseline = [];
  for (const c of cases) Object.assign(c, { ms: [], ratios: [], headlongMs: [], headlongRatios: [] });
  // One warm-up round, then RUNS rounds.
  for (let round = -1; round < RUNS; round++) {
    for (const c of cases) {
      const b = wall(process.execPath, ["-e", "0"]);
      const ms = wall(process.execPath, [BIN, ...c.args]);
      const h = c.headlong ? wall(c.headlong.cmd, c.headlong.args, c.headlong.env) : undefined;
      if (round < 0) continue;
      baseline.push(b);
      c.ms.push(ms);
      c.ratios.push(ms / b);
      if (h !== undefined) {
        c.headlongMs.push(h);
        c.headlongRatios.push(ms / h);
      }
    }
  }

  const base = stats(baseline);
  const cell = (v, w) => String(v).padStart(w);
  log(`\nWhole processes, ms (min / median / max of ${RUNS}); ratios: median of the pairs run side by side`);
  log(`${"command".padEnd(30)} ${cell("min", 7)} ${cell("median", 7)} ${cell("max", 7)} ${cell("× node", 7)} ${cell("× Headlong", 11)}`);
  log(`${"node -e 0".padEnd(30)} ${cell(base.min, 7)} ${cell(base.median, 7)} ${cell(base.max, 7)} ${cell("1.00", 7)}`);
  const rows = [];
  for (const c of cases) {
    const s = stats(c.ms);
    const ratio = stats(c.ratios).median;
    const toHeadlong = c.headlongRatios.length ? stats(c.headlongRatios).median : null;
    log(`${`reverie ${c.name}`.padEnd(30)} ${cell(s.min, 7)} ${cell(s.median, 7)} ${cell(s.max, 7)} ${cell(ratio.toFixed(2), 7)} ${cell(toHeadlong === null ? "" : toHeadlong.toFixed(2), 11)}`);
    rows.push({ name: c.name, args: c.args.map((a) => a.replace(root, "$TMP")), ms: s, ratio_to_node: ratio, ratio_to_headlong: toHeadlong });
    if (c.headlongMs.length) {
      const h = stats(c.headlongMs);
      log(`${c.headlong.name.padEnd(30)} ${cell(h.min, 7)} ${cell(h.median, 7)} ${cell(h.max, 7)}`);
      rows.push({ name: c.headlong.name, ms: h, of: c.name });
    }
  }

  const help = rows.find((r) => r.name === "--help");
  const ctx10 = rows.find((r) => r.name === "context 10k file");
  log(`\nreverie --help: ${help.ratio_to_node.toFixed(2)}× node -e 0 (target ≤ ${TARGETS.help_to_node}) ${help.ratio_to_node <= TARGETS.help_to_node ? "✓" : "✗"}`);
  if (!withHeadlong) log(`Headlong's bin/context: not measured (set HEADLONG_DIR to a Headlong checkout${HEADLONG_DIR ? `; ${HEADLONG_DIR} has no bin/context and bin/recap` : ""}).`);
  else if (ctx10?.ratio_to_headlong !== null && ctx10) log(`reverie context, 10k: ${ctx10.ratio_to_headlong.toFixed(2)}× Headlong's bin/context on the same files (target ≤ ${TARGETS.context_10k_to_headlong}) ${ctx10.ratio_to_headlong <= TARGETS.context_10k_to_headlong ? "✓" : "✗"}`);
  for (const N of SIZES) log(`  ${N.toLocaleString()} steps: ${lives[N].lines.toLocaleString()} lines with the header, ${lives[N].stream.toLocaleString()} in the stream, ${lives[N].tiers} sealed summaries in tiers.jsonl`);

  mkdirSync("bench/results", { recursive: true });
  const result = {
    node_e_0_ms: base,
    cases: rows,
    targets: TARGETS,
    help_to_node: help.ratio_to_node,
    context_10k_to_headlong: withHeadlong ? (ctx10?.ratio_to_headlong ?? null) : null,
    headlong: withHeadlong ? "measured: bin/context on the same files, run by run" : "not measured (no HEADLONG_DIR)",
    lives: Object.fromEntries(Object.entries(lives).map(([n, l]) => [n, { lines: l.lines, stream: l.stream, tiers: l.tiers }])),
    runs: RUNS,
    node: process.version,
    when: new Date().toISOString(),
  };
  writeFileSync("bench/results/cli.json", `${JSON.stringify(result, null, 2)}\n`);
  log("\nwrote bench/results/cli.json");
} finally {
  rmSync(root, { recursive: true, force: true });
}
