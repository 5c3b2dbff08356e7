// Themes, keyboard shortcuts and the phone layout, in Debian's Chromium
// against the scripted model server (a fake at the model's HTTP boundary):
// `?` opens the help overlay listing the page's shortcuts, Esc closes it and
// focus goes back; `/` focuses the search; Ctrl+Enter sends; End and G jump
// to the newest step; `.` stops the mind; the theme toggle switches <html>
// to dark and back, survives a reload and, on System, follows the system;
// at 375 px no page scrolls sideways and the primary buttons are 40 px tall.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { writeTarGz } from "../../lib/archive/write";
import { makeHeadlongTree } from "../fixtures/headlong-tree";
import { browserAndModelForFile } from "./browser";
import { createMind, sendMessage, stopMind, waitForRowAfter, waitForStatus, RUNNING } from "./mind-page";

const baseUrl = inject("baseUrl");
const env = browserAndModelForFile();

const activeTestId = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("data-testid") ?? document.activeElement?.tagName ?? null);
const htmlTheme = (page: Page) =>
  page.evaluate(() => ({ dark: document.documentElement.classList.contains("dark"), choice: document.documentElement.dataset.theme, scheme: getComputedStyle(document.documentElement).colorScheme }));
/** Focus on no field: the page itself. */
const blur = (page: Page) => page.evaluate(() => (document.activeElement instanceof HTMLElement ? document.activeElement.blur() : undefined));

describe("keyboard shortcuts on a mind's page", () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await env.browser.newContext();
    page = await context.newPage();
    await createMind(page, baseUrl, { name: "Keys", modelUrl: env.model.url });
    await waitForStatus(page, RUNNING);
    await waitForRowAfter(page, { type: "reasoning" });
  });
  afterAll(async () => {
    await context?.close();
  });

  it("? opens the help overlay listing send, stop, search and jump-newest; Esc closes it and focus returns", async () => {
    await page.getByTestId("mind-settings").focus();
    await page.keyboard.press("?");
    const help = page.getByTestId("shortcuts-help");
    await help.waitFor();
    expect(await help.evaluate((d) => [d.getAttribute("role"), d.getAttribute("aria-modal"), (d as HTMLDialogElement).open])).toEqual(["dialog", "true", true]);
    const items = await help.getByTestId("shortcut-item").allTextContents();
    for (const text of ["Send the message (also while typing)Ctrl/⌘Enter", "Stop the mind (winds the run down).", "Search the stream/", "Jump to the newest stepEndorG", "Show the keyboard shortcuts?"]) {
      expect(items.some((i) => i.includes(text)), `${text} in ${JSON.stringify(items)}`).toBe(true);
    }
    // Focus starts inside and stays inside while tabbing, both ways.
    expect(await activeTestId(page)).toBe("shortcuts-close");
    for (const key of ["Tab", "Tab", "Shift+Tab", "Shift+Tab", "Shift+Tab"]) {
      await page.keyboard.press(key);
      expect(await page.evaluate(() => !!document.activeElement?.closest('[data-testid="shortcuts-help"]'))).toBe(true);
    }
    // Shortcuts do not act behind the modal overlay.
    await page.keyboard.press(".");
    expect(await page.getByTestId("mind-status").textContent()).not.toBe("stopped");
    await page.keyboard.press("Escape");
    await help.waitFor({ state: "detached" });
    expect(await activeTestId(page)).toBe("mind-settings");

    // The button opens it too; closing returns to the button.
    await page.getByTestId("shortcuts-button").click();
    await help.waitFor();
    await page.keyboard.press("Escape");
    await help.waitFor({ state: "detached" });
    expect(await activeTestId(page)).toBe("shortcuts-button");
  });

  it("/ focuses the stream's search box without typing into it; in a field it is just a character", async () => {
    await blur(page);
    await page.keyboard.press("/");
    expect(await activeTestId(page)).toBe("step-search");
    expect(await page.getByTestId("step-search").inputValue()).toBe("");
    await page.getByTestId("message-input").focus();
    await page.keyboard.press("/");
    expect(await activeTestId(page)).toBe("message-input");
    expect(await page.getByTestId("message-input").inputValue()).toBe("/");
    await page.getByTestId("message-input").fill("");
  });

  it("Ctrl+Enter sends the message, from the box and from elsewhere on the page", async () => {
    await page.getByTestId("message-input").fill("Sent from the box with Ctrl+Enter");
    await page.getByTestId("message-input").press("Control+Enter");
    await page.locator('[data-testid="step"][data-step-type="message"]', { hasText: "Sent from the box with Ctrl+Enter" }).first().waitFor({ timeout: 10_000 });
    expect(await page.getByTestId("message-input").inputValue()).toBe("");

    await page.getByTestId("message-input").fill("Sent from the stream with Ctrl+Enter");
    await blur(page);
    await page.keyboard.press("Control+Enter");
    await page.locator('[data-testid="step"][data-step-type="message"]', { hasText: "Sent from the stream with Ctrl+Enter" }).first().waitFor({ timeout: 10_000 });
    expect(await page.getByTestId("message-input").inputValue()).toBe("");
  });

  it("End, G and the Newest button select the newest step", async () => {
    await sendMessage(page, "One more, to have a newest step");
    const ids = () => page.locator('[data-testid="step"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-step-id") ?? ""));
    const selected = () => page.locator('[data-testid="step"][data-selected]').evaluateAll((els) => els.map((e) => e.getAttribute("data-step-id")));
    const first = (await ids())[0] ?? "";
    for (const press of [() => page.keyboard.press("End"), () => page.keyboard.press("G"), () => page.getByTestId("jump-newest").click()]) {
      await page.locator('[data-testid="step"]').first().click({ position: { x: 2, y: 2 } });
      await expect.poll(selected).toEqual([first]);
      // Steps keep coming while the mind runs: the jump selects a step at least as new as the newest before the key.
      const newestBefore = (await ids()).length - 1;
      await press();
      await expect.poll(async () => {
        const [sel] = await selected();
        const all = await ids();
        return sel !== first && all.indexOf(sel ?? "") >= newestBefore;
      }).toBe(true);
      const step = new URL(page.url()).searchParams.get("step");
      expect((await selected())[0]).toBe(step);
      expect(await page.locator(`[data-testid="step"][data-step-id="${step}"]`).isVisible()).toBe(true);
    }
  });

  it(". stops the mind", async () => {
    await page.keyboard.press("Escape");
    await blur(page);
    await page.keyboard.press(".");
    await waitForStatus(page, "stopped", 15_000);
  });
});

