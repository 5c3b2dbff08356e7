/* global AbortSignal, document */
// bench/runner's handovers, as a person makes them: the built app (`npm
// start`'s script, its runner embedded, RUNNER_LEASE_S=5) with the proxy in
// front of the scripted model server (test/fixtures/model-server.ts, a FAKE
// at the model's HTTP boundary), one mind on the proxy in Chromium with a
// live link and keep-alive on (then the page reloaded: see handoverRun);
// then rounds of closing its tab (→ its first wake on the server, read from
// the live link) and opening it again (→ `mind-home` says "this tab" with
// the away digest, and its first wake in the tab). The times are split by
// the closing tab's lease answers (when its lease would lapse, whether it
// let it go) and the reopened page's own resource timing (when it first
// asked for the lease, when it got it). On PostgreSQL, `reverie runner`
// processes can run beside the app's own runner.
//
// BENCH_RUNNER_PROFILE_DIR=dir: a CPU profile of each reopened page, from
// the open to its first wake. BENCH_RUNNER_NO_RELOAD=1: no reload after
// keep-alive is switched on.
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { tsImport } from "tsx/esm/api";
import { freePort, waitUp } from "./app-server.mjs";

const { startModelServer, isSummaryCall } = await tsImport("../test/fixtures/model-server.ts", import.meta.url);
const { setPacing } = await tsImport("../test/e2e/mind-page.ts", import.meta.url);

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const HANDOVER_LEASE_S = 5;
const NO_RELOAD = process.env.BENCH_RUNNER_NO_RELOAD === "1";
/** BENCH_RUNNER_PROFILE_DIR: a CPU profile of each reopened page's main thread, from the open to its first tab wake, written there. */
const PROFILE_DIR = process.env.BENCH_RUNNER_PROFILE_DIR;
const IDLE_REPLY = "Nothing to do.\n```bash\nFINAL=idle\n```";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A runner alone (`npx reverie runner`'s entry, run as bin/reverie.mjs runs it), for a second runner process on PostgreSQL. */
function startRunnerProcess(env) {
  const main = join(process.cwd(), "lib/server/runner/main.ts");
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", join(process.cwd(), "bin/text-imports.mjs"), "--import", import.meta.resolve("tsx"), main, "runner"], { stdio: ["ignore", "ignore", "inherit"], env });
  return {
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}

async function serveApp(env) {
  const cwd = mkdtempSync(join(tmpdir(), "reverie-bench-runner-app-"));
  const port = await freePort();
  const child = spawn(process.execPath, [join(process.cwd(), "scripts/start.mjs")], { cwd, stdio: ["ignore", "ignore", "inherit"], env: { ...env, PORT: String(port) } });
  const base = `http://127.0.0.1:${port}`;
  await waitUp(`${base}/`, child);
  // The proxy's ledger opens on its first call: open it now, not inside a measured handover.
  await fetch(`${base}/api/llm/v1/models`, { signal: AbortSignal.timeout(120_000) }).catch(() => undefined);
  return {
    base,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, sleep(5000)]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

/** The live link's steps, read on from the last seq seen. */
function follower(base, token) {
  const all = [];
  return {
    all,
    async poll() {
      for (;;) {
        const after = all.at(-1)?.seq ?? 0;
        const res = await fetch(`${base}/api/share/${token}/steps?after=${after}&limit=2000`);
        const page = await res.json();
        if (!page.steps?.length) return all;
        for (const s of page.steps) all.push({ seq: s.seq, step: JSON.parse(s.json) });
      }
    },
    /** The first step after `afterSeq` that `match` accepts, polled every 100 ms. */
    async until(what, afterSeq, match, ms) {
      const end = Date.now() + ms;
      for (;;) {
        await this.poll();
        const hit = all.find((r) => r.seq > afterSeq && match(r.step));
        if (hit) return hit;
        if (Date.now() > end) {
          const tail = all.slice(-8).map((r) => `${r.seq} ${r.step.type} ${r.step.home ?? ""} ${r.step.reason ?? r.step.end ?? ""} ${String(r.step.content ?? r.step.error ?? "").slice(0, 80)}`);
          throw new Error(`timed out after ${ms} ms waiting for ${what}; the last steps: ${tail.join(" | ")}`);
        }
        await sleep(100);
      }
    },
  };
}

/** The closing tab's lease answers (when each lease it got or renewed would lapse), and whether it let the lease go as it closed. */
function watchLease(page) {
  const seen = { lapses: [], released: false };
  page.on("response", async (r) => {
    if (r.request().method() !== "POST" || r.status() !== 200 || !/\/api\/sync\/minds\/[^/]+\/lease$/.test(r.url())) return;
    const body = await r.json().catch(() => ({}));
    if (body.expires_at) seen.lapses.push(Date.parse(body.expires_at));
  });
  page.on("request", (r) => {
    if (r.method() === "DELETE" && /\/api\/sync\/minds\/[^/]+\/lease$/.test(r.url())) seen.released = true;
  });
  return seen;
}

/** The page's own record of its API requests (resource timing: when each was sent and answered, with what status), on the browser's clock. */
const apiTimings = (page) =>
  page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .filter((e) => new URL(e.name).pathname.startsWith("/api/"))
      .map((e) => ({ path: new URL(e.name).pathname, start: Math.round(performance.timeOrigin + e.startTime), end: Math.round(performance.timeOrigin + e.responseEnd), status: e.responseStatus })),
  );
const apiLine = (openedAt) => (a) => `${a.path.replace(/[0-9a-f-]{36}/g, ":id")} ${a.start - openedAt}→${a.end - openedAt} ${a.status}`;
const isLease = (path) => /^\/api\/sync\/minds\/[^/]+\/lease$/.test(path);

/** When the page's load event ended (ms since the epoch, the browser's clock). */
const loadEnd = (page) => page.evaluate(() => Math.round(performance.timeOrigin + (performance.getEntriesByType("navigation")[0]?.loadEventEnd ?? 0)));

const isWake = (home) => (s) => s.type === "wake" && s.home === home;

/** `databaseUrl`: the app on that PostgreSQL database, and `runners` − 1 more runner processes beside its embedded one. */
export async function handoverRun({ rounds, log, databaseUrl = "", runners = 1 }) {
  const upstream = await startModelServer({ responder: () => ({ text: IDLE_REPLY }) });
  const appEnv = {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: "1",
    DATABASE_URL: databaseUrl,
    LLM_PROXY_UPSTREAM_URL: upstream.url,
    LLM_PROXY_API_KEY: "fake-key-bench-runner-not-a-real-key",
    LLM_PROXY_MODELS: "scripted",
    LLM_PROXY_PRICES: JSON.stringify({ scripted: { input: 0.1, output: 0.1 } }),
    LLM_PROXY_CAP_DAY_USD: "100",
    LLM_PROXY_CLIENT_CAP_HOUR_USD: "50",
    LLM_PROXY_CLIENT_CAP_DAY_USD: "100",
    LLM_PROXY_REQUEST_CAP_USD: "0.5",
    RUNNER_LEASE_S: String(HANDOVER_LEASE_S),
    RUNNER_MAX_MINDS: "5",
  };
  const app = await serveApp(appEnv);
  const others = Array.from({ length: databaseUrl ? runners - 1 : 0 }, () => startRunnerProcess(appEnv));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const context = await browser.newContext();
    // Room for every request of a page's life in its resource timing (the lease requests are read from there).
    await context.addInitScript(() => performance.setResourceTimingBufferSize(100_000));
    let page = await context.newPage();
    await page.goto(app.base);
    await page.waitForFunction(() => document.querySelector('[data-testid="model-provider"]')?.value === "proxy", null, { timeout: 60_000 });
    await page.getByTestId("new-mind-name").fill("Kept");
    await page.getByTestId("create-mind").click();
    await page.waitForURL(/\/mind\/[0-9a-f-]{36}$/);
    const mindUrl = page.url();
    await setPacing(page, { base_s: 1, cap_s: 2, ticks_per_level: 1 });
    await page.getByTestId("share-mode").selectOption("live");
    await page.getByTestId("share-create").click();
    const live = new URL(await page.getByTestId("share-link").inputValue()).pathname.split("/").pop();
    await page.getByTestId("keep-alive").check();
    // Checked at once; enabled again once the server said yes.
    await page.waitForFunction(() => {
      const box = document.querySelector('[data-testid="keep-alive"]');
      return box?.checked === true && !box.disabled;
    }, null, { timeout: 30_000 });
    // Switched on in the tab that runs it, the mind goes on running there without a lease until the tab looks again (up to
    // 30 s) while the runner takes it too; the tab's steps are then set aside. A reload makes the tab take the lease at once,
    // so the rounds measure handovers, not that (BENCH_RUNNER_NO_RELOAD=1 leaves it out).
    if (!NO_RELOAD) await page.reload();
    const steps = follower(app.base, live);
    let lease = watchLease(page);
    let last = await steps.until("a tab wake under a lease", 0, (s) => isWake("tab")(s) && typeof s.epoch === "number", 60_000);
    log(`  mind on the proxy with keep-alive on; ${rounds} rounds`);

    const out = [];
    for (let round = 0; round < rounds; round++) {
      // Let the tab settle into its life (a second wake in the tab) before closing it.
      last = await steps.until("another tab wake", last.seq, isWake("tab"), 30_000);
      const closedAt = Date.now();
      await page.close();
      const server = await steps.until("a wake on the server", last.seq, isWake("server"), (HANDOVER_LEASE_S + 30) * 1000);
      const lapseAt = lease.lapses.at(-1);
      const released = lease.released;
      // The server lives a little (a second wake there) before the tab comes back.
      // (Its mind is put away between wakes once its summaries are sealed: how long that takes shows in the gap.)
      const server2 = await steps.until("a second wake on the server", server.seq, isWake("server"), 90_000);
      const summaries = upstream.requests.filter((q) => q.at >= closedAt && isSummaryCall(q.messages));
      const summaryCalls = summaries.length;
      // How many different blocks those calls asked about (the same block asked again and again is a summarizer going round).
      const summaryBlocks = new Set(summaries.map((q) => JSON.stringify(q.messages))).size;
      page = await context.newPage();
      lease = watchLease(page);
      const cdp = PROFILE_DIR ? await context.newCDPSession(page) : undefined;
      if (cdp) {
        await cdp.send("Profiler.enable");
        await cdp.send("Profiler.setSamplingInterval", { interval: 500 });
        await cdp.send("Profiler.start");
      }
      const openedAt = Date.now();
      await page.goto(mindUrl);
      const loadedAt = await loadEnd(page);
      // "this tab" once the tab took it back: the away digest shows first (the pull brought the server's steps). Before it
      // knows where the mind lives the page also says "this tab", so the label alone does not tell.
      const homeAt = await (
        await page.waitForFunction(
          () => document.querySelector('[data-testid="away-digest"]') && document.querySelector('[data-testid="mind-home"]')?.getAttribute("data-home") === "this tab" && Date.now(),
          null,
          { timeout: 30_000, polling: 50 },
        )
      ).jsonValue();
      const lastServer = (await steps.poll()).filter((r) => isWake("server")(r.step)).at(-1) ?? server2;
      last = await steps.until("a tab wake after the server's", lastServer.seq, isWake("tab"), 30_000);
      const tabWakeTs = Date.parse(last.step.ts);
      if (cdp) {
        const { profile } = await cdp.send("Profiler.stop");
        mkdirSync(PROFILE_DIR, { recursive: true });
        writeFileSync(join(PROFILE_DIR, `runner-reopen-${round + 1}.cpuprofile`), JSON.stringify(profile));
        await cdp.detach();
      }
      // The tab's first model call (the worker loads its sandbox only once that call is out: lib/shell/lazy-shell.ts).
      let firstCall;
      for (const end = Date.now() + 15_000; !firstCall && Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
        firstCall = upstream.requests.find((q) => q.at >= tabWakeTs && !isSummaryCall(q.messages));
      }
      const api = await apiTimings(page);
      const asks = api.filter((a) => isLease(a.path));
      const granted = asks.find((a) => a.status === 200);
      const r = {
        to_server_ms: Date.parse(server.step.ts) - closedAt,
        released_on_close: released,
        lease_lapse_ms: released || !lapseAt ? null : lapseAt - closedAt,
        server_next_wake_ms: Date.parse(server2.step.ts) - Date.parse(server.step.ts),
        summary_calls_on_server: summaryCalls,
        summary_blocks_on_server: summaryBlocks,
        to_tab_ms: tabWakeTs - openedAt,
        first_tab_call_ms: firstCall ? firstCall.at - openedAt : null,
        page_load_ms: loadedAt - openedAt,
        lease_first_answer_ms: asks[0] ? asks[0].end - openedAt : null,
        lease_first_status: asks[0]?.status ?? null,
        lease_refusals: asks.filter((a) => a.status === 409).length,
        lease_granted_ms: granted ? granted.end - openedAt : null,
        mind_home_tab_ms: homeAt - openedAt,
        // What the page asked the server before its first lease request, and when (ms from the open): where the time before it goes.
        api_before_lease: api.filter((a) => asks[0] && a.start <= asks[0].start).map(apiLine(openedAt)),
        // … and from the granted lease to "this tab": the pull.
        api_pulling: api.filter((a) => granted && a.start >= granted.end && a.start <= homeAt).map(apiLine(openedAt)),
      };
      out.push(r);
      log(
        `  round ${round + 1}: closed → server wake ${r.to_server_ms} ms (${r.released_on_close ? "released on close" : `lease lapsed at ${r.lease_lapse_ms} ms`}), next server wake ${r.server_next_wake_ms} ms later (${summaryCalls} summary calls, ${summaryBlocks} different); ` +
          `opened → loaded ${r.page_load_ms} ms, lease ${r.lease_granted_ms} ms (${r.lease_refusals} refused), "this tab" ${r.mind_home_tab_ms} ms, tab wake ${r.to_tab_ms} ms, its first model call ${r.first_tab_call_ms} ms`,
      );
    }
    // The whole life, as the server holds it: no seq gap, no step twice, wake epochs never going back.
    const all = await steps.poll();
    const epochs = all.flatMap((r) => (r.step.type === "wake" && typeof r.step.epoch === "number" ? [r.step.epoch] : []));
    const checks = {
      steps: all.length,
      seq_gaps: all.filter((r, i) => r.seq !== i + 1).length,
      duplicate_ids: all.length - new Set(all.map((r) => r.step.step_id)).size,
      epoch_decreases: epochs.filter((e, i) => i > 0 && e < epochs[i - 1]).length,
    };
    return { engine: databaseUrl ? "postgres" : "pglite", runner_processes: 1 + others.length, lease_s: HANDOVER_LEASE_S, rounds: out, checks };
  } finally {
    await browser.close().catch(() => undefined);
    for (const o of others) await o.close();
    await app.close();
    await upstream.close();
  }
}
