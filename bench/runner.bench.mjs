#!/usr/bin/env node
// Benchmark: the server runner (lib/server/runner) that keeps minds thinking
// while no tab is open. Three parts:
//
// 1. Idle minds on one process: N minds (default 1,000) kept alive at the
//    pacing cap (300 s) with an instant FAKE model, their first wakes spread
//    at random over the cap, hosted by one runner process
//    (bench/runner-driver.mjs, a child of its own) over PGlite, and over
//    PostgreSQL when one is given. Each process's RSS (before the minds,
//    after a warm-up mind; steady and peak during the window), CPU over the
//    window, and wake lateness: due → taken by a runner, and due → the wake
//    step's ts. Targets: lateness p99 under 1 s; the whole process under
//    1 GiB with 1,000 idle minds.
// 2. The same minds shared by two runner processes on PostgreSQL: lateness,
//    each process's share of the wakes, the RSS of each.
// 3. Handovers through the built app in Chromium (bench/runner-handover.mjs):
//    tab closed → first wake on the server; tab opened → `mind-home` says
//    "this tab", and the first wake in the tab. Target: under 3 s to the tab.
//    On PGlite (the runner inside the app) and, with PostgreSQL, with a
//    `reverie runner` process beside the app's.
//
//   npm run bench -- runner
//   BENCH_RUNNER_DATABASE_URL=postgres://user@127.0.0.1:5432/postgres npm run bench -- runner
//       (an admin URL: a fresh database is made there for each run, and dropped after)
//   BENCH_RUNNER_MINDS=200 BENCH_RUNNER_SECONDS=60 BENCH_RUNNER_ROUNDS=2 npm run bench -- runner   (a shorter run)
//   BENCH_RUNNER_PARTS=idle,two,handover   (which parts; all by default)
//   REVERIE_BENCH_REUSE_BUILD=1 npm run bench -- runner   (the handover part serves the existing build)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";

const N = Number(process.env.BENCH_RUNNER_MINDS ?? 1000);
const SECONDS = Number(process.env.BENCH_RUNNER_SECONDS ?? 300);
const ROUNDS = Number(process.env.BENCH_RUNNER_ROUNDS ?? 5);
const PG_URL = process.env.BENCH_RUNNER_DATABASE_URL || process.env.REVERIE_TEST_DATABASE_URL || "";
const PARTS = new Set((process.env.BENCH_RUNNER_PARTS ?? "idle,two,handover").split(",").map((s) => s.trim()));
/** The runner's own defaults (lib/server/runner/config.ts): minds hosted at once, lease life. */
const MAX_MINDS = 20;
const LEASE_S = 30;
const TARGET = { lateP99Ms: 1000, processBytes: 1024 ** 3, toTabMs: 3000 };
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

const { freshDatabase, idleRun, pct } = await import("./runner-idle.mjs");
const log = (line) => console.log(line);
const round2 = (x) => Math.round(x * 100) / 100;
const loadBefore = loadavg().map(round2);

const results = { minds: N, window_s: SECONDS, target: TARGET, load_before: loadBefore, idle: [], handover: [] };

if (PARTS.has("idle")) {
  log(`idle minds, one process, PGlite: ${N} minds, ${SECONDS} s`);
  results.idle.push(await idleRun({ n: N, seconds: SECONDS, processes: 1, adminUrl: "", maxMinds: MAX_MINDS, leaseS: LEASE_S, log }));
  if (PG_URL) {
    log(`idle minds, one process, PostgreSQL: ${N} minds, ${SECONDS} s`);
    results.idle.push(await idleRun({ n: N, seconds: SECONDS, processes: 1, adminUrl: PG_URL, maxMinds: MAX_MINDS, leaseS: LEASE_S, log }));
  }
}
if (PARTS.has("two")) {
  if (PG_URL) {
    log(`idle minds, two processes, PostgreSQL: ${N} minds, ${SECONDS} s`);
    results.idle.push(await idleRun({ n: N, seconds: SECONDS, processes: 2, adminUrl: PG_URL, maxMinds: MAX_MINDS, leaseS: LEASE_S, log }));
  } else log("(two processes skipped: they share PostgreSQL; set BENCH_RUNNER_DATABASE_URL to an admin URL of one to measure them)");
}
if (PARTS.has("handover")) {
  if (!(process.env.REVERIE_BENCH_REUSE_BUILD === "1" && existsSync(".next/BUILD_ID"))) {
    log("building the app…");
    const b = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: ["ignore", "ignore", "inherit"], env });
    if (b.status !== 0) process.exit(1);
  }
  const { handoverRun } = await import("./runner-handover.mjs");
  log(`handovers, PGlite (the runner inside the app): ${ROUNDS} rounds in Chromium`);
  results.handover.push(await handoverRun({ rounds: ROUNDS, log }));
  if (PG_URL) {
    log(`handovers, PostgreSQL, two runner processes (the app's and \`reverie runner\`): ${ROUNDS} rounds in Chromium`);
    const db = await freshDatabase(PG_URL);
    try {
      results.handover.push(await handoverRun({ rounds: ROUNDS, log, databaseUrl: db.settings.databaseUrl, runners: 2 }));
    } finally {
      await db.remove();
    }
  } else log("(handovers with two runner processes skipped: set BENCH_RUNNER_DATABASE_URL)");
}
results.load_after = loadavg().map(round2);

