/* global setInterval, clearInterval */
// One row of the archive comparison, in a process of its own so its peak
// memory is its own: `node --expose-gc bench/trajectory-archives-case.mjs '<json>'`
// with { format, codec, op: "read"|"write", dir, archive, reps }. Prints one
// JSON line: the times of each repetition, peak RSS above the baseline, and
// what was read or written (for the parent to check).
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import { openAsBlob, readFileSync } from "node:fs";
import { join } from "node:path";
import { tsImport } from "tsx/esm/api";

const { CODECS, readBack } = await tsImport("./trajectory-archives-codecs.mjs", import.meta.url);
const job = JSON.parse(process.argv[2]);
const codec = CODECS.find((c) => c.format === job.format && c.name === job.codec);
if (!codec) throw new Error(`no codec ${job.format} ${job.codec}`);

// A file-backed Blob, as a File from an <input> is: reading it does not hold the whole archive.
const blob = job.op === "read" ? await openAsBlob(job.archive) : undefined;
const manifest = JSON.parse(readFileSync(join(job.dir, "manifest.json"), "utf8"));
const entries = job.op === "write" ? manifest.paths.map((path) => ({ path, data: readFileSync(join(job.dir, "files", path)) })) : undefined;

globalThis.gc();
const baseline = process.memoryUsage().rss;
// The lifetime peak counts only if the run itself raised it; else what sampling saw while the run yielded.
const maxBefore = process.resourceUsage().maxRSS * 1024;
let sampled = baseline;
const sampler = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage().rss)), 5);
const times = [];
let result;
for (let i = 0; i < job.reps; i++) {
  globalThis.gc();
  const t0 = performance.now();
  result = job.op === "read" ? await codec.read(blob) : await codec.write(entries);
  times.push(performance.now() - t0);
}
clearInterval(sampler);
const maxAfter = process.resourceUsage().maxRSS * 1024;
const peak = (maxAfter > maxBefore ? maxAfter : Math.max(sampled, process.memoryUsage().rss)) - baseline;
const out = job.op === "read" ? { ...result } : { size: result.size, ...(await readBack(result)) };
console.log(JSON.stringify({ times, peakMb: Math.max(0, peak) / 1024 / 1024, ...out }));
