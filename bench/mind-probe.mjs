#!/usr/bin/env node
/* global indexedDB */
// Where bench/mind's time goes (not a benchmark of its own: run it by hand,
// after a build, under the build lock):
//   flock /tmp/reverie-e2e.lock node bench/mind-probe.mjs
// A fresh mind on the instant model, 100 iterations a run; then windows of
// model calls with the mind's page showing the live stream and with the page
// on the list of minds; raw costs inside the mind's worker (an IndexedDB
// add, a fetch of the instant model); and a CPU profile of the worker,
// summed by function (self time) and by file.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { chromium } from "playwright-core";
import { startInstantModel } from "./mind-model.mjs";
import { stats } from "./mind-trajectory.mjs";
import { summarize, workerProfiler } from "./mind-profile.mjs";

const WINDOW = Number(process.env.WINDOW ?? 200);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const port = await new Promise((resolve) => {
  const s = createServer();
  s.listen(0, "127.0.0.1", () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const app = spawn(process.execPath, ["scripts/start.mjs"], { env: { ...env, PORT: String(port) }, stdio: "ignore" });
const base = `http://localhost:${port}`;
const model = await startInstantModel();
let browser;

/** Median gap between consecutive calls (answer sent → next call), over the next `n` calls. */
async function window(n) {
  const from = model.calls.length;
  while (model.calls.length < from + n + 1) await sleep(100);
  const cs = model.calls.slice(from, from + n + 1);
  return stats(cs.slice(1).map((c, i) => c.at - cs[i].sent));
}

try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(base)).ok) break;
    } catch {
      // not up yet
    }
    if (i > 240) throw new Error("the app did not start");
    await sleep(250);
  }
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const workerReady = page.waitForEvent("worker");
  await page.goto(base);
  await page.getByTestId("new-mind-name").fill("Probe");
  await page.getByTestId("new-mind-persona").fill("A mind that is probed.");
  await page.getByTestId("model-provider").selectOption("openai-compatible");
  await page.getByTestId("model-base-url").fill(model.url);
  await page.getByTestId("model-name").fill("instant");
  await page.getByTestId("model-api-key").fill("probe-key");
  await page.getByTestId("create-mind").click();
  await page.waitForURL(/\/mind\/[0-9a-f-]{36}$/);
  const mindUrl = page.url();
  const worker = await workerReady;
  while (model.calls.length < 10) await sleep(100);
  await page.getByTestId("mind-settings").click();
  await page.getByTestId("settings-max_iterations").fill("100");
  await page.getByTestId("settings-base_s").fill("0.05");
  await page.getByTestId("settings-cap_s").fill("0.05");
  await page.getByTestId("settings-save").click();
  await page.getByText("Saved; the change is recorded").waitFor();
  await page.getByTestId("mind-settings").click();
  await window(50); // warm-up

  const out = {};
  // The page's main thread while the mind view shows the live stream: its task time per iteration.
  const pageCdp = await context.newCDPSession(page);
  await pageCdp.send("Performance.enable");
  const taskS = async () => (await pageCdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "TaskDuration").value;
  const before = await taskS();
  out.mind_view = await window(WINDOW);
  out.mind_view.page_main_thread_ms_per_iter = Math.round((((await taskS()) - before) * 1000 * 100) / WINDOW) / 100;
  console.log("mind view open       ", out.mind_view);
  await pageCdp.send("Profiler.enable");
  await pageCdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await pageCdp.send("Profiler.start");
  out.mind_view_profiled = await window(WINDOW);
  summarize("page", (await pageCdp.send("Profiler.stop")).profile, WINDOW);
  console.log("page profiled        ", out.mind_view_profiled);
  await page.getByRole("link", { name: "← minds" }).click();
  await page.getByTestId("mind-list").waitFor();
  await window(30);
  out.list_view = await window(WINDOW);
  console.log("list of minds open   ", out.list_view);

  // Raw costs in the worker, while the mind runs beside them.
  out.in_worker = await worker.evaluate(async (url) => {
    const q = (xs) => {
      xs.sort((a, b) => a - b);
      return { median: xs[Math.floor(xs.length / 2)], p90: xs[Math.floor(xs.length * 0.9)] };
    };
    const db = await new Promise((resolve, reject) => {
      const r = indexedDB.open("mind-probe", 1);
      r.onupgradeneeded = () => r.result.createObjectStore("s", { autoIncrement: true });
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const add = (durability) =>
      new Promise((resolve, reject) => {
        const tx = db.transaction("s", "readwrite", { durability });
        tx.objectStore("s").add({ json: "x".repeat(400) });
        tx.oncomplete = resolve;
        tx.onerror = () => reject(tx.error);
      });
    const time = async (n, fn) => {
      const ms = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await fn();
        ms.push(performance.now() - t);
      }
      return q(ms);
    };
    const body = JSON.stringify({ model: "instant", messages: [{ role: "user", content: "probe" }], stream: true, stream_options: { include_usage: true } });
    return {
      idb_add_default: await time(50, () => add("default")),
      idb_add_relaxed: await time(50, () => add("relaxed")),
      idb_add_strict: await time(20, () => add("strict")),
      fetch_instant_model: await time(50, async () => {
        const r = await fetch(`${url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer x" }, body });
        await r.text();
      }),
    };
  }, model.url);
  // The probe's own fetches are calls too: they show up as one odd gap each, below the median.
  console.log("in the worker        ", out.in_worker);

  // A CPU profile of the worker over a window (the page on the list of minds).
  const profiler = await workerProfiler(context, page);
  await profiler.start();
  const profiled = await window(WINDOW);
  const profile = await profiler.stop();
  console.log("while profiled       ", profiled);
  summarize("worker", profile, WINDOW);

  // The floor with the mind stopped: a bare fetch of the instant model (from the page: a stopped mind's worker is gone).
  await page.goto(mindUrl);
  await page.getByTestId("mind-stop").click();
  await page.getByTestId("mind-status").filter({ hasText: "stopped" }).waitFor({ timeout: 30_000 });
  out.fetch_idle = await page.evaluate(async (url) => {
    const body = JSON.stringify({ model: "instant", messages: [{ role: "user", content: "probe" }], stream: true, stream_options: { include_usage: true } });
    const ms = [];
    for (let i = 0; i < 60; i++) {
      const t = performance.now();
      const r = await fetch(`${url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer x" }, body });
      await r.text();
      ms.push(performance.now() - t);
    }
    ms.sort((a, b) => a - b);
    return { median: ms[30], p90: ms[54] };
  }, model.url);
  console.log("fetch, mind stopped  ", out.fetch_idle);
  writeFileSync("bench/results/mind-probe.json", `${JSON.stringify(out, null, 2)}\n`);
} finally {
  await browser?.close();
  await model.close();
  app.kill("SIGTERM");
}
