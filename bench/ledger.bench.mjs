#!/usr/bin/env node
// Benchmark: the spend ledger alone (lib/server/ledger/ledger.ts), reserve -> settle
// cycles as the proxy makes them, N of them kept C at a time in flight, spread
// over 100 clients, caps high enough that nothing is refused. Measures cycles
// per second and reserve / settle latency (p50, p99) on PGlite (a temp folder)
// and, when REVERIE_TEST_DATABASE_URL is set (.ci/run sets it), on PostgreSQL
// (a fresh database there, dropped afterwards). Target: 500 cycles/s on this
// machine (the proxy's 500 requests per second). Writes bench/results/ledger.json.
//
//   npm run bench -- ledger            (CYCLES=2000 CONCURRENCY=1,16,64)
//   REVERIE_TEST_DATABASE_URL=postgres://user@127.0.0.1:5432/db npm run bench -- ledger
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// lib/server starts with import "server-only", which only loads under React's server condition.
if (!process.execArgv.includes("--conditions=react-server")) {
  const r = spawnSync(process.execPath, ["--conditions=react-server", fileURLToPath(import.meta.url)], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}

const { tsImport } = await import("tsx/esm/api");
const { openSql } = await tsImport("../lib/server/db/sql.ts", import.meta.url);
const { openLedger } = await tsImport("../lib/server/ledger/ledger.ts", import.meta.url);
const pg = (await import("pg")).default;

const CYCLES = Number(process.env.CYCLES ?? 2000);
const CONCURRENCY = (process.env.CONCURRENCY ?? "1,16,64").split(",").map(Number);
const TARGET_CYCLES_PER_S = 500;
const CAPS = { globalDayUsd: 1e6, clientHourUsd: 1e6, clientDayUsd: 1e6, requestUsd: 1 };

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (x) => Math.round(x * 1000) / 1000;

async function measure(sql, concurrency) {
  const ledger = openLedger(sql, CAPS);
  const reserveMs = [];
  const settleMs = [];
  let next = 0;
  async function worker() {
    while (next < CYCLES) {
      const i = next++;
      let t = performance.now();
      const r = await ledger.reserve(`client-${i % 100}`, 0.01, { model: "bench" });
      reserveMs.push(performance.now() - t);
      if (!r.ok) throw new Error(`refused by ${r.cap}`);
      t = performance.now();
      await ledger.settle(r.id, 0.005, { inputTokens: 100, outputTokens: 50 });
      settleMs.push(performance.now() - t);
    }
  }
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - start) / 1000;
  reserveMs.sort((a, b) => a - b);
  settleMs.sort((a, b) => a - b);
  return {
    concurrency,
    cycles: CYCLES,
    cycles_per_s: Math.round(CYCLES / seconds),
    reserve_p50_ms: ms(quantile(reserveMs, 0.5)),
    reserve_p99_ms: ms(quantile(reserveMs, 0.99)),
    settle_p50_ms: ms(quantile(settleMs, 0.5)),
    settle_p99_ms: ms(quantile(settleMs, 0.99)),
  };
}

async function onPglite() {
  const dir = await mkdtemp(join(tmpdir(), "reverie-bench-ledger-"));
  const sql = await openSql({ dataDir: join(dir, "db") });
  try {
    return await runAll(sql);
  } finally {
    await sql.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function onPostgres(url) {
  const name = `reverie_bench_${randomBytes(6).toString("hex")}`;
  const admin = async (statement) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const sql = await openSql({ databaseUrl: target.toString() });
  try {
    return await runAll(sql);
  } finally {
    await sql.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

async function runAll(sql) {
  await measure(sql, 8); // warm-up: JIT, the first period's counter rows
  const rows = [];
  for (const c of CONCURRENCY) rows.push(await measure(sql, c));
  return rows;
}

const engines = { pglite: await onPglite() };
const pgUrl = process.env.REVERIE_TEST_DATABASE_URL;
if (pgUrl) engines.postgres = await onPostgres(pgUrl);
else console.log("PostgreSQL: skipped (set REVERIE_TEST_DATABASE_URL to a server where this user may CREATE DATABASE)");

const cell = (v, w) => String(v).padStart(w);
console.log(`\n${CYCLES} reserve+settle cycles per row, 100 clients; ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the end`);
console.log(`${"engine".padEnd(10)} ${cell("in flight", 9)} ${cell("cycles/s", 9)} ${cell("vs 500/s", 9)} ${cell("reserve p50", 12)} ${cell("p99", 8)} ${cell("settle p50", 11)} ${cell("p99", 8)}`);
for (const [engine, rows] of Object.entries(engines)) {
  for (const r of rows) {
    console.log(
      `${engine.padEnd(10)} ${cell(r.concurrency, 9)} ${cell(r.cycles_per_s, 9)} ${cell(`${(r.cycles_per_s / TARGET_CYCLES_PER_S).toFixed(2)}×`, 9)} ${cell(`${r.reserve_p50_ms} ms`, 12)} ${cell(r.reserve_p99_ms, 8)} ${cell(`${r.settle_p50_ms} ms`, 11)} ${cell(r.settle_p99_ms, 8)}`,
    );
  }
}

mkdirSync("bench/results", { recursive: true });
writeFileSync(
  "bench/results/ledger.json",
  `${JSON.stringify({ when: new Date().toISOString(), cores: cpus().length, load_average: loadavg()[0], target_cycles_per_s: TARGET_CYCLES_PER_S, engines }, null, 2)}\n`,
);
