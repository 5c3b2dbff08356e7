#!/usr/bin/env node
/* global document, window, setInterval, clearInterval */
// Benchmark: our archive codecs (lib/archive) against well-kept libraries
// (modern-tar for tar, @zip.js/zip.js and fflate's own zip for zip), reading
// and writing the same generated Headlong trajectories, in Node and in
// Chromium. Reads go through a file-backed Blob (a File from an <input> in
// Chromium), entry by entry, as an import does. Prints MB/s, steps/s, peak
// memory and the ratio against ours; writes bench/results/trajectory-archives.json.
// Run by the trajectory bench, or alone:
//
//   node bench/trajectory-archives.mjs     (STEPS=100000, REPS=3 runs per row, TREES=200)
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { tsImport } from "tsx/esm/api";

const here = dirname(fileURLToPath(import.meta.url));
const STEPS = Number(process.env.STEPS ?? 100_000);
const REPS = Number(process.env.REPS ?? 3);
const TREES = Number(process.env.TREES ?? 200);
const { CODECS, workload } = await tsImport("./trajectory-archives-codecs.mjs", import.meta.url);

/** The fastest run, with the lowest peak seen; any failed or wrong run makes the row fail. */
function best(runs) {
  const failed = runs.find((r) => r.error);
  if (failed) return failed;
  const fastest = runs.reduce((a, b) => (Math.min(...b.times) < Math.min(...a.times) ? b : a));
  return { ...fastest, times: runs.flatMap((r) => r.times), peakMb: Math.min(...runs.map((r) => r.peakMb)), wrong: runs.some((r) => !same(r, fastest)) };
}
const same = (a, b) => a.entries === b.entries && a.bytes === b.bytes && JSON.stringify(a.paths) === JSON.stringify(b.paths);
const tmp = mkdtempSync(join(tmpdir(), "reverie-archives-"));
const results = { steps: STEPS, reps: REPS, trees: TREES, node: [], chromium: [], when: new Date().toISOString() };

