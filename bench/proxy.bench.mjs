#!/usr/bin/env node
// Benchmark: what the spend-capped proxy adds to a call, end to end through
// the real server (`next start`, as `npm start` serves it): route, client
// identity, body parsing, input token count, reserve and settle in the SQL
// ledger, forwarding and relaying. Against a local fake upstream that answers
// at once (bench/fake-upstream.mjs), so the difference is the proxy.
// Measured in-process would leave out Next's own request handling, which a
// real client pays for too; so this spawns the built app. A "next alone" row
// (a JSON 404 from the app, no proxy work) shows how much of the added time
// is the server itself.
//
// Latency: N sequential calls, alternating direct and through the proxy;
// added = proxy minus direct at p50 and p99. Throughput: M calls from C
// concurrent clients (each its own bearer token) through the proxy; every
// call reserves and settles, so this is also the ledger's rate. On PGlite
// (a fresh data folder) and, when REVERIE_TEST_DATABASE_URL or DATABASE_URL
// is set, on that PostgreSQL. The load generator shares the 2 cores with the
// server, so the throughput is a floor.
//
//   npm run bench -- proxy                   (N=400, M=3000, C=16)
//   REVERIE_BENCH_REUSE_BUILD=1 N=200 npm run bench -- proxy
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitUp } from "./app-server.mjs";
import { startFakeUpstream } from "./fake-upstream.mjs";

const N = Number(process.env.N ?? 400);
const M = Number(process.env.M ?? 3000);
const C = Number(process.env.C ?? 16);
const WARMUP = 100;
const TARGET = { addedP50Ms: 5, addedP99Ms: 20, rps: 500 };
const PG_URL = process.env.REVERIE_TEST_DATABASE_URL || process.env.DATABASE_URL || "";
const TOKENS = Array.from({ length: C }, (_, i) => `bench-client-${i}-${"t".repeat(16)}`);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

if (!(process.env.REVERIE_BENCH_REUSE_BUILD === "1" && existsSync(".next/BUILD_ID"))) {
  console.log("building the app…");
  const b = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: ["ignore", "ignore", "inherit"], env });
  if (b.status !== 0) process.exit(1);
}

/** The built app with the proxy pointed at `upstream`; PGlite under `cwd` unless `databaseUrl`. */
async function serveProxy(upstream, databaseUrl, cwd) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(process.cwd(), "scripts/start.mjs")], {
    cwd,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      LLM_PROXY_UPSTREAM_URL: upstream.url,
      LLM_PROXY_API_KEY: "fake-key-bench-not-a-real-key",
      LLM_PROXY_MODELS: "bench",
      LLM_PROXY_PRICES: JSON.stringify({ bench: { input: 0.15, output: 0.6 } }),
      // Far above what the run spends: the bench measures the ledger's work, not its refusals.
      LLM_PROXY_CAP_DAY_USD: "100000",
      LLM_PROXY_CLIENT_CAP_HOUR_USD: "10000",
      LLM_PROXY_CLIENT_CAP_DAY_USD: "10000",
      LLM_PROXY_REQUEST_CAP_USD: "1",
      LLM_PROXY_TOKENS: TOKENS.join(","),
    },
  });
  const base = `http://127.0.0.1:${port}`;
  await waitUp(`${base}/`, child);
  return { child, url: `${base}/api/llm/v1` };
}

const body = (stream) => JSON.stringify({ model: "bench", stream, max_tokens: 64, messages: [{ role: "system", content: "You answer briefly." }, { role: "user", content: "How far is the moon?" }] });

async function call(baseUrl, stream, token) {
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: body(stream),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
  if (!text.includes('"usage"')) throw new Error("no usage in the answer");
}

/** A request that does no proxy work at either end: the upstream's 404 and the app's JSON 404 for an unknown /api/llm path. */
async function bare(url) {
  const res = await fetch(url);
  await res.text();
  if (res.status !== 404) throw new Error(`expected 404 from ${url}, got ${res.status}`);
}

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
const round = (x) => Math.round(x * 100) / 100;