// ---- the tables ----
function print(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  for (const r of rows) console.log(r.map((c, i) => String(c).padEnd(widths[i])).join("  "));
}
const ms = (x) => (Number.isFinite(x) ? `${Math.round(x)} ms` : "–");
const s = (x) => (Number.isFinite(x) ? `${round2(x / 1000)} s` : "–");
const mibs = (x) => `${x} MiB`;

if (results.idle.length) {
  console.log("\nIdle minds (pacing at the 300 s cap, instant FAKE model)");
  const rows = [["run", "minds", "wakes (share)", "wakes/s", "late: taken p50 / p99 / max", "late: wake step p50 / p99", "p99 vs 1 s", "RSS start / before / steady / peak", "peak (whole life)", "RSS per mind", "peak vs 1 GiB", "CPU"]];
  for (const r of results.idle) {
    const name = `${r.engine}, ${r.processes} process${r.processes > 1 ? "es" : ""}`;
    const t = r.lateness_taken_ms;
    const w = r.lateness_step_ms;
    const wakes = `${r.wakes}${r.first_wakes_missed ? ` (${r.first_wakes_missed} missed)` : ""}`;
    const procRow = (label, p, shared) => [
      label,
      shared ? "" : String(r.minds),
      shared ? `${p.wakes_hosted} (${p.share}%)` : wakes,
      shared ? "" : String(r.wakes_per_s),
      shared ? "" : `${ms(t.p50)} / ${ms(t.p99)} / ${ms(t.max)}`,
      shared ? "" : `${ms(w.p50)} / ${ms(w.p99)}`,
      shared ? "" : `${round2(t.p99 / TARGET.lateP99Ms)}×`,
      `${p.rss_mib.at_start} / ${p.rss_mib.baseline} / ${p.rss_mib.steady} / ${mibs(p.rss_mib.peak_sampled)}`,
      mibs(p.rss_mib.peak_max_rss),
      shared ? "" : `${r.rss_per_mind_kib} KiB`,
      `${round2((p.rss_mib.peak_sampled * 1048576) / TARGET.processBytes)}×`,
      `${p.cpu_pct}% (${p.cpu_s} s)`,
    ];
    if (r.processes === 1) rows.push(procRow(name, r.per_process[0], false));
    else {
      const all = { ...r.per_process[0], rss_mib: { at_start: "", baseline: "", steady: round2(r.rss_total_steady_mib), peak_sampled: round2(r.per_process.reduce((a, p) => a + p.rss_mib.peak_sampled, 0)), peak_max_rss: round2(r.per_process.reduce((a, p) => a + p.rss_mib.peak_max_rss, 0)) } };
      const cpuS = r.per_process.reduce((a, p) => a + p.cpu_s, 0);
      const row = procRow(name, all, false);
      row[7] = `steady ${r.rss_total_steady_mib} / peak ${mibs(all.rss_mib.peak_sampled)} (sum)`;
      row[10] = "";
      row[11] = `${round2((cpuS / r.window_s) * 100)}% (${round2(cpuS)} s, sum)`;
      rows.push(row);
      r.per_process.forEach((p, i) => rows.push(procRow(`  process ${i + 1}`, p, true)));
    }
  }
  print(rows);
  const r0 = results.idle[0];
  console.log(
    `\nlate: from a wake's due time to a runner taking it (onWake), and to the wake step's ts in the trajectory; every wake due in the ${r0.window_s} s window (first wakes at random over ${r0.first_wakes_spread_s} s). ` +
      `RSS: the runner process's own (start: runner up, no minds; before: after a warm-up mind was hosted and put away, before the ${r0.minds} minds; steady: median of the window's second half; peak: sampled each second in the window; whole life: maxRSS). ` +
      `RSS per mind = (steady − before) / minds. CPU: user + system over the window, % of one core. Runner defaults: ${MAX_MINDS} minds at once, lease ${LEASE_S} s, the queue polled every 0.5 s.`,
  );
}

