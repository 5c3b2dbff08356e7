// bench/runner's idle minds: N kept-alive minds at the pacing cap (300 s)
// with an instant FAKE model, hosted by one or two runner processes
// (bench/runner-driver.mjs, each a child of its own so its RSS and CPU are
// its own), their first wakes spread uniformly at random over the cap. Measures each
// process's RSS (after a warm-up mind, before the minds; steady and peak
// during), its CPU over the window, and how late wakes are: due → taken by
// a runner (onWake) and due → the wake step's ts in the trajectory.
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { admin } from "./pg-admin.mjs";

const DRIVER = fileURLToPath(new URL("./runner-driver.mjs", import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One runner process; `call(cmd, args)` sends it a command and resolves with its answer. */
function startDriver(settings) {
  const child = fork(DRIVER, [], {
    execArgv: ["--conditions=react-server", "--import", fileURLToPath(new URL("../bin/text-imports.mjs", import.meta.url)), "--import", import.meta.resolve("tsx"), ...(process.env.BENCH_RUNNER_NODE_ARGS ? process.env.BENCH_RUNNER_NODE_ARGS.split(" ") : [])],
    env: { ...process.env, BENCH_RUNNER_DRIVER: JSON.stringify(settings) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let next = 0;
  const waiting = new Map();
  let onReady;
  const ready = new Promise((resolve, reject) => {
    onReady = resolve;
    child.once("exit", (code) => reject(new Error(`the runner process exited (${code}) before it was ready`)));
  });
  ready.catch(() => undefined); // a process that only prepares the database never gets ready; its exit code says how it went
  child.on("message", (m) => {
    if (m.ready) return onReady(m);
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.ok) w?.resolve(m);
    else w?.reject(new Error(m.error));
  });
  child.on("exit", (code) => {
    for (const w of waiting.values()) w.reject(new Error(`the runner process exited (${code})`));
    waiting.clear();
  });
  return {
    child,
    ready,
    call(cmd, args) {
      const id = ++next;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.send({ id, cmd, args });
      });
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      await Promise.race([this.call("stop").catch(() => undefined), sleep(15_000)]);
      await Promise.race([exited, sleep(5_000)]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}


/** A database for one run: a PGlite folder, or a fresh database on the PostgreSQL at `adminUrl`, removed afterwards. */
export async function freshDatabase(adminUrl) {
  if (!adminUrl) {
    const dir = mkdtempSync(join(tmpdir(), "reverie-bench-runner-"));
    const settings = { dataDir: join(dir, "db") };
    // Created and migrated by a process of its own, as a server's data folder exists before the server that opens it.
    const prep = startDriver({ ...settings, prepare: true });
    const code = await new Promise((r) => prep.child.once("exit", r));
    if (code !== 0) throw new Error(`could not create the PGlite database (exit ${code})`);
    return { settings, remove: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `reverie_bench_runner_${randomBytes(6).toString("hex")}`;
  await admin(adminUrl, `CREATE DATABASE ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return { settings: { databaseUrl: u.toString() }, remove: () => admin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export function pct(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : NaN;
}
const mib = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
const median = (xs) => pct([...xs].sort((a, b) => a - b), 50);

/**
 * Warm-up: a few minds woken at once, until every process has hosted one and put it away, so code loaded
 * on a first wake (the sandbox, the thinkers) is in the baseline, not counted as the minds' memory.
 */
async function warmUp(drivers) {
  const warm = [];
  for (let round = 0; round < 5; round++) {
    const { minds } = await drivers[0].call("seed", { n: 2 * drivers.length, prefix: `warm${round}`, spreadMs: 1500 * drivers.length, leadMs: 200 });
    warm.push(...minds.map((m) => m.mind));
    const end = Date.now() + 60_000;
    let all;
    do {
      await sleep(500);
      all = await Promise.all(drivers.map((d) => d.call("events")));
    } while (Date.now() < end && !(all.every((a) => a.hosted.length === 0) && all.reduce((n, a) => n + a.events.filter((e) => e.outcome === "hosted").length, 0) >= warm.length));
    if (all.every((a) => a.events.some((e) => e.outcome === "hosted"))) break;
  }
  await drivers[0].call("retire", { minds: warm });
  return new Set(warm);
}

/**
 * `processes` runner processes over one database hosting `n` idle minds for `seconds`.
 * `adminUrl`: PostgreSQL (a fresh database is made there); empty: PGlite (one process only).
 */
export async function idleRun({ n, seconds, processes, adminUrl, maxMinds, leaseS, log }) {
  const db = await freshDatabase(adminUrl);
  const drivers = [];
  try {
    // One at a time: each opens and migrates the database first.
    for (let i = 0; i < processes; i++) {
      const d = startDriver({ ...db.settings, maxMinds, leaseS });
      drivers.push(d);
      d.info = await d.ready;
    }
    log(`  ${processes} runner process(es) up; warming up`);
    const warm = await warmUp(drivers);
    const base = await Promise.all(drivers.map((d) => d.call("baseline")));
    // The first wakes at random over the cap (or the window, when it is shorter), after time enough to queue them all.
    const spreadMs = Math.min(300, seconds) * 1000;
    log(`  seeding ${n} minds`);
    const seeded = await drivers[0].call("seed", { n, prefix: "idle", spreadMs, leadMs: 3000 + n * (adminUrl ? 5 : 15) });
    const t0 = seeded.t0;
    const end = t0 + seconds * 1000;
    log(`  seeded in ${seeded.seeded_ms} ms, wakes queued in ${seeded.queued_ms} ms${seeded.overrun_ms ? ` (${seeded.overrun_ms} ms past the window's start)` : ""}; measuring ${seconds} s`);
    const windows = await Promise.all(drivers.map((d) => d.call("window", { t0, end })));
    return summarize({ n, seconds, t0, end, spreadMs, warm, seeded, base, windows, drivers, maxMinds, leaseS, engine: adminUrl ? "postgres" : "pglite" });
  } finally {
    for (const d of drivers) await d.stop();
    await db.remove().catch((e) => log(`  could not remove the database: ${e.message}`));
  }
}

function summarize({ n, seconds, t0, end, spreadMs, warm, seeded, base, windows, drivers, maxMinds, leaseS, engine }) {
  const takeLate = [];
  const stepLate = [];
  const outcomes = {};
  const firstHosted = new Set();
  const perProcess = windows.map((w, i) => {
    const hosted = w.events.filter((e) => !warm.has(e.mind) && e.outcome === "hosted" && e.due >= t0 && e.due <= end);
    for (const e of w.events) if (!warm.has(e.mind) && e.due >= t0 && e.due <= end) outcomes[e.outcome] = (outcomes[e.outcome] ?? 0) + 1;
    // Each hosted wake's step: the mind's first server wake step at or after it was taken.
    const byMind = new Map();
    for (const s of w.wake_steps) byMind.set(s.mind, [...(byMind.get(s.mind) ?? []), s.ts].sort((a, b) => a - b));
    for (const e of hosted) {
      firstHosted.add(e.mind);
      takeLate.push(e.takenAt - e.due);
      const ts = byMind.get(e.mind)?.find((t) => t >= e.takenAt);
      if (ts !== undefined) stepLate.push(ts - e.due);
    }
    const steadyFrom = Math.floor(w.samples.length / 2);
    const steady = median(w.samples.slice(steadyFrom).map((s) => s.rss));
    const cpuS = (w.cpu_user_us + w.cpu_system_us) / 1e6;
    return {
      pid: drivers[i].info.pid,
      wakes_hosted: hosted.length,
      rss_mib: {
        at_start: mib(base[i].start_rss),
        baseline: mib(base[i].rss),
        steady: mib(steady),
        peak_sampled: mib(Math.max(...w.samples.map((s) => s.rss))),
        peak_max_rss: mib(w.max_rss),
      },
      steady_minus_baseline_bytes: steady - base[i].rss,
      cpu_s: Math.round(cpuS * 100) / 100,
      cpu_pct: Math.round((cpuS / (w.wall_ms / 1000)) * 1000) / 10,
      cpu_pct_no_minds: base[i].idle_cpu_pct,
      loop_lag_p99_ms: Math.round(pct([...w.lag_ms].sort((a, b) => a - b), 99)),
      hosted_at_once_max: Math.max(0, ...w.samples.map((s) => s.hosted)),
      model_calls: w.model_calls,
      pacing_after: w.pacing,
      wake_levels: [...new Set(w.wake_steps.map((s) => s.level))],
      logs: w.logs.slice(0, 20),
    };
  });
  takeLate.sort((a, b) => a - b);
  stepLate.sort((a, b) => a - b);
  const dueInWindow = seeded.minds.filter((m) => m.at <= end).map((m) => m.mind);
  const missed = dueInWindow.filter((m) => !firstHosted.has(m)).length;
  const perMindBytes = perProcess.reduce((s, p) => s + p.steady_minus_baseline_bytes, 0) / n;
  const total = perProcess.reduce((s, p) => s + p.wakes_hosted, 0);
  return {
    engine,
    processes: windows.length,
    minds: n,
    window_s: seconds,
    first_wakes_spread_s: spreadMs / 1000,
    max_minds: maxMinds,
    lease_s: leaseS,
    seed: { rows_ms: seeded.seeded_ms, queue_ms: seeded.queued_ms, overrun_ms: seeded.overrun_ms },
    wakes: total,
    wakes_per_s: Math.round((total / seconds) * 100) / 100,
    first_wakes_due: dueInWindow.length,
    first_wakes_missed: missed,
    outcomes,
    lateness_taken_ms: { p50: Math.round(pct(takeLate, 50)), p99: Math.round(pct(takeLate, 99)), max: Math.round(takeLate.at(-1) ?? NaN), n: takeLate.length },
    lateness_step_ms: { p50: Math.round(pct(stepLate, 50)), p99: Math.round(pct(stepLate, 99)), max: Math.round(stepLate.at(-1) ?? NaN), n: stepLate.length },
    rss_per_mind_kib: Math.round((perMindBytes / 1024) * 10) / 10,
    rss_total_steady_mib: Math.round(perProcess.reduce((s, p) => s + p.rss_mib.steady, 0) * 10) / 10,
    per_process: perProcess.map((p) => ({ ...p, share: total ? Math.round((p.wakes_hosted / total) * 1000) / 10 : 0 })),
  };
}
