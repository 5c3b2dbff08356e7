#!/usr/bin/env node
/* global AbortController */
// Benchmark: what one block costs in the built-in sandbox. Two scripts, each
// run three ways: through justBashSandbox's session.exec (the whole path a
// mind's block takes: watchdog, limits, flush of an unchanged workspace), a
// bare just-bash `Bash.exec`, and real bash in a child process as the
// reference. Prints median and p90 per exec, the ratio sandbox/real, whether
// the pipeline's output agrees with real bash, and writes
// bench/results/sandbox.json.
//
//   npm run bench -- sandbox            (RUNS=200 trivial execs, PIPELINE_RUNS=20)
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Bash, InMemoryFs } from "just-bash";
import { tsImport } from "tsx/esm/api";

const { justBashSandbox } = await tsImport("../lib/shell/just-bash-sandbox.ts", import.meta.url);
const { openPersistentFs } = await tsImport("../lib/shell/persistent-fs.ts", import.meta.url);
const { DEFAULT_PERMISSIONS } = await tsImport("../lib/trajectory/permissions.ts", import.meta.url);

const RUNS = Number(process.env.RUNS ?? 200);
const PIPELINE_RUNS = Number(process.env.PIPELINE_RUNS ?? 20);
const TRIVIAL = "true";
const PIPELINE = "grep -E 'a|e' big.txt | sort | uniq -c | sort -rn | head -5";

/** ~1 MiB of pseudo-random words, one a line, skewed so a few are common (the top five are well apart). */
function words(bytes) {
  let seed = 42;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "so", "vi", "de", "pu", "xo", "be"];
  const vocab = Array.from({ length: 2000 }, () => Array.from({ length: 1 + Math.floor(next() * 3) }, () => syllables[Math.floor(next() * syllables.length)]).join(""));
  const lines = [];
  let size = 0;
  while (size < bytes) {
    const w = vocab[Math.floor(vocab.length * next() ** 3)];
    lines.push(w);
    size += w.length + 1;
  }
  return { text: `${lines.join("\n")}\n`, lines: lines.length };
}

async function time(runs, fn, warmup = 10) {
  for (let i = 0; i < warmup; i++) await fn();
  const ms = [];
  let out;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    out = await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const at = (q) => Math.round(ms[Math.min(ms.length - 1, Math.floor(ms.length * q))] * 1000) / 1000;
  return { median: at(0.5), p90: at(0.9), runs, out };
}

// The sandbox, as lib/home/workspace.ts opens it, over a workspace whose store never changes.
const store = { loadAll: async () => [], save: async () => undefined };
const { fs, flush } = await openPersistentFs(store, { maxBytes: DEFAULT_PERMISSIONS.limits.max_workspace_bytes });
const noModel = { run: async () => ({ ok: false, error: "no model in the benchmark" }) };
const scope = {
  traj: { tail: async () => [], count: async () => 0, find: async () => [], search: async () => [], blob: async () => undefined },
  chat: { selfName: "bench", send: async () => { throw new Error("no chat in the benchmark"); } },
  shellm: noModel,
  depth: 0,
};
const ids = { uuid: () => randomUUID() };
const session = justBashSandbox({ fs, flush, permissions: DEFAULT_PERMISSIONS, ids, clock: { now: () => Date.now() } }).open(scope);
const signal = new AbortController().signal;
const viaSandbox = (code) => async () => {
  const r = await session.exec(code, { env: {}, cwd: "/workspace", signal });
  if (r.exit !== 0) throw new Error(`sandbox: ${code} exited ${r.exit}: ${r.stderr}`);
  return r.stdout;
};

const bareFs = new InMemoryFs();
await bareFs.mkdir("/workspace", { recursive: true });
const bare = new Bash({ fs: bareFs, cwd: "/workspace" });
const viaBare = (code) => async () => (await bare.exec(code)).stdout;

