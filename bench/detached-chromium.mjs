/* global clearTimeout */
// Chromium for bench/mind, started by hand so that Playwright can let go of it
// while the mind is measured. Attached, Playwright keeps DevTools' Network
// domain on in the page and in the mind's worker: every model call is reported
// over the pipe with its request body (a 60 KB context, copied and escaped),
// on the worker's thread, before the request goes out. In a bare worker that
// doubles the cost of one such fetch (about 2.4 → 4.5 ms here). Nobody's
// browser runs like that, so the measured windows run detached: no DevTools
// client at all, the model server's clock the only witness. `attach()` again
// to drive the page between windows.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

function devtoolsUrl(child, timeoutMs) {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`Chromium did not open DevTools within ${timeoutMs} ms: ${seen.slice(-500)}`)), timeoutMs);
    child.stderr.on("data", (d) => {
      seen += d.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`Chromium exited (${code}) before opening DevTools: ${seen.slice(-500)}`)));
  });
}

/**
 * Start headless Chromium with a fresh profile and one tab. Returns
 * `attach()` (→ { browser, context, page }: the tab, driven by Playwright),
 * `detach()` (Playwright disconnects; the tab and its worker go on),
 * `download(click)` (while attached), `close()`, and `endpoint` (the
 * browser's DevTools address, for a bare client: bench/mind-cdp.mjs).
 */
export async function startDetachableChromium() {
  const profile = mkdtempSync(join(tmpdir(), "reverie-bench-mind-"));
  const downloads = join(profile, "downloads");
  const child = spawn(
    CHROMIUM,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--window-size=1280,900",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      ...(process.env.BENCH_CHROMIUM_ARGS ? process.env.BENCH_CHROMIUM_ARGS.split(" ") : []),
      "about:blank",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  const endpoint = await devtoolsUrl(child, 30_000);
  let browser = null;

  const attach = async () => {
    browser = await chromium.connectOverCDP(endpoint, { isLocal: true });
    const context = browser.contexts()[0];
    if (!context) throw new Error("Chromium has no default context");
    const page = context.pages()[0] ?? (await context.newPage());
    return { browser, context, page };
  };
  const detach = async () => {
    // For a browser Playwright connected to, close() only disconnects: the tab stays open.
    await browser?.close();
    browser = null;
  };

  return {
    endpoint,
    attach,
    detach,
    async download(click, timeoutMs = 120_000) {
      if (!browser) throw new Error("attach() before a download");
      const cdp = await browser.newBrowserCDPSession();
      await cdp.send("Browser.setDownloadBehavior", { behavior: "allowAndName", downloadPath: downloads, eventsEnabled: true });
      const done = new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no download finished within ${timeoutMs} ms`)), timeoutMs);
        cdp.on("Browser.downloadProgress", (e) => {
          if (e.state === "completed") {
            clearTimeout(timer);
            resolve(e.guid);
          } else if (e.state === "canceled") reject(new Error("the download was canceled"));
        });
      });
      await click();
      return readFileSync(join(downloads, await done));
    },
    async close() {
      await detach().catch(() => undefined);
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      // Chromium's helper processes can still be writing its profile as it goes (ENOTEMPTY): retried, and
      // left behind with a warning rather than failing a run whose figures are already written.
      for (let attempt = 1; ; attempt++) {
        try {
          rmSync(profile, { recursive: true, force: true });
          break;
        } catch (e) {
          if (attempt === 20) {
            console.warn(`could not remove Chromium's profile ${profile}: ${e instanceof Error ? e.message : String(e)}`);
            break;
          }
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    },
  };
}
