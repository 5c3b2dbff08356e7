#!/usr/bin/env node
/* global document, indexedDB, IDBKeyRange */
// Benchmark: the mind's own time per iteration, in Chromium, against an
// instant scripted model (bench/mind-model.mjs) that streams its replies as a
// real server does, CHUNK characters an event (default 16), in blocks of ten
// calls that alternate with replies sent in one piece (CHUNK=0: all in one
// piece, as this bench measured before). Measured at the model's end:
// from the answer to one call being sent until the next call of the same run
// arrives, minus the exec_s of the block run in between (read from the mind's
// exported trajectory). At two sizes of history: a fresh mind (its first
// 100-iteration runs, ≈100 steps in) and one the instant model has let run to
// 10,000 steps; each with the mind's page showing the live stream and with the
// page on the list of minds. The measured windows run with no DevTools client
// attached (bench/detached-chromium.mjs); one more window at 10k runs attached,
// as the e2e tests do, to show what that costs. Then the floor: Chromium's own
// round trip for a call of that size from a bare worker to the same server
// (bench/fetch-floor.mjs), for each shape of answer. Prints median and p90 with
// ratios to the target (5 ms) and to Headlong (970 ms), and, per shape, the
// median above the floor; writes bench/results/mind.json.
//
//   npm run bench -- mind               (STEPS=10000 of history, MEASURE=300 iterations there of each shape)
//   CHUNK=0 npm run bench -- mind       (every reply in one piece; CHUNK=4 …: other chunk sizes)
//   CHUNK_DELAY_MS=1 npm run bench -- mind   (the chunks 1 ms apart; below 1: one event-loop turn apart)
//   INTERLEAVE=0 npm run bench -- mind  (every reply chunked; NODELAY=0: Nagle's algorithm left on at the server)
//   REVERIE_BENCH_REUSE_BUILD=1 npm run bench -- mind
//   PROFILE=1 npm run bench -- mind     (then CPU profiles of the worker at that size, stream shown and page on the list, after the measured windows; and of the page itself while it shows the stream)
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { startDetachableChromium } from "./detached-chromium.mjs";
import { STARTED as FLOOR_STARTED, startFetchFloor } from "./fetch-floor.mjs";
import { answerWrites, modelOptionsFromEnv, replyText, startInstantModel } from "./mind-model.mjs";
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
const modelOptions = modelOptionsFromEnv();
const model = await startInstantModel(modelOptions);
/** The shapes of answer measured: 0 (one piece) and, when streaming, CHUNK; when they alternate, each window is twice as long, for MEASURE calls of each. */
const SHAPES = modelOptions.chunk > 0 ? (modelOptions.interleave > 0 ? [0, modelOptions.chunk] : [modelOptions.chunk]) : [0];
const SPAN = MEASURE * SHAPES.length;
const shapeName = (c) => (c > 0 ? `${c}-char` : "1 piece");
/** SSE events (data lines) in one answer of that shape. */
const answerEvents = (c) => answerWrites(1, "instant", c).join("").split("\n\n").filter(Boolean).length;
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
  windows.fresh_list = { from: model.calls.length + 5, to: model.calls.length + 5 + ITERATIONS * SHAPES.length };
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
  windows.full_list = { from: model.calls.length, to: model.calls.length + SPAN + 5 };
  await detached(windows.full_list.to + 1);
  // The same with Playwright attached, as the e2e tests and earlier runs of this bench measured: what DevTools' instrumentation costs.
  console.log(`…${MEASURE} more with DevTools attached…`);
  windows.full_list_devtools = { from: model.calls.length, to: model.calls.length + SPAN + 5 };
  await calls(windows.full_list_devtools.to + 1);
  console.log(`…and ${MEASURE} with the stream shown`);
  await toStream();
  windows.full_stream = { from: model.calls.length + 10, to: model.calls.length + 10 + SPAN + 5 };
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
  // The same server answers it, in the same shapes as the mind's calls, in turn.
  const bodyChars = stats(model.calls.slice(windows.full_list.from, windows.full_list.to).map((c) => c.promptChars)).median;
  const preflights = model.preflights;
  const floor = await startFetchFloor();
  const floorPage = await context.newPage();
  await floorPage.goto(floor.url(model.url, bodyChars, FLOOR_CALLS, SHAPES));
  await floorPage.waitForFunction((t) => document.title === t, FLOOR_STARTED);
  await chrome.detach();
  const floorRaw = await floor.result;
  ({ context, page } = await chrome.attach());
  await floor.close();
  // Per shape: the round trip timed in the worker, and the gap the server sees between the floor's calls (answer sent → next call), as the mind's are timed.
  const floorBy = Object.fromEntries(
    SHAPES.map((c) => {
      const fc = model.floorCalls;
      const serverGaps = fc.slice(6).flatMap((b, i) => (fc[i + 5].chunk === c ? [b.at - fc[i + 5].sent] : []));
      return [c, { round_trip_ms: stats(floorRaw[c]), server_gap_ms: stats(serverGaps) }];
    }),
  );
  const floorMs = floorBy[0]?.round_trip_ms ?? floorBy[SHAPES[0]].round_trip_ms;

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
  // Each window, per shape of answer (a gap belongs to the answer before it): the one-piece figures keep
  // this bench's old keys; streamed ones get a `_chunk<N>` suffix.
  const shapeOf = new Map(model.calls.map((c) => [c.n, c.chunk]));
  const windowGaps = {
    fresh_stream: all.filter((g) => g.runId === firstRun),
    fresh_list: all.filter(inWindow(windows.fresh_list)),
    [`steps_${STEPS}_list`]: all.filter((g) => inWindow(windows.full_list)(g) && g.history >= STEPS),
    [`steps_${STEPS}_list_devtools`]: all.filter((g) => inWindow(windows.full_list_devtools)(g) && g.history >= STEPS),
    [`steps_${STEPS}_stream`]: all.filter((g) => inWindow(windows.full_stream)(g) && g.history >= STEPS),
  };
  const measured = {};
  for (const [key, gs] of Object.entries(windowGaps)) {
    for (const c of SHAPES) measured[c > 0 ? `${key}_chunk${c}` : key] = gs.filter((g) => shapeOf.get(g.n) === c).slice(0, MEASURE);
  }
  const ratio = (ms, ref) => Math.round((ref / ms) * 100) / 100;
  const phase = (gs, key) => {
    const harness = stats(gs.map((g) => g.harnessMs));
    const chunk = Number(/_chunk(\d+)$/.exec(key)?.[1] ?? 0);
    return {
      reply: { chunk_chars: chunk, events: answerEvents(chunk) },
      history: { from: gs[0]?.history ?? null, to: gs.at(-1)?.history ?? null },
      iterations: gs.length,
      harness_ms: harness,
      call_to_call_ms: stats(gs.map((g) => g.callToCallMs)),
      exec_ms: stats(gs.map((g) => g.execMs)),
      ratio_to_target: ratio(harness.median, TARGET_MS),
      ratio_to_headlong: ratio(harness.median, HEADLONG_MS),
      above_floor_ms: Math.round((harness.median - floorBy[chunk].round_trip_ms.median) * 100) / 100,
    };
  };
  const result = {
    ...Object.fromEntries(Object.entries(measured).map(([k, gs]) => [k, phase(gs, k)])),
    fill: { steps, seconds: Math.round(fillS), calls_per_s: Math.round(fillRate * 10) / 10, page: "list of minds" },
    fetch_floor: {
      body_chars: bodyChars,
      round_trip_ms: floorMs,
      ...Object.fromEntries(SHAPES.map((c) => [c > 0 ? `chunk${c}` : "one_piece", floorBy[c]])),
      page: "a bare worker, the mind stopped, no DevTools client; the same server, the same answers, shapes in turn",
    },
    model: { ...modelOptions, reply_chars: replyText(1).length },
    model_calls: model.calls.length,
    calls_not_in_trajectory: unmatched,
    preflights,
    targets: { harness_median_ms: TARGET_MS, vs_headlong: VS_HEADLONG },
    headlong_ms: HEADLONG_MS,
    load_average: { before: loadBefore, after: loadavg().map((l) => Math.round(l * 100) / 100) },
    when: new Date().toISOString(),
  };

  const cell = (v, w) => String(v).padStart(w);
  console.log(`\nharness time per iteration: ms from a model answer to the run's next call, minus the block's exec_s (ratio > 1 is better than target)`);
  console.log(`${"history (steps)".padEnd(16)}${"page".padEnd(8)}${"reply".padEnd(8)}${cell("iters", 6)}${cell("median", 8)}${cell("p90", 8)}${cell("target", 8)}${cell("ratio", 7)}${cell("vs Headlong", 12)}${cell("target", 8)}${cell("call→call", 10)}${cell("exec", 6)}`);
  for (const [key, p] of Object.entries(result).filter(([k]) => k in measured)) {
    const h = p.history.from === null ? "n/a" : `${p.history.from.toLocaleString()}–${p.history.to.toLocaleString()}`;
    console.log(
      `${h.padEnd(16)}${(/stream(_chunk\d+)?$/.test(key) ? "stream" : /devtools(_chunk\d+)?$/.test(key) ? "list+dt" : "list").padEnd(8)}${shapeName(p.reply.chunk_chars).padEnd(8)}${cell(p.iterations, 6)}${cell(p.harness_ms.median.toFixed(1), 8)}${cell(p.harness_ms.p90.toFixed(1), 8)}${cell(`< ${TARGET_MS}`, 8)}${cell(`${p.ratio_to_target.toFixed(2)}×`, 7)}${cell(`${p.ratio_to_headlong.toFixed(0)}×`, 12)}${cell(`≥ ${VS_HEADLONG}×`, 8)}${cell(p.call_to_call_ms.median.toFixed(1), 10)}${cell(p.exec_ms.median, 6)}`,
    );
  }
  console.log(`page: "stream" = the mind's page showing the live stream; "list" = the page on the list of minds; both with no DevTools client attached`);
  console.log(`reply: "1 piece" = the whole answer in one write; "${shapeName(modelOptions.chunk)}" = streamed, ${modelOptions.chunk} characters of the ${replyText(1).length}-character reply an event (${answerEvents(modelOptions.chunk)} events, each its own write${modelOptions.delayMs > 0 ? `, ${modelOptions.delayMs} ms apart` : ""})${SHAPES.length > 1 ? `, in blocks of ${modelOptions.interleave} calls in turn` : ""}`);
  console.log(`"list+dt" = the list again with Playwright attached (DevTools' Network domain on, reporting each request's body), as in the e2e tests`);
  console.log(
    `Chromium's own round trip for one such call (a bare fetch of a ${Math.round(bodyChars / 1000)} KB body from a worker to the same server, another origin, the answer read whole, the mind stopped): ` +
      SHAPES.map((c) => `${shapeName(c)} median ${floorBy[c].round_trip_ms.median}, p90 ${floorBy[c].round_trip_ms.p90} ms (the server's gap between them: ${floorBy[c].server_gap_ms.median} ms)`).join("; "),
  );
  console.log(`\nbetween model calls at ${STEPS.toLocaleString()} steps, per shape of answer (same run${SHAPES.length > 1 ? ", interleaved" : ""}): median (answer sent → next call, minus exec), Chromium's floor for the same answer (bare worker round trip), harness = median − floor`);
  console.log(`${"page".padEnd(8)}${"reply".padEnd(9)}${cell("median", 8)}${cell("floor", 8)}${cell("harness", 9)}`);
  for (const [page, key] of [["list", `steps_${STEPS}_list`], ["stream", `steps_${STEPS}_stream`], ["list+dt", `steps_${STEPS}_list_devtools`]]) {
    for (const c of SHAPES) {
      const p = result[c > 0 ? `${key}_chunk${c}` : key];
      console.log(`${page.padEnd(8)}${shapeName(c).padEnd(9)}${cell(p.harness_ms.median.toFixed(1), 8)}${cell(floorBy[c].round_trip_ms.median.toFixed(1), 8)}${cell(p.above_floor_ms.toFixed(1), 9)}`);
    }
  }
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