try {
  // The inputs, once: each workload as files (for writers) and as the archives ours writes (for readers).
  const workloads = {};
  for (const kind of ["one", "many", "blobs"]) {
    console.log(`generating "${kind}" (${STEPS.toLocaleString()} steps)…`);
    const w = workload(kind, STEPS, TREES);
    const dir = join(tmp, kind);
    for (const e of w.entries) {
      mkdirSync(dirname(join(dir, "files", e.path)), { recursive: true });
      writeFileSync(join(dir, "files", e.path), e.data);
    }
    const paths = w.entries.map((e) => e.path);
    writeFileSync(join(dir, "manifest.json"), JSON.stringify({ paths, steps: w.steps, bytes: w.bytes }));
    const archives = {};
    for (const format of ["tar.gz", "tar", "zip"]) {
      const ours = CODECS.find((c) => c.format === format && c.name === "ours");
      archives[format] = join(dir, `archive.${format}`);
      writeFileSync(archives[format], new Uint8Array(await (await ours.write(w.entries)).arrayBuffer()));
    }
    workloads[kind] = { dir, paths, steps: w.steps, bytes: w.bytes, entries: w.entries.length, archives };
    results.workloads = { ...results.workloads, [kind]: { entries: w.entries.length, steps: w.steps, mb: Math.round((w.bytes / 1024 / 1024) * 10) / 10 } };
  }

  // Node: one process per run, so each peak is its own. Runs go round the
  // codecs in turn and the best time counts: on a shared machine a burst of
  // load then slows every codec alike instead of whichever ran during it.
  const jobs = Object.entries(workloads).flatMap(([kind, w]) => CODECS.flatMap((codec) => ["read", "write"].map((op) => ({ kind, w, codec, op, runs: [] }))));
  for (let rep = 0; rep < REPS; rep++) {
    for (const job of jobs) {
      const spec = { format: job.codec.format, codec: job.codec.name, op: job.op, dir: job.w.dir, archive: job.w.archives[job.codec.format], reps: 1 };
      const r = spawnSync(process.execPath, ["--expose-gc", join(here, "trajectory-archives-case.mjs"), JSON.stringify(spec)], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
      job.runs.push(r.status === 0 ? JSON.parse(r.stdout.trim().split("\n").at(-1)) : { error: (r.stderr || r.stdout).trim().split("\n").slice(-3).join(" ") });
    }
  }
  for (const job of jobs) results.node.push(row(job.kind, job.w, job.codec, job.op, best(job.runs)));
  print("Node", results.node);

  await inChromium(workloads);
  print("Chromium", results.chromium);
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/trajectory-archives.json", `${JSON.stringify(results, null, 2)}\n`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

/** A row of the table; a codec whose output or reading is wrong is marked, never ranked. */
function row(kind, w, codec, op, out) {
  const base = { workload: kind, format: codec.format, codec: codec.name, op, note: codec.note };
  if (out.error) return { ...base, error: out.error };
  const correct = op === "read" ? out.entries === w.entries && out.bytes === w.bytes : out.bytes === w.bytes && JSON.stringify(out.paths) === JSON.stringify(w.paths);
  if (!correct) return { ...base, error: `wrong result: ${out.entries ?? out.paths?.length} entries, ${out.bytes} bytes (want ${w.entries}, ${w.bytes})` };
  if (out.wrong) return { ...base, error: "runs disagree on what was read or written" };
  const ms = Math.min(...out.times);
  return {
    ...base,
    ms: Math.round(ms),
    mb_per_s: Math.round((w.bytes / 1024 / 1024 / (ms / 1000)) * 10) / 10,
    steps_per_s: Math.round(w.steps / (ms / 1000)),
    peak_mb: out.peakMb === undefined ? null : Math.round(out.peakMb * 10) / 10,
    archive_mb: out.size === undefined ? undefined : Math.round((out.size / 1024 / 1024) * 100) / 100,
  };
}

function print(where, rows) {
  const oursMs = new Map(rows.filter((r) => r.codec === "ours" && r.ms).map((r) => [`${r.workload} ${r.format} ${r.op}`, r.ms]));
  const described = Object.entries(results.workloads).map(([kind, w]) => `"${kind}" = ${w.steps.toLocaleString()} steps, ${w.entries} entries, ${w.mb} MB`);
  console.log(`\n${where}: ${described.join("; ")}. Best of ${REPS} interleaved runs; ratio = our time / theirs (> 1: faster than ours).`);
  console.log(`${"workload".padEnd(9)}${"format".padEnd(8)}${"op".padEnd(7)}${"codec".padEnd(27)}${"MB/s".padStart(8)}${"steps/s".padStart(11)}${"peak MB".padStart(9)}${"out MB".padStart(8)}${"ratio".padStart(8)}`);
  for (const r of rows) {
    const head = `${r.workload.padEnd(9)}${r.format.padEnd(8)}${r.op.padEnd(7)}${r.codec.padEnd(27)}`;
    if (r.error) {
      console.log(`${head}  ✗ ${r.error}`);
      continue;
    }
    const ours = oursMs.get(`${r.workload} ${r.format} ${r.op}`);
    const ratio = ours ? `${(ours / r.ms).toFixed(2)}×` : "";
    console.log(`${head}${String(r.mb_per_s).padStart(8)}${r.steps_per_s.toLocaleString().padStart(11)}${String(r.peak_mb ?? "n/a").padStart(9)}${String(r.archive_mb ?? "").padStart(8)}${ratio.padStart(8)}`);
  }
  const notes = [...new Set(rows.filter((r) => r.note).map((r) => `  ${r.codec} (${r.format}): ${r.note}`))];
  if (notes.length) console.log(notes.join("\n"));
  console.log(`  peak MB: ${where === "Node" ? "process RSS above its baseline (inputs loaded)" : "JS heap above its baseline, sampled (Blob storage not included)"}.`);
}

async function inChromium(workloads) {
  const bundle = await build({
    stdin: { contents: 'import * as bench from "./trajectory-archives-codecs.mjs"; window.__bench = bench;', resolveDir: here, loader: "js" },
    bundle: true,
    format: "iife",
    platform: "browser",
    write: false,
    logLevel: "error",
  });
  const script = bundle.outputFiles[0].text;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--enable-precise-memory-info", "--js-flags=--expose-gc"],
  });
  try {
    const jobs = Object.entries(workloads).flatMap(([kind, w]) => CODECS.flatMap((codec) => ["read", "write"].map((op) => ({ kind, w, codec, op, runs: [] }))));
    for (let rep = 0; rep < REPS; rep++) {
      for (const job of jobs) job.runs.push(await inPage(browser, script, job));
    }
    for (const job of jobs) results.chromium.push(row(job.kind, job.w, job.codec, job.op, best(job.runs)));
  } finally {
    await browser.close();
  }
}

/** One run in a fresh page: no heap or JIT state carried over from another codec. */
async function inPage(browser, script, { kind, w, codec, op }) {
  const page = await browser.newPage();
  try {
    await page.setContent('<input type="file" id="archive">');
    await page.addScriptTag({ content: script });
    if (op === "read") await page.locator("#archive").setInputFiles(w.archives[codec.format]);
    return await page
      .evaluate(
        async ({ format, name, op, kind, steps, trees }) => {
          const { CODECS, readBack, workload } = window.__bench;
          const codec = CODECS.find((c) => c.format === format && c.name === name);
          const file = document.querySelector("#archive").files[0];
          const entries = op === "write" ? workload(kind, steps, trees).entries : undefined;
          window.gc();
          const heap = () => window.performance.memory.usedJSHeapSize;
          const baseline = heap();
          let peak = baseline;
          const sampler = setInterval(() => (peak = Math.max(peak, heap())), 5);
          const t0 = performance.now();
          const result = op === "read" ? await codec.read(file) : await codec.write(entries);
          const times = [performance.now() - t0];
          peak = Math.max(peak, heap());
          clearInterval(sampler);
          const peakMb = (peak - baseline) / 1024 / 1024;
          return op === "read" ? { times, peakMb, ...result } : { times, peakMb, size: result.size, ...(await readBack(result)) };
        },
        { format: codec.format, name: codec.name, op, kind, steps: STEPS, trees: TREES },
      )
      .catch((error) => ({ error: String(error.message ?? error).split("\n")[0] }));
  } finally {
    await page.close();
  }
}
