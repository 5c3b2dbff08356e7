#!/usr/bin/env node
// Benchmark: one live share link followed by V concurrent viewers (server-sent
// events on loopback) while its mind appends steps at a steady rate, through
// the real server (`next start`, as `npm start` serves it). Delivery latency
// is measured per viewer and step, from the start of the upload request that
// appends the step to the moment that viewer receives it; server memory is
// the VmRSS of the server's processes before the viewers connect, with them
// connected, and after they leave. On PGlite (a fresh data folder) and, when
// REVERIE_TEST_DATABASE_URL or DATABASE_URL is set, on a fresh database of
// that PostgreSQL server; there also with two server instances on the same
// database (viewers alternate between them, steps are uploaded through the
// first), so half the deliveries cross instances by LISTEN/NOTIFY. The viewers
// and the uploader share the machine's cores with the servers, so the latency
// is an upper bound.
//
//   flock /tmp/reverie-e2e.lock npm run bench -- share        (V=200, S=100 steps at R=10/s)
//   REVERIE_BENCH_REUSE_BUILD=1 V=50 npm run bench -- share
import { spawn, spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitUp } from "./app-server.mjs";
import { admin } from "./pg-admin.mjs";

const V = Number(process.env.V ?? 200);
const S = Number(process.env.S ?? 100);
const R = Number(process.env.R ?? 10);
const TARGET = { p99Ms: 1000 };
const PG_URL = process.env.REVERIE_TEST_DATABASE_URL || process.env.DATABASE_URL || "";
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

if (!(process.env.REVERIE_BENCH_REUSE_BUILD === "1" && existsSync(".next/BUILD_ID"))) {
  console.log("building the app…");
  const b = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: ["ignore", "ignore", "inherit"], env });
  if (b.status !== 0) process.exit(1);
}

async function serve(databaseUrl, cwd) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(process.cwd(), "scripts/start.mjs")], { cwd, stdio: ["ignore", "ignore", "inherit"], env: { ...env, PORT: String(port), DATABASE_URL: databaseUrl } });
  const base = `http://127.0.0.1:${port}`;
  await waitUp(`${base}/`, child);
  return { child, base, port };
}

/** The server's processes: `npm start`'s launcher and everything below it. */
function tree(pid) {
  const out = [pid];
  for (const task of safe(() => readdirSync(`/proc/${pid}/task`), [])) {
    for (const c of safe(() => readFileSync(`/proc/${pid}/task/${task}/children`, "utf8"), "").split(/\s+/).filter(Boolean)) out.push(...tree(Number(c)));
  }
  return out;
}
function safe(f, fallback) {
  try {
    return f();
  } catch {
    return fallback;
  }
}
/** VmRSS in MiB, summed over the server's processes, and that of the largest one (the Next server itself). */
function rss(pid) {
  const each = tree(pid).map((p) => Number(/VmRSS:\s+(\d+) kB/.exec(safe(() => readFileSync(`/proc/${p}/status`, "utf8"), ""))?.[1] ?? 0) / 1024);
  return { total_mib: round(each.reduce((a, b) => a + b, 0)), server_mib: round(Math.max(0, ...each)) };
}

async function api(base, method, path, token, body) {
  const res = await fetch(`${base}${path}`, { method, headers: { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) }, body: body && JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

const stepJson = (n) => JSON.stringify({ type: "thought", step_id: randomUUID(), ts: new Date().toISOString(), source: "bench", content: `thought number ${n}: ${"lorem ipsum ".repeat(20)}` });

/** One viewer: an SSE connection that records when each step's event arrives. */
function viewer(url, onStep) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { accept: "text/event-stream" } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`events: HTTP ${res.statusCode}`));
      res.setEncoding("utf8");
      let buffer = "";
      let opened = false;
      res.on("data", (chunk) => {
        const at = performance.now();
        buffer += chunk;
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (!opened) {
            opened = true;
            resolve({ close: () => req.destroy() });
          }
          if (block.startsWith("event: step\n")) onStep(Number(/\nid: (\d+)/.exec(block)[1]), at);
        }
      });
      res.on("error", () => {});
    });
    req.on("error", reject);
  });
}