if (results.handover.length) {
  const rounds = results.handover.flatMap((h) => h.rounds);
  console.log(`\nHandovers (RUNNER_LEASE_S=${results.handover[0].lease_s}; the built app in Chromium, its proxy in front of the scripted FAKE model; mind pacing 1–2 s)`);
  const rows = [["handover", ...results.handover.map((h) => `${h.engine}, ${h.runner_processes} runner${h.runner_processes > 1 ? "s" : ""}: median / max`), "vs 3 s (median, max)", "what it includes"]];
  const line = (label, k, what, target) => {
    const cells = results.handover.map((h) => {
      const xs = h.rounds.map((r) => r[k]).filter((x) => x !== null && x !== undefined).sort((a, b) => a - b);
      return xs.length ? `${s(pct(xs, 50))} / ${s(xs.at(-1))}` : "–";
    });
    let vs = "";
    if (target) {
      const xs = rounds.map((r) => r[k]).sort((a, b) => a - b);
      vs = `${round2(pct(xs, 50) / target)}×, ${round2(xs.at(-1) / target)}×`;
    }
    rows.push([label, ...cells, vs, what]);
  };
  const released = rounds.filter((r) => r.released_on_close).length;
  line("tab closed → first server wake", "to_server_ms", `the tab's lease lapsing (${released} of ${rounds.length} closing tabs let it go), the wake queued for lapse + 1 s, the queue's poll (0.5 s), the runner taking the lease and starting the mind, its first wake step`);
  line("  of which: until the lease lapsed", "lease_lapse_ms", "from the close to the expiry of the tab's last renewal (renewed every lease/3)");
  line("server: first → second wake", "server_next_wake_ms", "the pacing (1–2 s) + putting the mind away (its summaries sealed first, up to 30 s) + the queue's poll");
  line("tab opened → page loaded", "page_load_ms", "navigation to the load event");
  line("tab opened → lease granted", "lease_granted_ms", "… the tab asking (a hosting runner hears it at once through pg_notify, cuts the run, lets the lease go; the tab asks again every 0.15 s)");
  line('tab opened → mind-home "this tab"', "mind_home_tab_ms", "… the pull of what the server wrote (steps, then state), the away digest shown");
  line("tab opened → first tab wake", "to_tab_ms", "… the worker starting the mind, its first wake step (target: under 3 s)", TARGET.toTabMs);
  line("tab opened → its first model call", "first_tab_call_ms", "… its first context built and sent (the sandbox loads after it goes out)");
  print(rows);
  for (const h of results.handover) {
    const c = h.checks;
    const calls = h.rounds.map((r) => `${r.summary_calls_on_server} (${r.summary_blocks_on_server} block${r.summary_blocks_on_server === 1 ? "" : "s"})`).join(", ");
    console.log(`${h.engine}, ${h.runner_processes} runner(s): the whole life on its live link: ${c.steps} steps, ${c.seq_gaps} seq gaps, ${c.duplicate_ids} duplicate step ids, ${c.epoch_decreases} wake epochs going back; summary calls while on the server, per round: ${calls}.`);
  }
}
console.log(`\nload average before ${loadBefore.join(" ")}, after ${results.load_after.join(" ")} (2 cores; these figures are only comparable under like loads).`);
mkdirSync("bench/results", { recursive: true });
// A run of some parts (BENCH_RUNNER_PARTS) keeps the other parts' figures from the last run, marked as such.
const OUT = "bench/results/runner.json";
const before = existsSync(OUT) ? JSON.parse(readFileSync(OUT, "utf8")) : {};
for (const part of ["idle", "handover"]) {
  if (!results[part].length && before[part]?.length) results[part] = before[part].map((r) => ({ ...r, from_an_earlier_run: r.from_an_earlier_run ?? before.measured_at ?? true }));
}
results.measured_at = new Date().toISOString();
writeFileSync(OUT, `${JSON.stringify(results, null, 2)}\n`);
console.log("wrote bench/results/runner.json");
