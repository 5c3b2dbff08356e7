// For bench/context: cold assembly from IndexedDB in real Chromium. lib/'s
// store and context code and bench/context-cold.mjs are bundled with esbuild
// into one page served from 127.0.0.1 (IndexedDB needs an origin); Chromium
// (CHROMIUM_PATH, default /usr/bin/chromium) runs headless with a fresh
// profile; the life's rows are handed in by page.evaluate in chunks, then the
// page times its own cold assemblies. Run under `flock /tmp/reverie-e2e.lock`.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const chromiumAvailable = () => existsSync(CHROMIUM);

// The page's side: lib/ modules as the worker has them, and the shared cold path.
const ENTRY = `
import { ReverieDb } from "./lib/store/db/db";
import { readTiers, streamEntriesAfter, streamKeysAfter } from "./lib/store/derived/tiers";
import { tailSteps } from "./lib/store/steps/steps";
import { buildContext, inStream } from "./lib/context/build";
import { SealedPast } from "./lib/context/sealed-past";
import { completeBlocks, DEFAULT_TIERS } from "./lib/context/staircase";
import { TokenCounter } from "./lib/context/tokens";
import { coldRuns, storeRows, wholeIndex } from "./bench/context-cold.mjs";
const lib = { readTiers, keysAfter: streamEntriesAfter, indexKeysAfter: streamKeysAfter, tailSteps, buildContext, inStream, SealedPast, completeBlocks, DEFAULT_TIERS, TokenCounter };
const dbs = new Map();
const open = async (name) => {
  if (!dbs.has(name)) { const db = new ReverieDb(name); await db.open(); dbs.set(name, db); }
  return dbs.get(name);
};
globalThis.bench = {
  addRows: async (name, rows) => storeRows(await open(name), rows),
  addTiers: async (name, rows) => (await open(name)).tiers.bulkAdd(rows),
  cold: async (name, mind, opts, runs) => coldRuns(lib, await open(name), mind, opts, runs),
  wholeIndex: async (name, mind) => wholeIndex(lib, await open(name), mind),
};
`;

async function bundle() {
  const out = await build({ stdin: { contents: ENTRY, resolveDir: ROOT, loader: "ts", sourcefile: "context-chromium-entry.ts" }, bundle: true, format: "esm", platform: "browser", target: "es2022", write: false, logLevel: "silent", alias: { "@": ROOT } });
  return out.outputFiles[0].text;
}

/**
 * Cold assembly at each size in Chromium. `lives` gives, per size, the raw
 * rows (appendStep's shape) and the tier rows; returns the page's figures.
 */
export async function chromiumCold({ sizes, lives, opts, runs, wholeIndexUpTo = Infinity, log = console.log }) {
  const js = await bundle();
  const html = `<!doctype html><meta charset="utf-8"><title>context bench</title><script type="module" src="/bench.js"></script>`;
  const server = createServer((req, res) => {
    if (req.url === "/bench.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(js);
    res.writeHead(200, { "content-type": "text/html" }).end(html);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const profile = mkdtempSync(join(tmpdir(), "reverie-bench-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => Boolean(globalThis.bench), null, { timeout: 60_000 });
    const out = {};
    for (const N of sizes) {
      const { mind, rows, tiers } = lives(N);
      const name = `bench-context-${N}`;
      const t0 = performance.now();
      for (let i = 0; i < rows.length; i += 5000) await page.evaluate(([n, chunk]) => globalThis.bench.addRows(n, chunk), [name, rows.slice(i, i + 5000)]);
      await page.evaluate(([n, t]) => globalThis.bench.addTiers(n, t), [name, tiers]);
      log(`  Chromium ${N.toLocaleString()} steps: stored in ${Math.round(performance.now() - t0)} ms; timing…`);
      const cold = await page.evaluate(([n, m, o, r]) => globalThis.bench.cold(n, m, o, r), [name, mind, opts, runs]);
      const whole = N <= wholeIndexUpTo ? await page.evaluate(([n, m]) => globalThis.bench.wholeIndex(n, m), [name, mind]) : null;
      out[N] = { ...cold, whole_index: whole };
    }
    out.browser = `Chromium ${context.browser()?.version() ?? "(version unknown)"}`;
    return out;
  } finally {
    await context.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