function pct(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : NaN;
}
function round(x) {
  return Math.round(x * 100) / 100;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Uploads through servers[0]; viewer v follows through servers[v % servers.length]. */
async function run(servers) {
  const base = servers[0].base;
  const pid = servers[0].child.pid;
  const { mind, write_token: token } = await api(base, "POST", "/api/sync/minds", undefined, { name: "bench" });
  let seq = 0;
  const append = async () => {
    const n = ++seq;
    const t = performance.now();
    await api(base, "POST", `/api/sync/minds/${mind}/steps`, token, { after: n - 1, steps: [{ seq: n, traj: "root", json: stepJson(n) }] });
    return t;
  };
  // Warm the routes (first requests load their code) before anything is measured.
  for (let i = 0; i < 20; i++) await append();
  const link = await api(base, "POST", `/api/sync/minds/${mind}/links`, token, { kind: "live" });
  const warm = await Promise.all(servers.map((s) => viewer(`${s.base}/api/share/${link.token}/events?after=${seq}`, () => {})));
  await sleep(500);
  for (const w of warm) w.close();
  await sleep(500);
  const rssBefore = rss(pid);

  const sentAt = new Map();
  const latencies = [];
  // Deliveries to viewers of another instance than the one that took the upload.
  const crossed = [];
  const counted = new Map();
  const onStep = (v) => (n, at) => {
    const t = sentAt.get(n);
    if (t === undefined) return;
    const key = `${v}:${n}`;
    if (counted.has(key)) return;
    counted.set(key, true);
    latencies.push(at - t);
    if (v % servers.length !== 0) crossed.push(at - t);
  };
  const from = seq;
  const t0 = performance.now();
  const viewers = await Promise.all(Array.from({ length: V }, (_, v) => viewer(`${servers[v % servers.length].base}/api/share/${link.token}/events?after=${from}`, onStep(v))));
  const connectS = (performance.now() - t0) / 1000;
  await sleep(1000);
  const rssConnected = rss(pid);

  const interval = 1000 / R;
  const start = performance.now();
  for (let i = 0; i < S; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const n = seq + 1;
    // Recorded before the request is sent: the latency includes the upload itself.
    sentAt.set(n, performance.now());
    await append();
  }
  const expected = S * V;
  const deadline = performance.now() + 10_000;
  while (latencies.length < expected && performance.now() < deadline) await sleep(50);
  const rssPeak = rss(pid);
  for (const v of viewers) v.close();
  await sleep(3000);
  const rssAfter = rss(pid);
  latencies.sort((a, b) => a - b);
  crossed.sort((a, b) => a - b);
  return {
    instances: servers.length,
    viewers: V,
    steps: S,
    rate_per_s: R,
    connect_all_s: round(connectS),
    delivered: latencies.length,
    expected,
    p50_ms: round(pct(latencies, 50)),
    p99_ms: round(pct(latencies, 99)),
    max_ms: round(latencies.at(-1) ?? NaN),
    ...(servers.length > 1 && { cross_instance: { delivered: crossed.length, p50_ms: round(pct(crossed, 50)), p99_ms: round(pct(crossed, 99)), max_ms: round(crossed.at(-1) ?? NaN) } }),
    rss_mib: { before: rssBefore, connected: rssConnected, after_appends: rssPeak, after_close: rssAfter },
  };
}


const engines = [{ name: "pglite", instances: 1 }, ...(PG_URL ? [{ name: "postgres", instances: 1 }, { name: "postgres ×2", instances: 2 }] : [])];
if (!PG_URL) console.log("(PostgreSQL skipped: set REVERIE_TEST_DATABASE_URL or DATABASE_URL to measure it too)");
const results = {};
for (const engine of engines) {
  const cwd = mkdtempSync(join(tmpdir(), "reverie-bench-share-"));
  let databaseUrl = "";
  let drop = async () => {};
  if (engine.name.startsWith("postgres")) {
    // A database of its own, dropped afterwards, so the run sees no one else's rows.
    const name = `reverie_bench_${randomBytes(6).toString("hex")}`;
    await admin(PG_URL, `CREATE DATABASE ${name}`);
    const u = new URL(PG_URL);
    u.pathname = `/${name}`;
    databaseUrl = u.toString();
    drop = () => admin(PG_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  const servers = [];
  try {
    for (let i = 0; i < engine.instances; i++) servers.push(await serve(databaseUrl, cwd));
    results[engine.name] = await run(servers);
  } finally {
    for (const s of servers) {
      s.child.kill("SIGTERM");
      await new Promise((r) => s.child.once("exit", r));
    }
    rmSync(cwd, { recursive: true, force: true });
    await drop();
  }
}

const rows = [["engine", "viewers", "delivered", "p50", "p99", "max", "p99 vs 1 s", "RSS before", "RSS 200 connected", "RSS after appends", "RSS after close"]];
for (const [name, r] of Object.entries(results)) {
  const m = (x) => `${x.server_mib} MiB`;
  rows.push([name, String(r.viewers), `${r.delivered}/${r.expected}`, `${r.p50_ms} ms`, `${r.p99_ms} ms`, `${r.max_ms} ms`, `${round(r.p99_ms / TARGET.p99Ms)}×`, m(r.rss_mib.before), m(r.rss_mib.connected), m(r.rss_mib.after_appends), m(r.rss_mib.after_close)]);
}
rows[0][8] = `RSS ${V} connected`;
for (const [name, r] of Object.entries(results)) {
  const c = r.cross_instance;
  if (c) rows.push([`${name}, other instance`, String(r.viewers / 2), String(c.delivered), `${c.p50_ms} ms`, `${c.p99_ms} ms`, `${c.max_ms} ms`, `${round(c.p99_ms / TARGET.p99Ms)}×`, "", "", "", ""]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join("  "));
console.log(`\nlatency: from the start of each step's upload request to its receipt by each viewer, ${S} steps at ${R}/s to ${V} viewers of one live link; target p99 under ${TARGET.p99Ms} ms (ratio < 1 meets it).`);
console.log("RSS: VmRSS of the Next server process that takes the uploads (the largest of its npm start's processes; totals in the JSON).");
if (PG_URL) console.log(`"postgres ×2": two servers on one database, viewers alternating between them, uploads through the first; "other instance" rows are the deliveries that crossed by LISTEN/NOTIFY.`);
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/share.json", `${JSON.stringify({ viewers: V, steps: S, rate_per_s: R, target: TARGET, results }, null, 2)}\n`);
console.log("wrote bench/results/share.json");
