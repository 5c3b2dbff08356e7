// The mind's dashboard tabs, in Debian's Chromium against the scripted model
// server (a fake at the model's HTTP boundary): a mind runs `mem add` and
// `focus set` / `focus done`; the Memory tab lists its goals and memories,
// search filters both, and a memory written while the tab is open appears;
// the Context tab lists its runs and opens one on the messages its calls were
// sent; the Settings tab saves a change, which is a config step and shows in
// its recent changes; the header's Settings button and the arrow keys reach
// the tabs; at 375 px wide nothing scrolls the page sideways.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserAndModelForFile } from "./browser";
import { createMind, waitForRowAfter, waitForStatus, RUNNING } from "./mind-page";

const baseUrl = inject("baseUrl");
const IDLE = { text: "Nothing needs doing.\n\n```bash\nFINAL=idle\n```" };
const env = browserAndModelForFile({ responder: () => IDLE });
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
});

const TABS = ["stream", "chat", "timeline", "usage", "memory", "files", "context", "settings"];
const selectedTab = () => page.locator('[role="tab"][aria-selected="true"]').getAttribute("data-testid");
const memoryTexts = () => page.getByTestId("memory-view").getByTestId("memory-text").allTextContents();
const goals = () =>
  page
    .getByTestId("memory-view")
    .getByTestId("goal-item")
    .evaluateAll((els) => els.map((e) => `${e.getAttribute("data-done")} ${/^[0-9a-f]{4}$/.test(e.getAttribute("data-goal-id") ?? "")} ${e.querySelector('[data-testid="goal-text"]')?.textContent}`));

