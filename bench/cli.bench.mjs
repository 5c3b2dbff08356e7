#!/usr/bin/env node
// Benchmark: the command line as a person runs it, whole processes from start
// to exit: `reverie --help`, and `reverie check` and `reverie context` on a
// generated mind's life (bench/context-life.mjs) of 1k and 10k steps in
// Headlong's layout (trajectory.jsonl, blobs/, and tiers.jsonl beside it with
// a stand-in summary for every complete block, as a mind's export has it),
// read as the trajectory.jsonl and as the folder. Each figure is min / median
// / max of RUNS runs after a warm-up, and its ratio to `node -e 0` (the
// runs interleaved, the ratio taken run by run). Targets: --help under
// 300 ms; context at 10k under Headlong's `recap --context` (0.45 s cold at
// 10k in the issue; its `context` answers in about 0.1 s). The bundle is
// built first (bin/cli-bundle.mjs) and pinned, so no run pays for it. Writes
// bench/results/cli.json.
//
//   npm run bench -- cli          (RUNS=9 SIZES=1000,10000)
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tsImport } from "tsx/esm/api";
import { ensureBundle } from "../bin/cli-bundle.mjs";
import { makeLife, makeSummaries, newId, writeHeadlong } from "./context-life.mjs";

const { taskText } = await tsImport("../lib/mind/run/prompt.ts", import.meta.url);
const { inStream } = await tsImport("../lib/context/build.ts", import.meta.url);
const { completeBlocks, blockRange, DEFAULT_TIERS } = await tsImport("../lib/context/staircase.ts", import.meta.url);

const RUNS = Number(process.env.RUNS ?? 9);
const SIZES = (process.env.SIZES ?? "1000,10000").split(",").map(Number);
const BIN = new URL("../bin/reverie.mjs", import.meta.url).pathname;
const TARGETS = { help_ms: 300, context_10k_ms: 450 };
// The issue's figures for Headlong at 10k steps (not measured here).
const HEADLONG = { context_ms: 100, recap_context_cold_ms: 450 };
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