const dir = mkdtempSync(join(tmpdir(), "reverie-bench-sandbox-"));
// C collation: just-bash sorts by code point, as real bash does in the C locale.
// The whole environment is passed on: some trimmed ones make bash start 50x slower here.
const realEnv = { ...process.env, LC_ALL: "C" };
const viaReal = (code) => async () => {
  const r = spawnSync("bash", ["-c", code], { cwd: dir, env: realEnv, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`bash: ${code} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
};

try {
  const data = words(1024 * 1024);
  await fs.writeFile("/workspace/big.txt", data.text);
  await flush();
  await bareFs.writeFile("/workspace/big.txt", data.text);
  writeFileSync(join(dir, "big.txt"), data.text);

  console.log(`${RUNS} execs of \`${TRIVIAL}\`, ${PIPELINE_RUNS} of the pipeline over ${(data.text.length / 1024 / 1024).toFixed(2)} MiB (${data.lines.toLocaleString()} lines), after 10 and 3 warm-up execs…`);
  const trivial = { sandbox: await time(RUNS, viaSandbox(TRIVIAL)), bare: await time(RUNS, viaBare(TRIVIAL)), real: await time(RUNS, viaReal(TRIVIAL)) };
  const pipeline = { sandbox: await time(PIPELINE_RUNS, viaSandbox(PIPELINE), 3), bare: await time(PIPELINE_RUNS, viaBare(PIPELINE), 3), real: await time(PIPELINE_RUNS, viaReal(PIPELINE), 3) };
  const match = pipeline.sandbox.out === pipeline.real.out && pipeline.bare.out === pipeline.real.out;
  // GNU `uniq -c` right-aligns its counts in 7 columns; just-bash does not. Same counts and order is still agreement.
  const squeeze = (s) => s.replace(/^ +/gm, "");
  const sameCounts = squeeze(pipeline.sandbox.out) === squeeze(pipeline.real.out) && squeeze(pipeline.bare.out) === squeeze(pipeline.real.out);
  const ratio = (a, b) => Math.round((a / b) * 100) / 100;

  const rows = [
    ["`true`, median", trivial, "median"],
    ["`true`, p90", trivial, "p90"],
    ["pipeline 1 MiB, median", pipeline, "median"],
    ["pipeline 1 MiB, p90", pipeline, "p90"],
  ];
  const cell = (v, w) => String(v).padStart(w);
  console.log(`\n${"figure (ms per exec)".padEnd(24)} ${cell("sandbox", 10)} ${cell("bare jb", 10)} ${cell("real bash", 10)} ${cell("sandbox/real", 13)}`);
  for (const [name, m, q] of rows) console.log(`${name.padEnd(24)} ${cell(m.sandbox[q], 10)} ${cell(m.bare[q], 10)} ${cell(m.real[q], 10)} ${cell(`${ratio(m.sandbox[q], m.real[q]).toFixed(2)}×`, 13)}`);
  console.log(`\npipeline output agrees with real bash: ${match ? "yes, byte for byte" : sameCounts ? "same counts and order; only uniq -c's padding differs" : "NO"}`);
  console.log(`real bash:\n${pipeline.real.out}just-bash (sandbox and bare ${pipeline.sandbox.out === pipeline.bare.out ? "alike" : "DIFFER"}):\n${pipeline.sandbox.out}`);

  const strip = (m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, { median: v.median, p90: v.p90, runs: v.runs }]));
  const result = {
    trivial: { script: TRIVIAL, ...strip(trivial) },
    pipeline: { script: PIPELINE, bytes: data.text.length, lines: data.lines, ...strip(pipeline), outputs_match: match, counts_match: sameCounts, output: { real: pipeline.real.out, sandbox: pipeline.sandbox.out } },
    ratios_sandbox_to_real: {
      trivial_median: ratio(trivial.sandbox.median, trivial.real.median),
      trivial_p90: ratio(trivial.sandbox.p90, trivial.real.p90),
      pipeline_median: ratio(pipeline.sandbox.median, pipeline.real.median),
      pipeline_p90: ratio(pipeline.sandbox.p90, pipeline.real.p90),
    },
    node: process.version,
    bash: spawnSync("bash", ["-c", "echo $BASH_VERSION"], { encoding: "utf8" }).stdout.trim(),
    when: new Date().toISOString(),
  };
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/sandbox.json", `${JSON.stringify(result, null, 2)}\n`);
  if (!sameCounts) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
