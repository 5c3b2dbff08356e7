/* global Buffer */
// One runner process for bench/runner: the server runner (lib/server/runner/
// runner.ts) over PGlite or PostgreSQL with a FAKE instant model, driven by
// bench/runner.bench.mjs over the IPC channel, so that the RSS and CPU it
// reports are this process's own. Started by the bench as
// `node --conditions=react-server --import ./bin/text-imports.mjs --import tsx bench/runner-driver.mjs`
// with its settings in $BENCH_RUNNER_DRIVER (JSON: databaseUrl or dataDir,
// maxMinds, leaseS; prepare: only create and migrate the database, then exit).
//
// Commands (each answered with { id, ok, ... } or { id, ok: false, error }):
//   seed { n, prefix, spreadMs, leadMs }   N kept-alive minds at the pacing cap, first wakes uniformly at random over spreadMs from now + leadMs
//   events                                  what the runner reported of each taken wake so far, and the minds it hosts now
//   retire { minds }                        keep-alive off and the wake cleared (the warm-up minds)
//   baseline                                RSS, the median of 10 samples a second apart, and the CPU meanwhile
//   window { t0, end }                      RSS every second and CPU from t0 to end, then the wake steps of the minds this process hosted
//   stop
import { randomBytes, randomUUID } from "node:crypto";

const { openSql } = await import("../lib/server/db/sql.ts");
const { Runner } = await import("../lib/server/runner/runner.ts");
const { hostBoundNetwork } = await import("../lib/server/runner/network.ts");
const { DEFAULT_PERMISSIONS } = await import("../lib/trajectory/permissions.ts");

const cfg = JSON.parse(process.env.BENCH_RUNNER_DRIVER ?? "{}");
/** The inner life's idle answer: nothing done, so the pacing stays at its cap. */
const IDLE_REPLY = "Nothing to do.\n```bash\nFINAL=idle\n```";
/** Pacing whose delay at level 7 is the cap: 5 × 2^6 = 320 → 300 s. */
const PACING = { base_s: 5, cap_s: 300, ticks_per_level: 3 };
const CAP_LEVEL = 7;

/** FAKE model at the model port: every call (inner life, responder, summarizer) answers at once with the idle reply. */
const model = {
  name: "fake/instant",
  calls: 0,
  async complete() {
    model.calls++;
    return { ok: true, text: IDLE_REPLY, inTokens: 1, outTokens: 1 };
  },
};

const sql = await openSql(cfg.databaseUrl ? { databaseUrl: cfg.databaseUrl } : { dataDir: cfg.dataDir });
if (cfg.prepare) {
  // Only create and migrate the database: a fresh PGlite's first open (its initdb) leaves this process far larger than a
  // server that opens its existing data folder, so the measured process opens one made here.
  await sql.close();
  process.exit(0);
}
const events = [];
const logs = [];
const runner = new Runner({
  sql,
  maxMinds: cfg.maxMinds,
  leaseS: cfg.leaseS,
  model: async () => model,
  network: (s) => hostBoundNetwork(s.permissions, []),
  onWake: (e) => events.push(e),
  log: (line) => logs.length < 200 && logs.push(line),
});
await runner.start();
const startRss = process.memoryUsage.rss();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A mind its tab synced and made kept-alive: the row, its root trajectory and first step, settings with caps, pacing at the cap. */
async function seed({ n, prefix, spreadMs, leadMs }) {
  const minds = [];
  const t = Date.now();
  for (let start = 0; start < n; start += 100) {
    await sql.transaction(async (tx) => {
      for (let i = start; i < Math.min(n, start + 100); i++) {
        const id = `${prefix}-${i}-${randomUUID().slice(0, 8)}`;
        const tabId = randomUUID();
        const name = `${prefix} ${i}`;
        const settings = {
          id: tabId,
          name,
          persona: "An idle mind in a benchmark.",
          model: { provider: "proxy", model: "fake" },
          created_at: new Date(t).toISOString(),
          running: true,
          pacing: PACING,
          max_iterations: 4,
          permissions: DEFAULT_PERMISSIONS,
          budget: { hour_usd: 1, day_usd: 5 },
        };
        const first = JSON.stringify({ type: "trajectory", step_id: tabId, ts: new Date(t).toISOString(), name });
        await tx.query(
          `INSERT INTO sync_minds (id, name, write_token_hash, last_seq, step_count, bytes, settings, keep_alive, pacing)
           VALUES ($1, $2, $3, 1, 1, $4, $5, true, $6)`,
          [id, name, randomBytes(32), Buffer.byteLength(first), JSON.stringify(settings), JSON.stringify({ level: CAP_LEVEL, ticks: 0, failures: 0 })],
        );
        await tx.query("INSERT INTO sync_trajectories (mind, traj, name, dir) VALUES ($1, $2, $3, '')", [id, tabId, name]);
        await tx.query("INSERT INTO sync_steps (mind, seq, step_id, traj, type, json) VALUES ($1, 1, $2, $2, 'trajectory', $3)", [id, tabId, first]);
        minds.push(id);
      }
    });
  }
  const seededMs = Date.now() - t;
  const t0 = Date.now() + leadMs;
  // At random, not evenly spaced: evenly spaced wakes would all meet the queue's polling at one phase.
  const due = minds.map((mind) => ({ mind, at: t0 + Math.round(Math.random() * spreadMs) })).sort((a, b) => a.at - b.at);
  const q0 = Date.now();
  for (const { mind, at } of due) await runner.wakes().set(mind, new Date(at), "scheduled");
  const queuedMs = Date.now() - q0;
  return { minds: due, t0, seeded_ms: seededMs, queued_ms: queuedMs, overrun_ms: Math.max(0, Date.now() - t0) };
}

