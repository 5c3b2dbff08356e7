#!/usr/bin/env node
/* global document, indexedDB, IDBKeyRange */
// Benchmark: the mind's own time per iteration, in Chromium, against an
// instant scripted model (bench/mind-model.mjs). Measured at the model's end:
// from the answer to one call being sent until the next call of the same run
// arrives, minus the exec_s of the block run in between (read from the mind's
// exported trajectory). At two sizes of history: a fresh mind (its first
// 100-iteration runs, ≈100 steps in) and one the instant model has let run to
// 10,000 steps; each with the mind's page showing the live stream and with the
// page on the list of minds. The measured windows run with no DevTools client
// attached (bench/detached-chromium.mjs); one more window at 10k runs attached,
// as the e2e tests do, to show what that costs. Then the floor: Chromium's own
// round trip for a call of that size from a bare worker (bench/fetch-floor.mjs).
// Prints median and p90 with ratios to the target (5 ms) and to Headlong
// (970 ms), and writes bench/results/mind.json.
//
//   npm run bench -- mind               (STEPS=10000 of history, MEASURE=300 iterations there)
//   REVERIE_BENCH_REUSE_BUILD=1 npm run bench -- mind
//   PROFILE=1 npm run bench -- mind     (then CPU profiles of the worker at that size, stream shown and page on the list, after the measured windows; and of the page itself while it shows the stream)
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { startDetachableChromium } from "./detached-chromium.mjs";
import { STARTED as FLOOR_STARTED, startFetchFloor } from "./fetch-floor.mjs";
import { startInstantModel } from "./mind-model.mjs";
import { gaps, joinCalls, readTarGz, rootSteps, stats } from "./mind-trajectory.mjs";
import { startApp, waitUp } from "./app-server.mjs";
import { pageProfiler, summarize, workerProfiler } from "./mind-profile.mjs";

const STEPS = Number(process.env.STEPS ?? 10_000);
const MEASURE = Number(process.env.MEASURE ?? 300);
const PROFILE = process.env.PROFILE === "1";
const ITERATIONS = 100;
const TARGET_MS = 5;
const HEADLONG_MS = 970;
/** Bare calls timed for the fetch floor. */
const FLOOR_CALLS = 300;
/** The issue's second target: 200 times less than Headlong's time between model calls. */
const VS_HEADLONG = 200;
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };


const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(what, check, timeoutMs) {
  const t0 = performance.now();
  while (!(await check())) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

const { app, base } = await startApp(env);
// The machine's load, before and after: these figures are only comparable under like loads.
const loadBefore = loadavg().map((l) => Math.round(l * 100) / 100);
const model = await startInstantModel();
let chrome;
try {
  await waitUp(base, app);
  chrome = await startDetachableChromium();
  let { context, page } = await chrome.attach();

  // A new mind on the instant model, as a person makes one.
  await page.goto(base);
  await page.getByTestId("new-mind-name").fill("Bench");
  await page.getByTestId("new-mind-persona").fill("A mind that runs a benchmark.");
  await page.getByTestId("model-provider").selectOption("openai-compatible");
  await page.getByTestId("model-base-url").fill(model.url);
  await page.getByTestId("model-name").fill("instant");
  await page.getByTestId("model-api-key").fill("bench-key");
  await page.getByTestId("create-mind").click();
  await page.waitForURL(/\/mind\/[0-9a-f-]{36}$/);
  const mindId = page.url().split("/").at(-1);

  // The root trajectory's size, read straight from IndexedDB (only while filling, not while measuring).
  const stepCount = () =>
    page.evaluate(
      (id) =>
        new Promise((resolve, reject) => {
          const open = indexedDB.open("reverie");
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const db = open.result;
            const req = db.transaction("steps").objectStore("steps").index("[mind_id+traj_id+seq]").count(IDBKeyRange.bound([id, id], [id, id, []]));
            req.onsuccess = () => (db.close(), resolve(req.result));
            req.onerror = () => (db.close(), reject(req.error));
          };
        }),
      mindId,
    );

  // Warm-up: a few default runs; then 100 steps per run and almost no pause between runs.
  await until("the first model calls", () => model.calls.length >= 10, 60_000);
  await page.getByTestId("mind-settings").click();
  await page.getByTestId("settings-max_iterations").fill(String(ITERATIONS));
  await page.getByTestId("settings-base_s").fill("0.05");
  await page.getByTestId("settings-cap_s").fill("0.05");
  await page.getByTestId("settings-save").click();
  await page.getByText("Saved; the change is recorded").waitFor();
  await page.getByTestId("mind-settings").click();
  const calls = (n) => until(`${n} model calls`, () => model.calls.length >= n, 600_000);
  // A measured window runs with Playwright detached (bench/detached-chromium.mjs): the page is left as it is, the mind thinks on, and the model server counts the calls.
  const detached = async (n) => {
    await chrome.detach();
    await calls(n);
    ({ context, page } = await chrome.attach());
  };
  // Each size of history is measured twice: with the mind's page showing the
  // live stream (its main thread renders every step), and with the page on the
  // list of minds (the mind thinks on, unseen). Windows are ranges of calls.
  const windows = {};
  const toList = async () => {
    await page.getByRole("link", { name: "← minds" }).click();
    await page.getByTestId("mind-list").waitFor();
  };
  const toStream = async () => {
    await page.getByTestId("mind-list").getByRole("link").first().click();
    await page.waitForURL(/\/mind\//);
    await page.waitForFunction(() => /^\d+ steps?$/.test(document.querySelector('[data-testid="step-count"]')?.textContent?.trim() ?? ""), null, { timeout: 120_000 });
  };
  console.log(`settings saved after ${model.calls.length} calls; a fresh mind, stream shown…`);
  await detached(model.calls.length + ITERATIONS + 20); // the first 100-iteration run (found in the trajectory below)
  await toList();
  windows.fresh_list = { from: model.calls.length + 5, to: model.calls.length + 5 + ITERATIONS };
  console.log("…page on the list of minds…");
  await detached(windows.fresh_list.to + 1);
  // Profiled windows come after the measured ones: the profiler's own cost stays out of the figures.
  const profiled = async (what, withPage = false) => {
    const profiler = await workerProfiler(context, page);
    const pageSide = withPage ? await pageProfiler(context, page) : null;
    const from = model.calls.length;
    await profiler.start();
    if (withPage) await pageSide.start();
    await calls(from + MEASURE);
    const profile = await profiler.stop();
    const pageProfile = withPage ? await pageSide.stop() : null;
    summarize(what, profile, model.calls.length - from);
    if (pageProfile) summarize(`page-${what.replace(/^worker-/, "")}`, pageProfile, model.calls.length - from);
  };
  if (PROFILE) await profiled("worker-fresh-list");

  // Let the mind itself grow its trajectory to STEPS (the page on the list: faster).
  const fillStart = performance.now();
  const fillCalls = model.calls.length;
  let steps = await stepCount();
  while (steps < STEPS) {
    await sleep(5000);
    steps = await stepCount();
    const s = (performance.now() - fillStart) / 1000;
    console.log(`  ${steps.toLocaleString()} steps, ${model.calls.length.toLocaleString()} model calls, ${((model.calls.length - fillCalls) / s).toFixed(1)} calls/s`);
    if (s > 3600) throw new Error("the trajectory did not reach its size within an hour");
  }
  const fillS = (performance.now() - fillStart) / 1000;
  const fillRate = (model.calls.length - fillCalls) / fillS;
  console.log(`${steps.toLocaleString()} steps; ${MEASURE} iterations with the page on the list…`);
  windows.full_list = { from: model.calls.length, to: model.calls.length + MEASURE + 5 };
  await detached(windows.full_list.to + 1);
  // The same with Playwright attached, as the e2e tests and earlier runs of this bench measured: what DevTools' instrumentation costs.
  console.log(`…${MEASURE} more with DevTools attached…`);
  windows.full_list_devtools = { from: model.calls.length, to: model.calls.length + MEASURE + 5 };
  await calls(windows.full_list_devtools.to + 1);
  console.log(`…and ${MEASURE} with the stream shown`);
  await toStream();
  windows.full_stream = { from: model.calls.length + 10, to: model.calls.length + 10 + MEASURE + 5 };
  await detached(windows.full_stream.to + 1);

  if (PROFILE) {
    await profiled("worker-stream", true);
    await toList();
    await profiled("worker-list");
    await toStream();
  }

  await page.getByTestId("mind-stop").click();
  await page.getByTestId("mind-status").filter({ hasText: "stopped" }).waitFor({ timeout: 30_000 });
  const trajectory = rootSteps(readTarGz(await chrome.download(() => page.getByTestId("export-mind").click())));

  // The floor: Chromium's own round trip for one call of the size the mind sent at 10k steps, with the mind stopped and no DevTools client attached.
  const bodyChars = stats(model.calls.slice(windows.full_list.from, windows.full_list.to).map((c) => c.promptChars)).median;
  const floor = await startFetchFloor();
  const floorPage = await context.newPage();
  await floorPage.goto(floor.url(bodyChars, FLOOR_CALLS));
  await floorPage.waitForFunction((t) => document.title === t, FLOOR_STARTED);
  await chrome.detach();
  const floorMs = stats(await floor.result);
  ({ context, page } = await chrome.attach());
  await floor.close();

  const rows = joinCalls(trajectory, model.calls);
  const unmatched = rows.filter((r) => r.history === null).length;
  const all = gaps(rows);
  // The fresh mind, stream shown: the first full run after the settings' config
  // step (a run the old settings had begun may be cut by the restart).
  const configAt = trajectory.findLastIndex((s) => s.type === "config" && s.max_iterations === ITERATIONS);
  const firstRun = trajectory
    .filter((s, i) => i > configAt && s.type === "shellm-run")
    .map((s) => s.step_id)
    .find((id) => all.filter((g) => g.runId === id).length >= ITERATIONS / 2);
  const inWindow = (w) => (g) => g.n > w.from && g.n <= w.to;
  const measured = {
    fresh_stream: all.filter((g) => g.runId === firstRun),
    fresh_list: all.filter(inWindow(windows.fresh_list)),
    [`steps_${STEPS}_list`]: all.filter((g) => inWindow(windows.full_list)(g) && g.history >= STEPS).slice(0, MEASURE),
    [`steps_${STEPS}_list_devtools`]: all.filter((g) => inWindow(windows.full_list_devtools)(g) && g.history >= STEPS).slice(0, MEASURE),
    [`steps_${STEPS}_stream`]: all.filter((g) => inWindow(windows.full_stream)(g) && g.history >= STEPS).slice(0, MEASURE),
  };
  const ratio = (ms, ref) => Math.round((ref / ms) * 100) / 100;
  const phase = (gs) => {
    const harness = stats(gs.map((g) => g.harnessMs));
    return {
      history: { from: gs[0]?.history ?? null, to: gs.at(-1)?.history ?? null },
      iterations: gs.length,
      harness_ms: harness,
      call_to_call_ms: stats(gs.map((g) => g.callToCallMs)),
      exec_ms: stats(gs.map((g) => g.execMs)),
      ratio_to_target: ratio(harness.median, TARGET_MS),
      ratio_to_headlong: ratio(harness.median, HEADLONG_MS),
    };
  };
  const result = {
    ...Object.fromEntries(Object.entries(measured).map(([k, gs]) => [k, phase(gs)])),
    fill: { steps, seconds: Math.round(fillS), calls_per_s: Math.round(fillRate * 10) / 10, page: "list of minds" },
    fetch_floor: { body_chars: bodyChars, round_trip_ms: floorMs, page: "a bare worker, the mind stopped, no DevTools client" },
    model_calls: model.calls.length,
    calls_not_in_trajectory: unmatched,
    preflights: model.preflights,
    targets: { harness_median_ms: TARGET_MS, vs_headlong: VS_HEADLONG },
    headlong_ms: HEADLONG_MS,
    load_average: { before: loadBefore, after: loadavg().map((l) => Math.round(l * 100) / 100) },
    when: new Date().toISOString(),
  };

  const cell = (v, w) => String(v).padStart(w);
  console.log(`\nharness time per iteration: ms from a model answer to the run's next call, minus the block's exec_s (ratio > 1 is better than target)`);
  console.log(`${"history (steps)".padEnd(16)}${"page".padEnd(8)}${cell("iters", 6)}${cell("median", 8)}${cell("p90", 8)}${cell("target", 8)}${cell("ratio", 7)}${cell("vs Headlong", 12)}${cell("target", 8)}${cell("call→call", 10)}${cell("exec", 6)}`);
  for (const [key, p] of Object.entries(result).filter(([k]) => k in measured)) {
    const h = p.history.from === null ? "n/a" : `${p.history.from.toLocaleString()}–${p.history.to.toLocaleString()}`;
    console.log(
      `${h.padEnd(16)}${(key.endsWith("stream") ? "stream" : key.endsWith("devtools") ? "list+dt" : "list").padEnd(8)}${cell(p.iterations, 6)}${cell(p.harness_ms.median.toFixed(1), 8)}${cell(p.harness_ms.p90.toFixed(1), 8)}${cell(`< ${TARGET_MS}`, 8)}${cell(`${p.ratio_to_target.toFixed(2)}×`, 7)}${cell(`${p.ratio_to_headlong.toFixed(0)}×`, 12)}${cell(`≥ ${VS_HEADLONG}×`, 8)}${cell(p.call_to_call_ms.median.toFixed(1), 10)}${cell(p.exec_ms.median, 6)}`,
    );
  }
  console.log(`page: "stream" = the mind's page showing the live stream; "list" = the page on the list of minds; both with no DevTools client attached`);
  console.log(`"list+dt" = the list again with Playwright attached (DevTools' Network domain on, reporting each request's body), as in the e2e tests`);
  const overFloor = (key) => (result[key].harness_ms.median - floorMs.median).toFixed(1);
  console.log(
    `Chromium's own round trip for one such call (a bare fetch of a ${Math.round(bodyChars / 1000)} KB body from a worker to another origin, the answer read whole, the mind stopped): median ${floorMs.median}, p90 ${floorMs.p90} ms; ` +
      `the harness's medians above that floor: ${overFloor(`steps_${STEPS}_list`)} ms (list), ${overFloor(`steps_${STEPS}_stream`)} ms (stream) at ${STEPS.toLocaleString()} steps`,
  );
  console.log(`load average (1, 5, 15 min): ${result.load_average.before.join(", ")} at the start, ${result.load_average.after.join(", ")} at the end`);
  console.log(`filling to ${steps.toLocaleString()} steps took ${Math.round(fillS)} s (${result.fill.calls_per_s} model calls/s)`);
  if (unmatched) console.log(`${unmatched} model call(s) left no reasoning step (cut by a restart or the stop)`);
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/mind.json", `${JSON.stringify(result, null, 2)}\n`);
  // Every call, joined to its step (for a second look at the figures without running again).
  writeFileSync("bench/results/mind-calls.json", `${JSON.stringify({ windows, firstRun, rows })}\n`);
} finally {
  await chrome?.close();
  await model.close();
  app.kill("SIGTERM");
}

