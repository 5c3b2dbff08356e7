#!/usr/bin/env node
/* global Buffer */
// Benchmark: `reverie eval` as a person runs it, whole processes, against an
// instant scripted model on loopback (the tests' OpenAI-compatible model
// server, test/fixtures/model-server.ts: the real provider code on the wire,
// its answers at once; the inner life idles, the responder answers). Two parts:
//
// 1. The shipped week (eval/scenarios/week-with-memory.json, 168 simulated h):
//    wall time and simulated hours per wall second, repeatable (--seed, the
//    fixed clock) and on the real-rate clock. Target: a week in under 2 min.
// 2. Wall time against the number of events: a generated day (24 h, four
//    people) with EVENTS messages spread evenly over it, repeatable.
//
// Writes bench/results/eval.json.
//
//   npm run bench -- eval             (RUNS=1 EVENTS=0,25,50,100)
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { tsImport } from "tsx/esm/api";
import { ensureBundle } from "../bin/cli-bundle.mjs";

const RUNS = Number(process.env.RUNS ?? 1);
const EVENTS = (process.env.EVENTS ?? "0,25,50,100").split(",").map(Number);
const WEEK = "eval/scenarios/week-with-memory.json";
const TARGET_WEEK_S = 120;
const BIN = new URL("../bin/reverie.mjs", import.meta.url).pathname;
const log = (...a) => console.log(...a);

const bundle = await ensureBundle({ onBuild: () => log("building the CLI bundle first…") });
const env = { ...process.env, REVERIE_CLI_BUNDLE: bundle.href };
const { startModelServer } = await tsImport("../test/fixtures/model-server.ts", import.meta.url);
const server = await startModelServer({ responder: () => ({ text: "Nothing new here.\n```bash\nFINAL=idle\n```" }) });
server.setReplyResponder(() => ({ text: "Noted, thank you." }));
const dir = mkdtempSync(join(tmpdir(), "reverie-bench-eval-"));

/** One `reverie eval` process: its wall seconds and its results. Spawned, not spawnSync: the model server answers from this process. */
function play(file, extra = []) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, "eval", file, "--base-url", server.url, "--model", "scripted", "--json", ...extra], { env, stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    let err = "";
    child.stdout.on("data", (b) => out.push(b));
    child.stderr.on("data", (b) => (err = (err + b).slice(-4000)));
    child.on("error", reject);
    child.on("close", (code) => {
      const wallS = (performance.now() - t0) / 1000;
      if (code !== 0) return reject(new Error(`reverie eval exited ${code}: ${err}`));
      resolve({ wallS, results: JSON.parse(Buffer.concat(out).toString("utf8")) });
    });
  });
}

const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/** A day with `n` messages from four people, evenly spread over its first 23 hours, each wanting an answer within ten minutes. */
function generatedDay(n) {
  const people = ["Ada", "Bo", "Cy", "Dee"];
  const events = Array.from({ length: n }, (_, i) => ({
    at_h: round(((i + 0.5) * 23) / n, 4),
    from: people[i % people.length],
    message: `Question ${i + 1}: can you look at item ${i + 1}?`,
    probe: { id: `q-${i + 1}`, kind: "reply", within_h: 1 / 6 },
  }));
  const doc = { name: `a day with ${n} messages`, start: "2026-01-05T00:00:00Z", duration_h: 24, people, persona: "You help a small team.", settings: { pacing: { base_s: 5, cap_s: 300 } }, events };
  const file = join(dir, `day-${n}.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

const loadBefore = loadavg().map((l) => round(l, 2));
const week = { repeatable: [], real_rate: [] };
try {
  log(`the shipped week (${WEEK}), ${RUNS} run(s) each…`);
  for (let i = 0; i < RUNS; i++) {
    for (const [mode, extra] of [["repeatable", ["--seed", "1"]], ["real_rate", []]]) {
      const { wallS, results } = await play(WEEK, extra);
      week[mode].push({ wall_s: round(wallS), simulated_h: results.simulated_h, model_calls: results.metrics.model_calls, wakes: results.wakes.length });
    }
  }
  log("wall time against events (a generated day, repeatable)…");
  const byEvents = [];
  for (const n of EVENTS) {
    const { wallS, results } = await play(generatedDay(n), ["--seed", "1"]);
    byEvents.push({ events: n, wall_s: round(wallS, 2), model_calls: results.metrics.model_calls, wakes: results.wakes.length, reply_rate: results.metrics.reply_rate, ms_per_call: round((wallS * 1000) / results.metrics.model_calls, 1) });
  }

  const row = (cells, widths) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("  ");
  log("");
  log(`The shipped week (168 simulated h), instant scripted model on loopback; target < ${TARGET_WEEK_S} s`);
  const wk = [22, 10, 16, 12, 8, 14];
  log(row(["clock", "wall s", "sim h / wall s", "model calls", "wakes", "vs target"], wk));
  const weekRows = {};
  for (const mode of ["repeatable", "real_rate"]) {
    const wall = median(week[mode].map((r) => r.wall_s));
    const one = week[mode][0];
    weekRows[mode] = { wall_s: wall, sim_h_per_wall_s: round(168 / wall, 2), model_calls: one.model_calls, wakes: one.wakes, ratio_to_target: round(wall / TARGET_WEEK_S, 2), runs: week[mode] };
    log(row([mode === "repeatable" ? "fixed (--seed 1)" : "real-rate", wall, weekRows[mode].sim_h_per_wall_s, one.model_calls, one.wakes, `${weekRows[mode].ratio_to_target}×`], wk));
  }
  log("");
  log("Wall time against events: a generated day (24 simulated h, four people), --seed 1");
  const ev = [8, 10, 13, 8, 12, 12];
  log(row(["events", "wall s", "model calls", "wakes", "ms / call", "reply rate"], ev));
  for (const r of byEvents) log(row([r.events, r.wall_s, r.model_calls, r.wakes, r.ms_per_call, r.reply_rate ?? "-"], ev));
  const base = byEvents.find((r) => r.events === 0);
  const top = byEvents.at(-1);
  const perEventMs = base && top && top.events > 0 ? round(((top.wall_s - base.wall_s) * 1000) / top.events, 1) : null;
  if (perEventMs !== null) log(`each message adds about ${perEventMs} ms of wall time (${top.events} against 0)`);

  mkdirSync("bench/results", { recursive: true });
  const result = {
    bench: "eval",
    when: new Date().toISOString(),
    machine: { cpus: cpus().length, load_before: loadBefore, load_after: loadavg().map((l) => round(l, 2)) },
    model: "instant scripted model (test/fixtures/model-server.ts) on loopback",
    target_week_s: TARGET_WEEK_S,
    week: weekRows,
    by_events: byEvents,
    ms_per_event: perEventMs,
  };
  writeFileSync("bench/results/eval.json", `${JSON.stringify(result, null, 2)}\n`);
  log("\nwrote bench/results/eval.json");
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
