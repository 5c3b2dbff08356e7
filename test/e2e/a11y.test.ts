// An accessibility scan (axe-core, in Debian's Chromium) of every page and
// tab, in the light and the dark colour scheme: the home page, a mind's page
// with each tab, Settings and the context inspector open, an imported
// archive's view, a shared link and an invite, the keyboard shortcuts
// overlay, and the toggle's Light and Dark against either system scheme.
// Each scan fails listing every serious or critical violation: its rule,
// impact, the elements and the help. Each also saves a full-page screenshot,
// test-results/screenshots/<scheme>-<what>.png, for a person to look at.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { writeTarGz } from "../../lib/archive/write";
import { makeHeadlongTree } from "../fixtures/headlong-tree";
import { scan } from "./axe-scan";
import { browserAndModelForFile } from "./browser";
import { createMind, stopMind, waitForRowAfter } from "./mind-page";

const baseUrl = inject("baseUrl");
const env = browserAndModelForFile();
const SCHEMES = ["light", "dark"] as const;

async function archiveFile(): Promise<string> {
  const tree = makeHeadlongTree({ steps: 40, withChild: true, seed: 11 });
  const dir = await mkdtemp(join(tmpdir(), "reverie-a11y-"));
  const path = join(dir, "a11y.tar.gz");
  const blob = await new Response(writeTarGz(tree.files.map((f) => ({ path: f.path, data: f.data })))).blob();
  await writeFile(path, new Uint8Array(await blob.arrayBuffer()));
  return path;
}