describe("themes", () => {
  it("the toggle cycles System → Light → Dark, survives a reload with no flash, and System follows the system", async () => {
    const context = await env.browser.newContext({ colorScheme: "light" });
    try {
      const page = await context.newPage();
      // What <html> says at the first frame, before anything is painted.
      await context.addInitScript(() => {
        requestAnimationFrame(() => ((window as unknown as { firstFrameDark: boolean }).firstFrameDark = document.documentElement.classList.contains("dark")));
      });
      await page.goto(baseUrl);
      await page.getByTestId("new-mind-name").waitFor();
      const toggle = page.getByTestId("theme-toggle");
      expect(await htmlTheme(page)).toEqual({ dark: false, choice: "system", scheme: "light" });
      await expect.poll(() => toggle.getAttribute("aria-label")).toBe("Theme: System (light). Switch to Light");

      await toggle.click();
      expect(await htmlTheme(page)).toEqual({ dark: false, choice: "light", scheme: "light" });
      await toggle.click();
      expect(await htmlTheme(page)).toEqual({ dark: true, choice: "dark", scheme: "dark" });
      expect(await toggle.getAttribute("aria-label")).toBe("Theme: Dark. Switch to System");
      const bodyBg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const darkBg = await bodyBg();

      await page.reload();
      await page.getByTestId("new-mind-name").waitFor();
      expect(await htmlTheme(page)).toEqual({ dark: true, choice: "dark", scheme: "dark" });
      expect(await page.evaluate(() => (window as unknown as { firstFrameDark: boolean }).firstFrameDark)).toBe(true);
      await expect.poll(() => toggle.getAttribute("aria-label")).toBe("Theme: Dark. Switch to System");
      expect(await bodyBg()).toBe(darkBg);

      // Back to System: it follows the (emulated) system, live.
      await toggle.click();
      expect(await htmlTheme(page)).toEqual({ dark: false, choice: "system", scheme: "light" });
      expect(await bodyBg()).not.toBe(darkBg);
      await page.emulateMedia({ colorScheme: "dark" });
      await expect.poll(() => htmlTheme(page)).toEqual({ dark: true, choice: "system", scheme: "dark" });
      expect(await toggle.getAttribute("aria-label")).toBe("Theme: System (dark). Switch to Light");
      expect(await bodyBg()).toBe(darkBg);
      await page.emulateMedia({ colorScheme: "light" });
      await expect.poll(() => htmlTheme(page)).toEqual({ dark: false, choice: "system", scheme: "light" });
      await page.reload();
      await page.getByTestId("new-mind-name").waitFor();
      expect(await page.evaluate(() => (window as unknown as { firstFrameDark: boolean }).firstFrameDark)).toBe(false);
    } finally {
      await context.close();
    }
  });

  it("the usage charts are drawn in the toggled theme's colours", async () => {
    const context = await env.browser.newContext({ colorScheme: "light" });
    try {
      const page = await context.newPage();
      await createMind(page, baseUrl, { name: "Charts", modelUrl: env.model.url });
      await waitForRowAfter(page, { type: "reasoning" });
      await stopMind(page);
      await page.getByTestId("tab-usage").click();
      const chart = page.getByTestId("usage-chart-tokens-hour");
      await chart.locator("canvas").waitFor({ timeout: 10_000 });
      await expect.poll(() => chart.getAttribute("data-scheme")).toBe("light");
      await page.getByTestId("theme-toggle").click(); // Light
      await page.getByTestId("theme-toggle").click(); // Dark
      await expect.poll(() => chart.getAttribute("data-scheme")).toBe("dark");
      await page.getByTestId("theme-toggle").click(); // System (light)
      await expect.poll(() => chart.getAttribute("data-scheme")).toBe("light");
    } finally {
      await context.close();
    }
  });
});