async function latency(directUrl, proxyUrl, stream) {
  const viaDirect = stream === "bare" ? () => bare(`${directUrl}/nothing`) : () => call(directUrl, stream, TOKENS[0]);
  const viaProxy = stream === "bare" ? () => bare(`${proxyUrl}/nothing`) : (i) => call(proxyUrl, stream, TOKENS[i % TOKENS.length]);
  for (let i = 0; i < WARMUP; i++) {
    await viaDirect();
    await viaProxy(i);
  }
  const direct = [];
  const proxied = [];
  for (let i = 0; i < N; i++) {
    let t = performance.now();
    await viaDirect();
    direct.push(performance.now() - t);
    t = performance.now();
    await viaProxy(i);
    proxied.push(performance.now() - t);
  }
  direct.sort((a, b) => a - b);
  proxied.sort((a, b) => a - b);
  const d50 = pct(direct, 50), d99 = pct(direct, 99), p50 = pct(proxied, 50), p99 = pct(proxied, 99);
  return { direct_p50_ms: round(d50), direct_p99_ms: round(d99), proxy_p50_ms: round(p50), proxy_p99_ms: round(p99), added_p50_ms: round(p50 - d50), added_p99_ms: round(p99 - d99) };
}

async function throughput(baseUrl, stream) {
  const one = stream === "bare" ? () => bare(`${baseUrl}/nothing`) : (token) => call(baseUrl, stream, token);
  let next = 0;
  let failed = 0;
  let firstError = "";
  const t0 = performance.now();
  await Promise.all(
    TOKENS.map(async (token) => {
      while (next < M) {
        next++;
        await one(token).catch((e) => {
          failed++;
          firstError ||= e.message;
        });
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  return { requests: M, concurrency: C, failed, rps: Math.round(M / s), ...(firstError && { first_error: firstError }) };
}

const engines = [{ name: "pglite", url: "" }, ...(PG_URL ? [{ name: "postgres", url: PG_URL }] : [])];
if (!PG_URL) console.log("(PostgreSQL skipped: set REVERIE_TEST_DATABASE_URL or DATABASE_URL to measure it too)");
const results = {};
const upstream = await startFakeUpstream();
try {
  for (const engine of engines) {
    // A fresh working folder, so PGlite's .data/ is this run's alone.
    const cwd = mkdtempSync(join(tmpdir(), "reverie-bench-proxy-"));
    const app = await serveProxy(upstream, engine.url, cwd);
    try {
      const r = {
        // What `next start` costs before the proxy does anything: the floor under the figures below.
        next_alone: await latency(upstream.url, app.url, "bare"),
        nonstream: await latency(upstream.url, app.url, false),
        stream: await latency(upstream.url, app.url, true),
        throughput_nonstream: await throughput(app.url, false),
        throughput_direct: await throughput(upstream.url, false),
        throughput_stream: await throughput(app.url, true),
        throughput_next_alone: await throughput(app.url, "bare"),
      };
      results[engine.name] = r;
    } finally {
      app.child.kill("SIGTERM");
      await new Promise((r) => app.child.once("exit", r));
      rmSync(cwd, { recursive: true, force: true });
    }
  }
} finally {
  await upstream.close();
}

const rows = [["engine", "call", "direct p50", "proxy p50", "added p50", "added p99", "vs target p50/p99", "proxy req/s (C=" + C + ")", "direct req/s", "vs 500 req/s"]];
for (const [name, r] of Object.entries(results)) {
  const b = r.next_alone;
  rows.push([name, "next alone", `${b.direct_p50_ms} ms`, `${b.proxy_p50_ms} ms`, `${b.added_p50_ms} ms`, `${b.added_p99_ms} ms`, "", String(r.throughput_next_alone.rps), "", ""]);
  for (const mode of ["nonstream", "stream"]) {
    const l = r[mode];
    const t = mode === "stream" ? r.throughput_stream : r.throughput_nonstream;
    rows.push([
      name,
      mode,
      `${l.direct_p50_ms} ms`,
      `${l.proxy_p50_ms} ms`,
      `${l.added_p50_ms} ms`,
      `${l.added_p99_ms} ms`,
      `${round(l.added_p50_ms / TARGET.addedP50Ms)}× / ${round(l.added_p99_ms / TARGET.addedP99Ms)}×`,
      `${t.rps}${t.failed ? ` (${t.failed} failed)` : ""}`,
      mode === "nonstream" ? String(r.throughput_direct.rps) : "",
      `${round(t.rps / TARGET.rps)}×`,
    ]);
  }
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join("  "));
console.log(`\n"next alone": a JSON 404 from an unknown /api/llm path, against the upstream's own 404 (the server's floor, no proxy work).`);
console.log(`added latency: targets under ${TARGET.addedP50Ms} ms p50 and ${TARGET.addedP99Ms} ms p99 (ratio < 1 meets it); throughput: target ${TARGET.rps} req/s (ratio > 1 meets it). N=${N} sequential calls per mode, M=${M} calls for throughput.`);
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/proxy.json", `${JSON.stringify({ n: N, m: M, concurrency: C, target: TARGET, results }, null, 2)}\n`);
console.log("wrote bench/results/proxy.json");
