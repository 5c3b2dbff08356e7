// Chromium as a person runs it, for measuring what a hidden tab does. The
// browser that launchChromium (./browser) starts is Playwright's: it passes
// --disable-background-timer-throttling, --disable-renderer-backgrounding and
// --disable-backgrounding-occluded-windows, and turns on focus emulation in
// every page, so a tab in the background stays "visible" and is never
// throttled. Here Chromium is started by hand without those switches, and
// Playwright attaches over CDP with `noDefaults` (no focus emulation): a tab
// sent to the background really is hidden, and throttled, as in anyone's browser.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from "playwright-core";
import { CHROMIUM } from "./browser";

export interface RealChromium {
  browser: Browser;
  /** The profile's own context (a fresh profile in a temporary folder). */
  context: BrowserContext;
  /** Click something that downloads a file; resolves with its bytes and suggested name. */
  download(click: () => Promise<void>, timeoutMs?: number): Promise<{ bytes: Uint8Array<ArrayBuffer>; name: string }>;
  close(): Promise<void>;
}

function devtoolsUrl(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`Chromium did not open DevTools within ${timeoutMs} ms: ${seen.slice(-500)}`)), timeoutMs);
    child.stderr?.on("data", (d: Buffer) => {
      seen += d.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`Chromium exited (${code}) before opening DevTools: ${seen.slice(-500)}`)));
  });
}

export async function launchRealChromium(): Promise<RealChromium> {
  const profile = mkdtempSync(join(tmpdir(), "reverie-real-chromium-"));
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
      // Headless Chromium's own window is 780×437 inside; at that height the stream covers the message box.
      "--window-size=1280,900",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    // Its own process group, so close() can end every helper process too (they write to the profile).
    { stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  const browser = await chromium.connectOverCDP(await devtoolsUrl(child, 30_000), { noDefaults: true, isLocal: true });
  const context = browser.contexts()[0];
  if (!context) throw new Error("Chromium has no default context");
  const cdp: CDPSession = await browser.newBrowserCDPSession();
  await cdp.send("Browser.setDownloadBehavior", { behavior: "allowAndName", downloadPath: downloads, eventsEnabled: true });

  return {
    browser,
    context,
    async download(click, timeoutMs = 30_000) {
      const done = new Promise<{ guid: string; name: string }>((resolve, reject) => {
        const names = new Map<string, string>();
        const timer = setTimeout(() => reject(new Error(`no download finished within ${timeoutMs} ms`)), timeoutMs);
        cdp.on("Browser.downloadWillBegin", (e) => names.set(e.guid, e.suggestedFilename));
        cdp.on("Browser.downloadProgress", (e) => {
          if (e.state === "completed") {
            clearTimeout(timer);
            resolve({ guid: e.guid, name: names.get(e.guid) ?? "" });
          } else if (e.state === "canceled") reject(new Error("the download was canceled"));
        });
      });
      await click();
      const { guid, name } = await done;
      return { bytes: new Uint8Array(readFileSync(join(downloads, guid))), name };
    },
    async close() {
      await browser.close().catch(() => undefined);
      const group = (signal: NodeJS.Signals) => {
        try {
          if (child.pid) process.kill(-child.pid, signal);
        } catch {
          // the group is gone already
        }
      };
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        group("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      }
      // The helpers (network service, storage) can outlive the browser process by a moment.
      group("SIGKILL");
      // Their last writes can still land while the folder is being removed (ENOTEMPTY): try again, and a
      // temporary folder that will not go is said, not failed on: the test's verdict is already in.
      try {
        rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
      } catch (e) {
        console.warn(`could not remove ${profile}: ${(e as Error).message}`);
      }
    },
  };
}

/** The page's document.visibilityState (works on a hidden page; not on a frozen one). */
export const visibility = (page: Page) => page.evaluate(() => document.visibilityState);
