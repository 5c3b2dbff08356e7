#!/usr/bin/env node
// bench/mind against another commit, back to back: the same bench (this
// checkout's scripts, copied into the other tree), each build in turn, the
// order swapped every round so neither side always runs on the warmer or the
// quieter machine. Prints the medians between model calls at STEPS (10,000)
// for both, per page and shape of answer, above each run's floor, and loads.
//
//   node bench/mind-vs.mjs <commit> [rounds]     (default 1 round: before, after)
//   VS_DIR=/tmp/before node bench/mind-vs.mjs <commit>   (where the other tree goes; default /tmp/reverie-mind-vs-<commit>)
//   REVERIE_BENCH_REUSE_BUILD=1 …                (keep both builds if they exist)
// Any of bench/mind's settings (STEPS, MEASURE, CHUNK, …) pass through. Run it
// when the machine is quiet: the figures are only comparable under like loads.
// Each run's output and mind.json go to bench/results/mind-vs/.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const [commit, roundsArg] = process.argv.slice(2);
if (!commit) {
  console.error("usage: node bench/mind-vs.mjs <commit> [rounds]");
  process.exit(2);
}
const rounds = Number(roundsArg ?? 1);
const here = process.cwd();
const sh = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: "inherit", ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status})`);
};
const rev = spawnSync("git", ["rev-parse", "--short", commit], { encoding: "utf8" }).stdout.trim();
if (!rev) throw new Error(`no such commit: ${commit}`);
const other = resolve(process.env.VS_DIR ?? `/tmp/reverie-mind-vs-${rev}`);
if (!existsSync(other)) sh("git", ["worktree", "add", "--detach", other, commit]);
// Turbopack will not build through a symlinked node_modules: hard links of this one (same file system), else npm ci.
if (!existsSync(join(other, "node_modules"))) {
  if (spawnSync("cp", ["-al", join(here, "node_modules"), join(other, "node_modules")]).status !== 0) sh("npm", ["ci"], { cwd: other });
}
const SCRIPTS = ["mind.bench.mjs", "mind-model.mjs", "mind-model.d.mts", "fetch-floor.mjs", "detached-chromium.mjs", "mind-trajectory.mjs", "mind-profile.mjs", "mind-cdp.mjs", "proc-cpu.mjs", "app-server.mjs"];
for (const f of SCRIPTS) copyFileSync(join(here, "bench", f), join(other, "bench", f));

const reuse = process.env.REVERIE_BENCH_REUSE_BUILD === "1";
for (const dir of [other, here]) {
  if (!(reuse && existsSync(join(dir, ".next/BUILD_ID")))) {
    console.log(`building ${dir}…`);
    sh(process.execPath, ["node_modules/next/dist/bin/next", "build"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  }
}

const out = join(here, "bench/results/mind-vs");
mkdirSync(out, { recursive: true });
const runs = [];
for (let r = 1; r <= rounds; r++) {
  const order = r % 2 ? [["before", other], ["after", here]] : [["after", here], ["before", other]];
  for (const [side, dir] of order) {
    console.log(`round ${r}: ${side} (${dir})…`);
    const res = spawnSync(process.execPath, ["bench/mind.bench.mjs"], { cwd: dir, encoding: "utf8", env: { ...process.env, REVERIE_BENCH_REUSE_BUILD: "1" }, maxBuffer: 64 << 20 });
    writeFileSync(join(out, `${side}-${r}.txt`), res.stdout + res.stderr);
    if (!existsSync(join(dir, "bench/results/mind.json"))) throw new Error(`${side} wrote no bench/results/mind.json (see ${out}/${side}-${r}.txt)`);
    const json = JSON.parse(readFileSync(join(dir, "bench/results/mind.json"), "utf8"));
    writeFileSync(join(out, `${side}-${r}.json`), JSON.stringify(json, null, 2));
    runs.push({ side, round: r, json, ok: res.status === 0 });
  }
}

const steps = Number(process.env.STEPS ?? 10_000);
const keys = Object.keys(runs[0].json).filter((k) => k.startsWith(`steps_${steps}_`));
const cell = (v, w) => String(v).padStart(w);
console.log(`\nbench/mind, ${rev} (before) against this checkout (after), back to back: median ms between model calls at ${steps.toLocaleString()} steps (call to call at the model server) and above the floor's`);
console.log(`${"window".padEnd(34)}${runs.map((x) => cell(`${x.side} ${x.round}`, 16)).join("")}`);
for (const k of keys) {
  console.log(`${k.replace(`steps_${steps}_`, "").padEnd(34)}${runs.map((x) => cell(x.json[k]?.call_to_call_ms ? `${x.json[k].call_to_call_ms.median.toFixed(1)} (+${x.json[k].above_floor_ms.toFixed(1)})` : "—", 16)).join("")}`);
}
const floorOf = (x) => x.json.fetch_floor?.full?.one_piece?.call_to_call_ms?.median;
console.log(`${"floor, one piece (call to call)".padEnd(34)}${runs.map((x) => cell(floorOf(x)?.toFixed(1) ?? "—", 16)).join("")}`);
console.log(`${"load average at start / end".padEnd(34)}${runs.map((x) => cell(`${x.json.load_average.before[0]} / ${x.json.load_average.after[0]}`, 16)).join("")}`);
if (runs.some((x) => !x.ok)) console.log(`(a run exited non-zero after writing its figures: see ${out})`);