async function archiveFile(): Promise<string> {
  const tree = makeHeadlongTree({ steps: 40, withChild: true, seed: 7 });
  const dir = await mkdtemp(join(tmpdir(), "reverie-phone-"));
  const path = join(dir, "phone.tar.gz");
  const blob = await new Response(writeTarGz(tree.files.map((f) => ({ path: f.path, data: f.data })))).blob();
  await writeFile(path, new Uint8Array(await blob.arrayBuffer()));
  return path;
}

/** How far the page scrolls sideways, and the given buttons that are shown but under 40 px tall. */
async function phoneProblems(page: Page, buttons: string[]): Promise<{ scrollWidth: number; small: string[] }> {
  return page.evaluate((ids) => {
    const small = ids.flatMap((id) =>
      [...document.querySelectorAll(`[data-testid="${id}"]`)].filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height < 40;
      }).map((el) => `${id}: ${Math.round(el.getBoundingClientRect().height)} px`),
    );
    return { scrollWidth: document.scrollingElement?.scrollWidth ?? Infinity, small };
  }, buttons);
}

describe("a phone, 375 × 740", () => {
  it("home, a mind's stream, a shared link and an imported archive scroll only up and down; primary buttons are 40 px tall", async () => {
    const context = await env.browser.newContext({ viewport: { width: 375, height: 740 } });
    try {
      const page = await context.newPage();
      const found: string[] = [];
      const check = async (where: string, buttons: string[]) => {
        const p = await phoneProblems(page, ["theme-toggle", "shortcuts-button", ...buttons]);
        if (p.scrollWidth > 375) found.push(`${where}: scrollWidth ${p.scrollWidth}`);
        found.push(...p.small.map((s) => `${where}: ${s}`));
      };

      const mindUrl = await createMind(page, baseUrl, { name: "A mind with a rather long name for a small phone", modelUrl: env.model.url });
      await waitForRowAfter(page, { type: "reasoning" });
      await sendMessage(page, "A long message without spaces: " + "x".repeat(200));
      await check("mind stream (running)", ["mind-stop", "panic-stop", "send-message", "jump-newest", "step-search"]);
      await stopMind(page);
      await check("mind stream (stopped)", ["mind-start"]);

      await page.getByTestId("share-mode").selectOption("live");
      await page.getByTestId("share-create").click();
      await page.getByTestId("share-link").waitFor({ timeout: 30_000 });
      const liveUrl = await page.getByTestId("share-link").inputValue();
      await check("mind page with a share link", ["share-create", "invite-create"]);

      await page.goto(baseUrl);
      await page.getByTestId("mind-list").waitFor();
      await check("home", []);

      await page.goto(liveUrl);
      await page.locator('[data-testid="step"]').first().waitFor({ timeout: 30_000 });
      await check("shared link", ["jump-newest"]);

      await page.goto(baseUrl);
      await page.getByTestId("import-file").setInputFiles(await archiveFile());
      await page.waitForURL(/\/view\/[0-9a-f-]{36}/, { timeout: 60_000 });
      await page.locator('[data-testid="step"]').first().waitFor();
      await page.getByTestId("fork-tree").waitFor();
      await check("imported archive", ["jump-newest"]);
      expect(mindUrl).toMatch(/\/mind\//);
      expect(found).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
