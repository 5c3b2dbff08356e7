#!/usr/bin/env node
/* global document */
// Why a fresh mind's windows in bench/mind are slower than at 10k steps (not
// a benchmark of its own: run it by hand, after a build, under the build lock):
//   flock /tmp/reverie-e2e.lock node bench/mind-fresh.mjs
// A fresh mind on the instant model, 100 iterations a run, as bench/mind makes
// it; then, with no DevTools client attached, PHASE calls (800) of each: the
// stream shown, the page on the list, and the stream shown again after a
// second settings change (a restart at an older log). Prints, run by run, the
// median time between calls at the model server, the block's exec, the calls
// that were not a run's (the summarizer's), and each phase's CPU per call.
import { loadavg } from "node:os";
import { startApp, waitUp } from "./app-server.mjs";
import { startDetachableChromium } from "./detached-chromium.mjs";
import { modelOptionsFromEnv, startInstantModel } from "./mind-model.mjs";
import { gaps, joinCalls, readTarGz, rootSteps, stats } from "./mind-trajectory.mjs";
import { byKind, cpuPerIteration, cpuSnapshot } from "./proc-cpu.mjs";

const PHASE = Number(process.env.PHASE ?? 800);
const SEGMENT = Number(process.env.SEGMENT ?? 100);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const { app, base } = await startApp(env);
const model = await startInstantModel(modelOptionsFromEnv());
let chrome;
try {
  await waitUp(base, app);
  chrome = await startDetachableChromium();
  let { page } = await chrome.attach();
  await page.goto(base);
  await page.getByTestId("new-mind-name").fill("Fresh");
  await page.getByTestId("new-mind-persona").fill("A mind that runs a benchmark.");
  await page.getByTestId("model-provider").selectOption("openai-compatible");
  await page.getByTestId("model-base-url").fill(model.url);
  await page.getByTestId("model-name").fill("instant");
  await page.getByTestId("model-api-key").fill("bench-key");
  await page.getByTestId("create-mind").click();
  await page.waitForURL(/\/mind\/[0-9a-f-]{36}$/);
  const calls = async (n) => {
    while (model.calls.length < n) await sleep(100);
  };
  await calls(10);
  const settings = async (iterations) => {
    await page.getByTestId("mind-settings").click();
    await page.getByTestId("settings-max_iterations").fill(String(iterations));
    await page.getByTestId("settings-base_s").fill("0.05");
    await page.getByTestId("settings-cap_s").fill("0.05");
    await page.getByTestId("settings-save").click();
    await page.getByText("Saved; the change is recorded").waitFor();
    await page.getByTestId("mind-settings").click();
  };
  const phases = [];
  const phase = async (name) => {
    await chrome.detach();
    const from = model.calls.length;
    const before = cpuSnapshot();
    const load = loadavg()[0];
    // CPU by thread for every SEGMENT calls: what settles down as the mind warms up (JIT, heap) shows here.
    const segments = [];
    let at = { n: from, snap: before };
    while (model.calls.length < from + PHASE) {
      await sleep(20);
      const n = model.calls.length;
      if (n - at.n < SEGMENT) continue;
      const snap = cpuSnapshot();
      segments.push({ from: at.n, to: n, rows: cpuPerIteration(at.snap, snap, n - at.n) });
      at = { n, snap };
    }
    phases.push({ name, from, to: model.calls.length, load, segments, cpu: byKind(cpuPerIteration(before, cpuSnapshot(), model.calls.length - from)) });
    ({ page } = await chrome.attach());
  };
  await settings(100);
  await phase("stream, after the first settings change");
  await page.getByRole("link", { name: "← minds" }).click();
  await page.getByTestId("mind-list").waitFor();
  await phase("list");
  await page.getByTestId("mind-list").getByRole("link").first().click();
  await page.waitForURL(/\/mind\//);
  await page.waitForFunction(() => /^\d+ steps?$/.test(document.querySelector('[data-testid="step-count"]')?.textContent?.trim() ?? ""), null, { timeout: 120_000 });
  await phase("stream, the page opened again");
  await settings(99);
  await phase("stream, after a second settings change");
  await page.getByTestId("mind-stop").click();
  await page.getByTestId("mind-status").filter({ hasText: "stopped" }).waitFor({ timeout: 30_000 });
  const trajectory = rootSteps(readTarGz(await chrome.download(() => page.getByTestId("export-mind").click())));
  const rows = joinCalls(trajectory, model.calls);
  const all = gaps(rows);
  for (const p of phases) {
    console.log(`\n${p.name} (calls ${p.from}–${p.to}, load ${p.load.toFixed(1)}): CPU ms per call ${Object.entries(p.cpu).map(([k, v]) => `${k} ${v.run.toFixed(2)}`).join(", ")}`);
    const thread = (rows, key) => (rows.find((r) => r.key === key)?.run ?? 0).toFixed(2).padStart(5);
    for (const sg of p.segments) {
      const between = all.filter((g) => g.n > sg.from && g.n <= sg.to).map((g) => g.callToCallMs);
      console.log(
        `  calls ${sg.from}–${sg.to}: median ${stats(between).median.toFixed(1).padStart(5)} ms; CPU ms per call: worker ${thread(sg.rows, "renderer:DedicatedWorker")}, renderer pool ${thread(sg.rows, "renderer:ThreadPoolForeg")}, page ${thread(sg.rows, "renderer:chromium")}, browser pool ${thread(sg.rows, "browser:ThreadPoolForeg")}, all ${sg.rows.reduce((t, r) => t + r.run, 0).toFixed(2)}`,
      );
    }
    const inPhase = all.filter((g) => g.n > p.from && g.n <= p.to);
    const runs = [...new Set(inPhase.map((g) => g.runId))];
    for (const run of runs) {
      const gs = inPhase.filter((g) => g.runId === run);
      const ns = gs.map((g) => g.n);
      const others = rows.filter((r) => r.history === null && r.n >= Math.min(...ns) - 3 && r.n <= Math.max(...ns) + 1).length;
      const half = Math.floor(gs.length / 2);
      const med = (xs) => stats(xs).median.toFixed(1).padStart(5);
      console.log(
        `  run ${run.slice(0, 8)} from step ${String(gs[0]?.history ?? "?").padStart(5)}: ${String(gs.length).padStart(3)} gaps, median ${med(gs.map((g) => g.callToCallMs))} ms (first half ${med(gs.slice(0, half).map((g) => g.callToCallMs))}, second ${med(gs.slice(half).map((g) => g.callToCallMs))}), exec ${med(gs.flatMap((g) => (g.execMs === null ? [] : [g.execMs])))} ms, other calls near it ${others}`,
      );
    }
  }
  console.log(`\nload average at the end: ${loadavg().map((l) => l.toFixed(1)).join(", ")}`);
} finally {
  await chrome?.close();
  await model.close();
  app.kill("SIGTERM");
}
