#!/usr/bin/env node
/* global document, requestAnimationFrame, Buffer, crossOriginIsolated, WheelEvent */
// Benchmark: a 100,000-step Headlong-format trajectory in Chromium.
// Measures import throughput (steps/s), time until the viewer shows the newest
// steps, the page's JS heap once the whole index is loaded, and frame times
// while scrolling. Prints a table with ratios to the targets and writes
// bench/results/trajectory.json. First it runs bench/trajectory-archives.mjs
// (our tar and zip codecs against modern-tar, @zip.js/zip.js and fflate's zip),
// before the app is built so the two do not share the CPU.
//
//   npm run bench -- trajectory            (STEPS=100000 by default)
//   REVERIE_BENCH_REUSE_BUILD=1 npm run bench -- trajectory
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tsImport } from "tsx/esm/api";
import { chromium } from "playwright-core";
import { startApp, waitUp } from "./app-server.mjs";

const { makeHeadlongTree } = await tsImport("../test/fixtures/headlong-tree.ts", import.meta.url);

const STEPS = Number(process.env.STEPS ?? 100_000);
const TARGETS = { import_steps_per_s: 20_000, first_render_ms: 1000, heap_mb: 400 };
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

if (spawnSync(process.execPath, ["bench/trajectory-archives.mjs"], { stdio: "inherit", env }).status !== 0) process.exitCode = 1;


const { app, base } = await startApp(env);
let browser;
try {
  await waitUp(base, app);
  console.log(`generating ${STEPS.toLocaleString()} steps…`);
  const tree = makeHeadlongTree({ steps: STEPS, seed: 1 });
  const dir = await mkdtemp(join(tmpdir(), "reverie-bench-"));
  const file = join(dir, "trajectory.jsonl");
  writeFileSync(file, tree.files[0].data);
  const steps = tree.counts[tree.rootId];
  const bytes = Buffer.byteLength(tree.files[0].data);

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--enable-precise-memory-info"],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(base);

  // Import: from handing the file to the page until the viewer route opens.
  const t0 = performance.now();
  await page.getByTestId("import-file").setInputFiles(file);
  await page.waitForURL(/\/view\//, { timeout: 300_000 });
  const importMs = performance.now() - t0;
  const viewUrl = page.url();

  // First render: a fresh load of the viewer until the newest step is on screen.
  await page.goto(base);
  const t1 = performance.now();
  await page.goto(viewUrl);
  await page.locator(`[data-step-id="${tree.ids.last}"]`).waitFor({ timeout: 60_000 });
  const firstRenderMs = performance.now() - t1;

  // Memory: once the whole index is loaded.
  await page.waitForFunction(() => !document.querySelector('[data-testid="step-count"]')?.textContent?.includes("loading"), null, { timeout: 120_000 });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("HeapProfiler.collectGarbage");
  await cdp.send("Performance.enable");
  const { metrics } = await cdp.send("Performance.getMetrics");
  const heapMb = (metrics.find((m) => m.name === "JSHeapUsedSize")?.value ?? 0) / 1024 / 1024;
  const rendered = await page.locator('[data-testid="step"]').count();
  // The whole page's memory (JS, DOM, workers), where the browser can say:
  // needs cross-origin isolation, which the app has.
  const pageMb = await page.evaluate(async () => {
    if (!crossOriginIsolated || !performance.measureUserAgentSpecificMemory) return null;
    const m = await Promise.race([performance.measureUserAgentSpecificMemory(), new Promise((r) => setTimeout(() => r(null), 30_000))]);
    return m ? m.bytes / 1024 / 1024 : null;
  });

  // Scrolling: time the frames while scrolling up from the newest step, in
  // steps a wheel or trackpad makes (120 px) and in long jumps (1500 px).
  const scrollFrames = (step, count) =>
    page.evaluate(
      async ({ step, count }) => {
        const el = document.querySelector('[data-testid="thought-stream"]')?.parentElement;
        if (!el) return [];
        el.scrollTop = el.scrollHeight;
        await new Promise((r) => requestAnimationFrame(r));
        const times = [];
        let last = performance.now();
        for (let i = 1; i <= count; i++) {
          // A wheel event first, as a person's scrolling has: it tells the viewer to stop following the newest step.
          el.dispatchEvent(new WheelEvent("wheel", { bubbles: true, deltaY: -step }));
          el.scrollTop = Math.max(0, el.scrollHeight - el.clientHeight - i * step);
          await new Promise((r) => requestAnimationFrame(r));
          const now = performance.now();
          times.push(now - last);
          last = now;
        }
        return times;
      },
      { step, count },
    );
  const p95 = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return Math.round((sorted[Math.floor(sorted.length * 0.95)] ?? 0) * 10) / 10;
  };
  const wheelP95 = p95(await scrollFrames(120, 240));
  const jumpP95 = p95(await scrollFrames(1500, 120));

  const result = {
    steps,
    bytes,
    import_ms: Math.round(importMs),
    import_steps_per_s: Math.round(steps / (importMs / 1000)),
    first_render_ms: Math.round(firstRenderMs),
    heap_mb: Math.round(heapMb * 10) / 10,
    page_memory_mb: pageMb === null ? null : Math.round(pageMb * 10) / 10,
    rows_in_dom: rendered,
    scroll_frame_p95_ms: { wheel_120px: wheelP95, jump_1500px: jumpP95 },
    targets: TARGETS,
    ratios: {
      import: Math.round((steps / (importMs / 1000) / TARGETS.import_steps_per_s) * 100) / 100,
      first_render: Math.round((TARGETS.first_render_ms / firstRenderMs) * 100) / 100,
      memory: Math.round((TARGETS.heap_mb / Math.max(heapMb, pageMb ?? 0)) * 100) / 100,
    },
    when: new Date().toISOString(),
  };
  const row = (name, value, target, ratio) => console.log(`${name.padEnd(28)} ${String(value).padStart(12)} ${String(target).padStart(12)} ${ratio === undefined ? "" : `${ratio.toFixed(2)}×`.padStart(8)}`);
  console.log(`\n${"measure".padEnd(28)} ${"value".padStart(12)} ${"target".padStart(12)} ${"ratio".padStart(8)}  (ratio > 1 is better than target)`);
  row("steps imported", steps.toLocaleString(), "", undefined);
  row("import throughput (steps/s)", result.import_steps_per_s.toLocaleString(), `≥ ${TARGETS.import_steps_per_s.toLocaleString()}`, result.ratios.import);
  row("first render (ms)", result.first_render_ms, `< ${TARGETS.first_render_ms}`, result.ratios.first_render);
  row("JS heap, index loaded (MB)", result.heap_mb, `< ${TARGETS.heap_mb}`, TARGETS.heap_mb / result.heap_mb);
  row("page memory, all (MB)", result.page_memory_mb ?? "n/a", `< ${TARGETS.heap_mb}`, result.page_memory_mb ? TARGETS.heap_mb / result.page_memory_mb : undefined);
  row("step rows in the DOM", rendered, "", undefined);
  row("scroll frame p95, 120 px (ms)", wheelP95, "", undefined);
  row("scroll frame p95, 1500 px (ms)", jumpP95, "", undefined);
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/trajectory.json", `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await browser?.close();
  app.kill("SIGTERM");
}