async function retire({ minds }) {
  await sql.query("UPDATE sync_minds SET keep_alive = false WHERE id = ANY($1::text[])", [minds]);
  for (const m of minds) await runner.wakes().clear(m);
  return {};
}

/** RSS before the minds: sampled as in the window (no forced GC, which the window does not have either), the median of 10 s. */
async function baseline() {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const xs = [];
  for (let i = 0; i < 10; i++) {
    await sleep(1000);
    xs.push(process.memoryUsage.rss());
  }
  const cpu = process.cpuUsage(cpu0);
  // The runner's own upkeep with no mind due (the queue's polling and supervision): the floor under the window's CPU.
  const idleCpuPct = Math.round(((cpu.user + cpu.system) / 1000 / (performance.now() - t0)) * 1000) / 10;
  return { rss: median(xs), start_rss: startRss, heap_used: process.memoryUsage().heapUsed, idle_cpu_pct: idleCpuPct };
}

async function window({ t0, end }) {
  if (Date.now() < t0) await sleep(t0 - Date.now());
  const cpu0 = process.cpuUsage();
  const w0 = performance.now();
  const samples = [];
  const lag = [];
  // The event loop's lag, sampled with the RSS: a busy loop takes due wakes late.
  while (Date.now() < end) {
    const before = performance.now();
    await sleep(1000);
    lag.push(Math.max(0, performance.now() - before - 1000));
    samples.push({ t: Date.now() - t0, rss: process.memoryUsage.rss(), heap: process.memoryUsage().heapUsed, hosted: runner.hostedMinds().length });
  }
  const cpu = process.cpuUsage(cpu0);
  const wallMs = performance.now() - w0;
  // Grace: minds still hosted finish their wake and are put away, so their wake steps are written.
  const g0 = Date.now();
  await sleep(1500);
  while (runner.hostedMinds().length && Date.now() - g0 < 20_000) await sleep(250);
  const mine = [...new Set(events.filter((e) => e.outcome === "hosted").map((e) => e.mind))];
  const steps = [];
  for (let i = 0; i < mine.length; i += 500) {
    const rows = await sql.query("SELECT mind, json FROM sync_steps WHERE type = 'wake' AND mind = ANY($1::text[])", [mine.slice(i, i + 500)]);
    for (const r of rows) {
      const s = JSON.parse(r.json);
      if (s.home === "server") steps.push({ mind: r.mind, ts: Date.parse(s.ts), epoch: s.epoch, level: s.level });
    }
  }
  // Idle minds stay idle: their pacing as they left it (level 7, ticks counting up to 3, no failures).
  const pacing = await sql.query("SELECT pacing, count(*)::int AS n FROM sync_minds WHERE id = ANY($1::text[]) GROUP BY pacing ORDER BY n DESC", [mine]);
  return {
    pacing: pacing.map((r) => ({ pacing: r.pacing, minds: Number(r.n) })),
    samples,
    lag_ms: lag,
    cpu_user_us: cpu.user,
    cpu_system_us: cpu.system,
    wall_ms: wallMs,
    max_rss: process.resourceUsage().maxRSS * 1024,
    events,
    wake_steps: steps,
    model_calls: model.calls,
    logs,
  };
}

const commands = {
  seed,
  retire,
  baseline,
  window,
  events: async () => ({ events, hosted: runner.hostedMinds().map((h) => h.mind) }),
  async stop() {
    await runner.stop();
    await sql.close();
    setTimeout(() => process.exit(0), 50);
    return {};
  },
};

process.on("message", async ({ id, cmd, args }) => {
  try {
    process.send({ id, ok: true, ...(await commands[cmd](args ?? {})) });
  } catch (e) {
    process.send({ id, ok: false, error: e instanceof Error ? `${e.message}\n${e.stack}` : String(e) });
  }
});
process.send({ ready: true, pid: process.pid, holder: runner.holder });
