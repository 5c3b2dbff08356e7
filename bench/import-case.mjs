/* global setInterval, clearInterval */
// One in-process import for bench/import.bench.mjs, in a process of its own
// so its peak memory is its own: `node bench/import-case.mjs <file>`.
// importArchive reads the file (a file-backed Blob, as a File from the page's
// <input> is) into a sink that only counts. Prints one JSON line: the time,
// the peak RSS (whole process, and above the baseline before the import), and
// what the import found or the error it refused the file with.
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import { openAsBlob } from "node:fs";
import { basename } from "node:path";
import { tsImport } from "tsx/esm/api";

const { importArchive } = await tsImport("../lib/import/importer.ts", import.meta.url);
const file = process.argv[2];
const blob = await openAsBlob(file);
let kept = 0;
const sink = {
  trajectory: async () => {},
  steps: async (_trajId, batch) => void (kept += batch.length),
  mind: async () => {},
};

const baseline = process.memoryUsage().rss;
let sampled = baseline;
const sampler = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage().rss)), 5);
const t0 = performance.now();
let outcome;
try {
  const stats = await importArchive(blob, sink, { name: basename(file) });
  outcome = { steps: stats.steps, kept, skipped: stats.skipped, skippedReasons: stats.skippedReasons };
} catch (e) {
  outcome = { error: `${e.name}: ${e.message}` };
}
const ms = performance.now() - t0;
clearInterval(sampler);
const peak = Math.max(sampled, process.resourceUsage().maxRSS * 1024);
console.log(JSON.stringify({ ms, peakBytes: peak, addedBytes: Math.max(0, Math.max(sampled, process.memoryUsage().rss) - baseline), ...outcome }));
