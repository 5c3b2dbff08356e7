#!/usr/bin/env node
// Benchmark: hostile files (issue 21, part 4). A .tar.gz whose
// trajectory.jsonl holds one line of 20 MB among valid ones (before the fix:
// 58 s and 560 MB to skip it), the same with a 1 GB line (still running after
// 5 minutes), that 1 GB line in a plain trajectory.jsonl (1 GB on disk, no
// compression to refuse), and decompression bombs of valid lines: a small
// .zip and a small .tar.gz that inflate to 3.7 GiB (before: 808 MiB held
// after 30 s). Each is read by `reverie check` as a person runs it (a whole
// process: time to exit and peak RSS), and by importArchive in a process of
// its own (bench/import-case.mjs). Targets: under 2 s and 256 MiB each.
// Figures are the median of RUNS runs (peak memory: the largest). The inputs
// are generated into a temporary folder, written as they are made. Writes
// bench/results/import.json.
//
//   npm run bench -- import          (RUNS=3)
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBundle } from "../bin/cli-bundle.mjs";
import { MiB, writeBombTarGz, writeBombZip, writeLongLineJsonl, writeLongLineTarGz } from "./import-files.mjs";

const RUNS = Number(process.env.RUNS ?? 3);
const TARGET = { ms: 2000, peak_mib: 256 };
const BIN = new URL("../bin/reverie.mjs", import.meta.url).pathname;
const PEAK_RSS = new URL("./peak-rss.mjs", import.meta.url).href;
const CASE = new URL("./import-case.mjs", import.meta.url).pathname;
const log = (...a) => console.log(...a);

const bundle = await ensureBundle({ onBuild: () => log("building the CLI bundle first…") });
const env = { ...process.env, REVERIE_CLI_BUNDLE: bundle.href };
const root = mkdtempSync(join(tmpdir(), "reverie-import-bench-"));
const mib = (bytes) => bytes / MiB;
const round = (x) => Math.round(x * 10) / 10;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `reverie check --json <file>`: wall time, peak RSS, exit code and what it said. */
function cli(file) {
  const rssFile = join(root, "rss");
  const t = performance.now();
  const r = spawnSync(process.execPath, ["--import", PEAK_RSS, BIN, "check", file, "--json"], { encoding: "utf8", env: { ...env, REVERIE_BENCH_RSS_FILE: rssFile } });
  const ms = performance.now() - t;
  const said = r.status === 0 ? JSON.parse(r.stdout) : null;
  return { ms, peakBytes: Number(readFileSync(rssFile, "utf8")), code: r.status, said, stderr: r.stderr.trim() };
}

/** importArchive in a process of its own. */
function inProcess(file) {
  const r = spawnSync(process.execPath, [CASE, file], { encoding: "utf8", env });
  if (r.status !== 0) throw new Error(`import-case ${file}: exit ${r.status}\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

try {
  log(`writing the files into ${root}…`);
  const cases = [
    { name: "20 MB line, .tar.gz", file: join(root, "line-20mb.tar.gz"), ...writeLongLineTarGz(join(root, "line-20mb.tar.gz"), 20 * 1000 * 1000), expect: "read" },
    { name: "1 GB line, .tar.gz", file: join(root, "line-1gb.tar.gz"), ...writeLongLineTarGz(join(root, "line-1gb.tar.gz"), 1000 * 1000 * 1000), expect: "refused" },
    { name: "1 GB line, .jsonl", file: join(root, "line-1gb.jsonl"), ...writeLongLineJsonl(join(root, "line-1gb.jsonl"), 1000 * 1000 * 1000), expect: "read" },
    { name: "bomb, .zip", file: join(root, "bomb.zip"), ...writeBombZip(join(root, "bomb.zip"), 3790), expect: "refused" },
    { name: "bomb, .tar.gz", file: join(root, "bomb.tar.gz"), ...writeBombTarGz(join(root, "bomb.tar.gz"), 3790), expect: "refused" },
  ];

  const rows = [];
  for (const c of cases) {
    const runs = { cli: [], lib: [] };
    for (let i = 0; i < RUNS; i++) {
      runs.cli.push(cli(c.file));
      runs.lib.push(inProcess(c.file));
    }
    const first = runs.cli[0];
    // Each case must do what it is for before its figures count: the valid lines kept and the long one skipped, or a refusal with exit 1.
    const outcome = first.code === 0 ? `kept ${first.said.steps}, skipped ${first.said.skipped}` : `refused: ${first.stderr.replace(/^reverie: /, "").slice(0, 90)}…`;
    if (c.expect === "read" && (first.code !== 0 || first.said.steps !== c.valid || first.said.skipped !== 1)) throw new Error(`${c.name}: expected ${c.valid} steps and 1 skipped, got ${outcome}`);
    if (c.expect === "refused" && (first.code !== 1 || !/decompression bomb/.test(first.stderr))) throw new Error(`${c.name}: expected a refusal, got ${outcome}`);
    if (runs.lib.some((r) => (c.expect === "read" ? r.kept !== c.valid : !r.error?.startsWith("ArchiveError")))) throw new Error(`${c.name}: importArchive disagrees: ${JSON.stringify(runs.lib[0])}`);
    rows.push({
      name: c.name,
      file_mib: round(mib(c.size)),
      inflates_to_mib: round(mib(c.inflated)),
      outcome,
      cli: { ms: Math.round(median(runs.cli.map((r) => r.ms))), peak_mib: round(mib(Math.max(...runs.cli.map((r) => r.peakBytes)))) },
      import: { ms: Math.round(median(runs.lib.map((r) => r.ms))), peak_mib: round(mib(Math.max(...runs.lib.map((r) => r.peakBytes)))), added_mib: round(mib(Math.max(...runs.lib.map((r) => r.addedBytes)))) },
    });
  }

  const cell = (v, w) => String(v).padStart(w);
  const verdict = (ms, peak) => (ms <= TARGET.ms && peak <= TARGET.peak_mib ? "✓" : "✗");
  log(`\nHostile files: median of ${RUNS} runs (peak RSS: the largest); targets ${TARGET.ms} ms and ${TARGET.peak_mib} MiB each`);
  log(`${"case".padEnd(22)} ${cell("file", 9)} ${cell("inflates", 10)}   ${"reverie check: ms × target, MiB × target".padEnd(42)} ${"importArchive: ms, MiB (added)".padEnd(32)}`);
  for (const r of rows) {
    const c = `${cell(r.cli.ms, 6)} ${cell((r.cli.ms / TARGET.ms).toFixed(2), 5)}×  ${cell(r.cli.peak_mib, 6)} ${cell((r.cli.peak_mib / TARGET.peak_mib).toFixed(2), 5)}× ${verdict(r.cli.ms, r.cli.peak_mib)}`;
    const l = `${cell(r.import.ms, 6)} ${cell(r.import.peak_mib, 6)} (${r.import.added_mib}) ${verdict(r.import.ms, r.import.peak_mib)}`;
    log(`${r.name.padEnd(22)} ${cell(`${r.file_mib} MiB`, 9)} ${cell(`${r.inflates_to_mib} MiB`, 10)}   ${c.padEnd(42)} ${l}`);
  }
  log("");
  for (const r of rows) log(`  ${r.name}: ${r.outcome}`);

  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/import.json", `${JSON.stringify({ cases: rows, targets: TARGET, runs: RUNS, node: process.version, when: new Date().toISOString() }, null, 2)}\n`);
  log("\nwrote bench/results/import.json");
} finally {
  rmSync(root, { recursive: true, force: true });
}