for (const colorScheme of SCHEMES) {
  describe(`accessibility, ${colorScheme} scheme`, () => {
    let host: BrowserContext;
    let visitor: BrowserContext;
    let page: Page;
    let mindUrl = "";
    let liveUrl = "";
    let inviteUrl = "";

    beforeAll(async () => {
      host = await env.browser.newContext({ colorScheme });
      visitor = await env.browser.newContext({ colorScheme });
      page = await host.newPage();
    });
    afterAll(async () => {
      await Promise.all([host?.close(), visitor?.close()]);
    });

    it("the home page, with the list of minds and the new-mind form", async () => {
      await page.goto(baseUrl);
      await page.getByTestId("new-mind-name").waitFor();
      expect(await scan(page, `${colorScheme}-home`)).toEqual([]);
    });

    it("a mind's page, on each tab", async () => {
      mindUrl = await createMind(page, baseUrl, { name: `Ada ${colorScheme}`, modelUrl: env.model.url });
      await waitForRowAfter(page, { type: "reasoning" });
      await stopMind(page);
      const found: string[] = [];
      for (const tab of ["stream", "chat", "timeline", "usage", "memory", "files", "context", "settings"]) {
        await page.getByTestId(`tab-${tab}`).click();
        await page.locator(`[data-testid="tab-${tab}"][aria-selected="true"]`).waitFor();
        found.push(...(await scan(page, `${colorScheme}-mind-${tab}`)).map((v) => `tab-${tab}: ${v}`));
      }
      expect(found).toEqual([]);
    });

    it("a mind's page with Settings open", async () => {
      await page.goto(mindUrl);
      await page.getByTestId("mind-settings").click();
      await page.getByTestId("settings-panel").waitFor();
      expect(await scan(page, `${colorScheme}-mind-settings-button`)).toEqual([]);
    });

    it("the classroom, the harness comparison, a mind's replay, and each in presentation mode", async () => {
      const mindId = new URL(mindUrl).pathname.split("/").pop() ?? "";
      const found: string[] = [];
      const pages = [
        { name: "classroom", url: `${baseUrl}/classroom`, ready: "classroom-harnesses" },
        { name: "harnesses", url: `${baseUrl}/classroom/harnesses`, ready: "harness-total" },
        { name: "replay", url: `${baseUrl}/replay/mind/${mindId}`, ready: "replay-position" },
      ];
      for (const presenting of [false, true]) {
        for (const p of pages) {
          await page.goto(p.url);
          await page.getByTestId(p.ready).first().waitFor({ timeout: 30_000 });
          const toggle = page.getByTestId("presentation-toggle");
          // Until the page has hydrated, the server's markup shows the default and a click does nothing: look again, click again.
          await expect
            .poll(
              async () => {
                if ((await toggle.getAttribute("aria-pressed")) !== String(presenting)) await toggle.click();
                return toggle.getAttribute("aria-pressed");
              },
              { timeout: 30_000, interval: 500 },
            )
            .toBe(String(presenting));
          const shot = `${colorScheme}-${p.name}${presenting ? "-presenting" : ""}`;
          found.push(...(await scan(page, shot)).map((v) => `${shot}: ${v}`));
        }
      }
      // Presentation mode is remembered: leave it off for the pages after these.
      await page.getByTestId("presentation-toggle").click();
      expect(found).toEqual([]);
    });

    it("a mind's page with the context inspector open", async () => {
      await page.goto(mindUrl);
      await page.locator('[data-testid="step"][data-step-type="reasoning"]').first().getByTestId("inspect-context").click();
      await page.getByTestId("context-inspector").getByTestId("context-message").first().waitFor({ timeout: 30_000 });
      expect(await scan(page, `${colorScheme}-mind-inspector`)).toEqual([]);
    });

    it("a mind's page with the keyboard shortcuts overlay open, and in each theme the toggle picks", async () => {
      await page.goto(mindUrl);
      await page.getByTestId("shortcuts-button").click();
      await page.getByTestId("shortcuts-help").getByTestId("shortcut-item").first().waitFor();
      const found = (await scan(page, `${colorScheme}-shortcuts`)).map((v) => `shortcuts overlay: ${v}`);
      await page.keyboard.press("Escape");
      await page.getByTestId("shortcuts-help").waitFor({ state: "detached" });
      // The toggle cycles System → Light → Dark → System; each explicit choice, against this system scheme.
      for (const choice of ["light", "dark"]) {
        await page.getByTestId("theme-toggle").click();
        await page.locator(`html[data-theme="${choice}"]`).waitFor({ state: "attached" });
        found.push(...(await scan(page, `${colorScheme}-theme-${choice}`)).map((v) => `theme ${choice}: ${v}`));
      }
      await page.getByTestId("theme-toggle").click();
      await page.locator('html[data-theme="system"]').waitFor({ state: "attached" });
      expect(found).toEqual([]);
    });

    it("a shared live link and an invite", async () => {
      await page.goto(mindUrl);
      await page.getByTestId("share-mode").selectOption("live");
      await page.getByTestId("share-create").click();
      await page.getByTestId("share-link").waitFor({ timeout: 30_000 });
      liveUrl = await page.getByTestId("share-link").inputValue();
      await page.getByTestId("invite-create").click();
      await page.getByTestId("invite-link").waitFor({ timeout: 30_000 });
      inviteUrl = await page.getByTestId("invite-link").inputValue();
      // The share bar with its links, on the host's page.
      const found = (await scan(page, `${colorScheme}-share-bar`)).map((v) => `share bar: ${v}`);

      const viewer = await visitor.newPage();
      await viewer.goto(liveUrl);
      await viewer.getByTestId("thought-stream").waitFor({ timeout: 30_000 });
      await viewer.locator('[data-testid="step"]').first().waitFor({ timeout: 30_000 });
      found.push(...(await scan(viewer, `${colorScheme}-shared-live`)).map((v) => `/s/ live: ${v}`));
      await viewer.goto(inviteUrl);
      await viewer.getByTestId("message-input").waitFor({ timeout: 30_000 });
      found.push(...(await scan(viewer, `${colorScheme}-shared-invite`)).map((v) => `/s/ invite: ${v}`));
      await viewer.close();
      expect(found).toEqual([]);
    });

    it("an imported archive's view", async () => {
      await page.goto(baseUrl);
      await page.getByTestId("import-file").setInputFiles(await archiveFile());
      await page.waitForURL(/\/view\/[0-9a-f-]{36}/, { timeout: 60_000 });
      await page.locator('[data-testid="step"]').first().waitFor();
      await page.getByTestId("fork-tree").waitFor();
      expect(await scan(page, `${colorScheme}-archive`)).toEqual([]);
    });
  });
}
