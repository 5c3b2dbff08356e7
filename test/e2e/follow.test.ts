// The live stream keeps the newest step in view while the reader is at the
// bottom, and stops when they scroll away. A page opened on a long stream
// (virtualized, loading its history as it grows) must start at the bottom and
// stay there: the loading's own scrolls are not the reader's.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserAndModelForFile } from "./browser";
import { createMind, RUNNING, waitForStatus } from "./mind-page";

const baseUrl = inject("baseUrl");
let calls = 0;
// Quick calls, each a short run (header, prompt, block, output, final): a long stream in seconds.
const env = browserAndModelForFile({
  responder: () => ({ text: `Next.\n\n\`\`\`bash\necho "n ${++calls}"\nFINAL="act: ${calls}"\n\`\`\``, chunkDelayMs: 0 }),
});

/** Where the stream's scroller is: pixels left below the view, and how tall it all is. */
const position = (page: Page) =>
  page.getByTestId("thought-stream").evaluate((list) => {
    const el = list.parentElement as HTMLElement;
    return { below: el.scrollHeight - el.scrollTop - el.clientHeight, top: el.scrollTop, height: el.scrollHeight };
  });

/** Wait until the view is at the bottom: it gets there within a few frames of the rows being drawn and measured. */
const atBottom = (page: Page) => expect.poll(async () => (await position(page)).below, { timeout: 3000, interval: 20 }).toBeLessThan(80);

/** The newest step id the stream has rendered. */
const newestShown = (page: Page) => page.locator('[data-testid="step"]').evaluateAll((els) => els.at(-1)?.getAttribute("data-step-id") ?? "");

/** Wait until the stream has rendered a newer last step than `id`. */
const grows = (page: Page, id: string) =>
  page.waitForFunction((before) => [...document.querySelectorAll('[data-testid="step"]')].at(-1)?.getAttribute("data-step-id") !== before, id, { timeout: 15_000 });

describe("following the live stream", () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await env.browser.newContext({ viewport: { width: 1000, height: 700 } });
    page = await context.newPage();
    await createMind(page, baseUrl, { name: "Follower", modelUrl: env.model.url });
    await waitForStatus(page, RUNNING, 30_000);
    // Past the plain limit: the stream is virtualized from here on.
    await page.waitForFunction(() => document.querySelector('ol.relative[data-testid="thought-stream"]') !== null, undefined, { timeout: 120_000, polling: 200 });
  });

  afterAll(async () => {
    await context?.close();
  });

  it("a page opened on a long stream starts at its newest step and stays there as it grows", async () => {
    for (let i = 0; i < 3; i++) {
      await page.reload();
      await waitForStatus(page, RUNNING, 20_000);
      await page.locator('[data-testid="step"]').first().waitFor();
      for (let k = 0; k < 3; k++) {
        await grows(page, await newestShown(page));
        await atBottom(page);
      }
    }
  });

  it("scrolling up stops the following; Escape starts it again", async () => {
    const scroller = page.getByTestId("thought-stream").locator("..");
    await scroller.hover();
    await page.mouse.wheel(0, -3000);
    await page.waitForTimeout(300);
    const left = await position(page);
    expect(left.below).toBeGreaterThan(1000);
    // The stream grows below; the reader's place does not move.
    await expect.poll(async () => (await position(page)).height, { timeout: 15_000 }).toBeGreaterThan(left.height + 500);
    expect(Math.abs((await position(page)).top - left.top)).toBeLessThan(200);

    await scroller.press("Escape");
    await grows(page, await newestShown(page));
    await atBottom(page);
  });
});