const root = mkdtempSync(join(tmpdir(), "reverie-cli-bench-"));
const cases = [{ name: "--help", args: ["--help"], target: TARGETS.help_ms }];
const lives = {};
try {
  const maxSize = Math.max(...SIZES);
  log(`generating a life of ${maxSize.toLocaleString()} steps (seeded; the smaller sizes are its first N steps)…`);
  const whole = makeLife({ steps: maxSize, taskText });
  for (const N of SIZES) {
    const life = { steps: whole.steps.slice(0, N), blobs: whole.blobs };
    const trajId = newId(N);
    const { dir, file, lines } = writeHeadlong(join(root, `life-${N}`), life, trajId);
    // The header line is not in the stream, nor are wakes: the tiers count the stream's own positions.
    const stream = life.steps.filter(inStream);
    const tiers = tiersJsonl(stream);
    writeFileSync(join(dir, "tiers.jsonl"), tiers.text);
    lives[N] = { lines, stream: stream.length, tiers: tiers.count, file, dir };
    const k = `${N / 1000}k`;
    cases.push(
      { name: `check ${k} file`, args: ["check", file], steps: N },
      { name: `context ${k} file`, args: ["context", file], steps: N, target: N === 10000 ? TARGETS.context_10k_ms : undefined },
      { name: `check ${k} folder`, args: ["check", dir], steps: N },
      { name: `context ${k} folder`, args: ["context", dir], steps: N },
    );
  }

  // Each case must do its job before it is timed: exit 0, and check counts every line.
  for (const c of cases) {
    const r = spawnSync(process.execPath, [BIN, ...c.args, ...(c.args[0] === "check" ? ["--json"] : [])], { encoding: "utf8", env });
    if (r.status !== 0) throw new Error(`${c.name}: exit ${r.status}\n${r.stderr}`);
    if (c.args[0] === "check") {
      const steps = JSON.parse(r.stdout).steps;
      if (steps !== lives[c.steps].lines) throw new Error(`${c.name}: ${steps} steps, expected ${lives[c.steps].lines}`);
    }
    if (c.args[0] === "context" && !/tier \d ×\d/.test(r.stdout)) throw new Error(`${c.name}: no sealed summary used:\n${r.stdout.slice(-400)}\n${r.stderr}`);
  }

  const wall = (args) => {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, { stdio: "ignore", env });
    if (r.status !== 0) throw new Error(`${args.join(" ")}: exit ${r.status}`);
    return performance.now() - t;
  };
  const baseline = [];
  for (const c of cases) c.ms = [];
  // One warm-up round, then RUNS rounds; in each, `node -e 0` before every case, so the ratio pairs runs made side by side.
  for (let round = -1; round < RUNS; round++) {
    for (const c of cases) {
      const b = wall(["-e", "0"]);
      const ms = wall([BIN, ...c.args]);
      if (round < 0) continue;
      baseline.push(b);
      c.ms.push(ms);
      (c.ratios ??= []).push(ms / b);
    }
  }

  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const r = (v) => Math.round(v * 10) / 10;
    return { min: r(s[0]), median: r(s[Math.floor(s.length / 2)]), max: r(s[s.length - 1]), runs: s.length };
  };
  const base = stats(baseline);
  const cell = (v, w) => String(v).padStart(w);
  log(`\nWhole processes, ms (min / median / max of ${RUNS}); ratio: to \`node -e 0\` run beside it, median of the pairs`);
  log(`${"command".padEnd(27)} ${cell("min", 7)} ${cell("median", 7)} ${cell("max", 7)} ${cell("× node", 7)} ${cell("target", 10)}`);
  log(`${"node -e 0".padEnd(27)} ${cell(base.min, 7)} ${cell(base.median, 7)} ${cell(base.max, 7)} ${cell("1.00", 7)} ${cell("", 10)}`);
  const rows = cases.map((c) => {
    const s = stats(c.ms);
    const ratio = stats(c.ratios).median;
    const verdict = c.target ? `${c.target} ${s.median <= c.target ? "✓" : "✗"}` : "";
    log(`${`reverie ${c.name}`.padEnd(27)} ${cell(s.min, 7)} ${cell(s.median, 7)} ${cell(s.max, 7)} ${cell(ratio.toFixed(2), 7)} ${cell(verdict, 10)}`);
    return { name: c.name, args: c.args.map((a) => a.replace(root, "$TMP")), ms: s, ratio_to_node: ratio, target_ms: c.target ?? null };
  });
  const ctx10 = rows.find((r) => r.name === "context 10k file");
  log(`\nHeadlong at 10k steps (the issue's figures, not measured here): \`context\` about ${HEADLONG.context_ms} ms, \`recap --context\` cold about ${HEADLONG.recap_context_cold_ms} ms.`);
  if (ctx10) log(`reverie context at 10k: ${ctx10.ms.median} ms, ${(ctx10.ms.median / HEADLONG.recap_context_cold_ms).toFixed(2)}× recap --context cold, ${(ctx10.ms.median / HEADLONG.context_ms).toFixed(2)}× Headlong's context.`);
  for (const N of SIZES) log(`  ${N.toLocaleString()} steps: ${lives[N].lines.toLocaleString()} lines with the header, ${lives[N].stream.toLocaleString()} in the stream, ${lives[N].tiers} sealed summaries in tiers.jsonl`);

  mkdirSync("bench/results", { recursive: true });
  const result = { node_e_0_ms: base, cases: rows, targets: TARGETS, headlong_reference_ms: HEADLONG, lives: Object.fromEntries(Object.entries(lives).map(([n, l]) => [n, { lines: l.lines, stream: l.stream, tiers: l.tiers }])), runs: RUNS, node: process.version, when: new Date().toISOString() };
  writeFileSync("bench/results/cli.json", `${JSON.stringify(result, null, 2)}\n`);
  log("\nwrote bench/results/cli.json");
} finally {
  rmSync(root, { recursive: true, force: true });
}