describe("the mind's dashboard tabs", () => {
  it("Memory lists what mem and focus keep, open goals first and memories newest first, and search filters both", async () => {
    // The first run: two blocks (so the two memories are written at different times), then the goals.
    env.model.enqueue(
      { text: "I'll remember the kettle.\n\n```bash\nmem add The kettle is blue --tags home,Colours\n```" },
      {
        text:
          "And Tess, and my goals.\n\n```bash\nmem add Tess likes green tea --tags people\nfocus set Make tea for Tess\nid=$(focus set Water the plants | cut -c1-4)\nfocus set Learn everyone\\'s names\nfocus done \"$id\"\nFINAL=noted\n```",
      },
    );
    await createMind(page, baseUrl, { name: "Tabby", modelUrl: env.model.url });
    await waitForStatus(page, RUNNING);
    await waitForRowAfter(page, { type: "final", text: "noted" });

    await page.getByTestId("tab-memory").click();
    const view = page.getByTestId("memory-view");
    await view.waitFor();
    await expect.poll(memoryTexts, { timeout: 15_000 }).toEqual(["Tess likes green tea", "The kettle is blue"]);
    await expect.poll(goals).toEqual(["false true Make tea for Tess", "false true Learn everyone's names", "true true Water the plants (done " + new Date().toISOString().slice(0, 10) + ")"]);
    const kettle = view.getByTestId("memory-item").nth(1);
    await expect(kettle.getByTestId("memory-tag").allTextContents()).resolves.toEqual(["home", "Colours"]);
    await expect(kettle.getByTestId("memory-id").textContent()).resolves.toMatch(/^[0-9a-f]{8}$/);
    await expect(kettle.getByTestId("memory-date").textContent()).resolves.toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);

    // Text, in any case: a memory and a goal; a tag: only the memory that has it.
    await page.getByTestId("memory-search").fill("TEA");
    await expect.poll(memoryTexts).toEqual(["Tess likes green tea"]);
    await expect.poll(goals).toEqual(["false true Make tea for Tess"]);
    await page.getByTestId("memory-search").fill("colours");
    await expect.poll(memoryTexts).toEqual(["The kettle is blue"]);
    await expect.poll(goals).toEqual([]);
    await page.getByTestId("memory-search").fill("");
    await expect.poll(memoryTexts).toEqual(["Tess likes green tea", "The kettle is blue"]);
  });

  it("Memory follows the mind: a memory it writes while the tab is open appears", async () => {
    env.model.enqueue({ text: "One more.\n\n```bash\nmem add A note written live --tags live\nFINAL=noted-again\n```" });
    await expect.poll(memoryTexts, { timeout: 45_000 }).toEqual(["A note written live", "Tess likes green tea", "The kettle is blue"]);
    expect(await selectedTab()).toBe("tab-memory");
  });

  it("Context lists the runs newest first and opens one on the messages its model calls were sent", async () => {
    await page.getByTestId("tab-context").click();
    const view = page.getByTestId("context-view");
    await view.waitFor();
    const runs = view.getByTestId("context-run");
    await expect.poll(() => runs.count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    const times = await runs.locator("time").evaluateAll((els) => els.map((e) => Date.parse(e.getAttribute("datetime") ?? "")));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // The oldest is the first run: woken by the start, two model calls.
    const first = runs.last();
    await expect(first.getByTestId("context-run-woke").textContent()).resolves.toBe("Woke: the mind started");
    await expect(first.getByTestId("context-run-steps").textContent()).resolves.toBe("2 steps");
    await expect(runs.first().getByTestId("context-run-woke").textContent()).resolves.toMatch(/^Woke/);

    await first.click();
    await expect(first.getAttribute("aria-pressed")).resolves.toBe("true");
    const inspector = view.getByTestId("context-inspector");
    await inspector.getByTestId("context-message").first().waitFor({ timeout: 15_000 });
    await expect(inspector.getByTestId("context-message").first().getAttribute("data-role")).resolves.toBe("system");
    // Its second call saw the first block's reply and what it printed.
    await inspector.getByTestId("context-call").nth(1).click();
    await expect.poll(() => inspector.getByTestId("context-message-content").allTextContents(), { timeout: 10_000 }).toEqual(
      expect.arrayContaining([expect.stringContaining("mem add The kettle is blue")]),
    );
    // The step the call led to opens in the stream.
    await inspector.getByTestId("context-led-to").click();
    await expect.poll(selectedTab).toBe("tab-stream");
    await page.waitForURL((u) => u.searchParams.get("step") !== null);
    const stepId = new URL(page.url()).searchParams.get("step") ?? "";
    await page.locator(`[data-testid="step"][data-step-id="${stepId}"][data-selected]`).waitFor({ timeout: 10_000 });

    // Closing the inspector leaves the list.
    await page.getByTestId("tab-context").click();
    await view.getByTestId("context-run").last().click();
    await view.getByTestId("context-inspector-close").click();
    await expect(view.getByTestId("context-inspector").count()).resolves.toBe(0);
  });

  it("Settings is a tab: a save is a config step, shown in its recent changes; the header button opens it and goes back", async () => {
    await page.getByTestId("tab-usage").click();
    await page.getByTestId("mind-settings").click();
    await expect.poll(selectedTab).toBe("tab-settings");
    const history = page.getByTestId("config-history");
    await expect.poll(() => history.getByTestId("config-change").count()).toBe(1);
    await expect(history.getByTestId("config-change-line").allTextContents()).resolves.toEqual([expect.stringMatching(/^began with openai-compatible\/scripted, \d+ steps per run$/)]);

    const configs = await page.locator('[data-testid="step"][data-step-type="config"]').count();
    const before = await page.getByTestId("settings-max_iterations").inputValue();
    await page.getByTestId("settings-max_iterations").fill("7");
    await page.getByTestId("settings-save").click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="step"][data-step-type="config"]').length > n, configs);
    await expect.poll(() => history.getByTestId("config-change").count()).toBe(2);
    await expect(history.getByTestId("config-change").first().getByTestId("config-change-line").allTextContents()).resolves.toEqual([`max_iterations: ${before} → 7`]);
    const newest = page.locator('[data-testid="step"][data-step-type="config"]').last();
    await expect(history.getByTestId("config-change").first().getAttribute("data-step-id")).resolves.toBe(await newest.getAttribute("data-step-id"));

    // Pressed again, the header button goes back to the tab the reader was on.
    await page.getByTestId("mind-settings").click();
    await expect.poll(selectedTab).toBe("tab-usage");
  });

  it("every tab is reached by click and by the arrow keys, in order, one panel shown at a time", async () => {
    for (const tab of TABS) {
      await page.getByTestId(`tab-${tab}`).click();
      await expect.poll(selectedTab).toBe(`tab-${tab}`);
      await expect(page.locator('[role="tabpanel"]:not([hidden])').count()).resolves.toBe(1);
    }
    await page.getByTestId("tab-stream").click();
    await page.getByTestId("tab-stream").focus();
    for (const tab of TABS.slice(1)) {
      await page.keyboard.press("ArrowRight");
      await expect(page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).resolves.toBe(`tab-${tab}`);
      await expect.poll(selectedTab).toBe(`tab-${tab}`);
    }
    await page.keyboard.press("ArrowRight");
    await expect.poll(selectedTab).toBe("tab-stream");
    await page.keyboard.press("End");
    await expect.poll(selectedTab).toBe("tab-settings");
    await page.keyboard.press("Home");
    await expect.poll(selectedTab).toBe("tab-stream");
  });

  it("at 375 px wide no tab scrolls the page sideways, the tab list scrolls in itself, and the header's buttons are 40 px tall", async () => {
    const pageWidth = () => page.evaluate(() => document.scrollingElement?.scrollWidth ?? Infinity);
    await page.setViewportSize({ width: 375, height: 740 });
    for (const tab of TABS) {
      await page.getByTestId(`tab-${tab}`).click();
      await expect.poll(selectedTab).toBe(`tab-${tab}`);
      await page.waitForTimeout(200);
      expect(await pageWidth(), `tab ${tab}`).toBeLessThanOrEqual(375);
    }
    const list = page.getByRole("tablist", { name: "Mind views" });
    const sizes = await list.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, overflow: getComputedStyle(el).overflowX }));
    expect(sizes.overflow).toBe("auto");
    expect(sizes.client).toBeLessThanOrEqual(375);
    const heights = await page
      .locator("header button, header select, [role='tab']")
      .evaluateAll((els) => els.filter((e) => (e as HTMLElement).offsetParent !== null).map((e) => ({ id: e.getAttribute("data-testid") ?? e.textContent ?? "", h: e.getBoundingClientRect().height })));
    expect(heights.length).toBeGreaterThanOrEqual(TABS.length + 4);
    expect(heights.filter((b) => b.h < 40)).toEqual([]);

    await page.setViewportSize({ width: 1280, height: 800 });
    for (const tab of TABS) {
      await page.getByTestId(`tab-${tab}`).click();
      await expect.poll(selectedTab).toBe(`tab-${tab}`);
      expect(await pageWidth(), `tab ${tab}`).toBeLessThanOrEqual(1280);
    }
  });
});
