// An XSS corpus (scripts, event handlers, javascript: URLs, SVG, CSS,
// markdown link tricks) in a mind's name and persona, its thoughts, its shell
// output, a workspace file, a person's name and message, and the mind's
// reply: the host's pages, a live share link and an invite (with a hostile
// guest name) show all of it as text and run none of it, in Debian's
// Chromium. Prose is Markdown: its links to javascript:/data: are text, its
// images are never loaded (no request reaches the tracker), its HTML is text.
import type { Locator, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { browserAndModelForFile } from "./browser";
import { createMind, waitForRowAfter } from "./mind-page";
import { TRACKER, watchForXss, XSS_NAME, XSS_PAYLOADS, XSS_PERSON, XSS_TEXT, xssTraces } from "./xss-corpus";

const baseUrl = inject("baseUrl");
const env = browserAndModelForFile();

/** A thought carrying the corpus, a block that prints it and writes it to a file, and FINAL. */
export const HOSTILE_RUN = `${XSS_TEXT}\n\n\`\`\`bash\ncat <<'EOF' | tee page.html\n${XSS_TEXT}\nEOF\nFINAL='${XSS_NAME}'\n\`\`\``;

/** Open every step's details that can be opened, so bodies render too. */
async function expandAll(page: Page): Promise<void> {
  for (const toggle of await page.getByTestId("toggle-run").all()) {
    if ((await toggle.getAttribute("aria-expanded")) === "false") await toggle.click();
  }
  for (const blob of await page.getByTestId("load-blob").all()) await blob.click();
}

export async function expectNoXss(page: Page, seen: { dialogs: string[]; tracked: string[] }): Promise<void> {
  // Event handlers fire on load and on layout; give them a moment to do so.
  await page.waitForTimeout(300);
  await expect(xssTraces(page)).resolves.toEqual({ xss: null, pwn: 0, jsLinks: 0, foreignFrames: 0, images: 0 });
  expect(seen.dialogs).toEqual([]);
  expect(seen.tracked).toEqual([]);
}

/** The watch sees a request to the tracker when one is made (so "none" above means none): made from the page, then forgotten. */
async function expectTrackerWatched(page: Page, seen: { tracked: string[] }): Promise<void> {
  await page.evaluate((url) => {
    new Image().src = url;
  }, `${TRACKER}/control.png`);
  await expect.poll(() => seen.tracked).toEqual([`${TRACKER}/control.png`]);
  seen.tracked.length = 0;
}

/** The thought was rendered as Markdown (not as plain text): images as their alt text, unsafe links as text, code in <pre>. */
async function expectMarkdownRendered(page: Page): Promise<void> {
  const stream = page.getByTestId("thought-stream");
  const thought = stream.locator('[data-testid="step"][data-step-type="reasoning"] [data-markdown=""]').first();
  await thought.waitFor({ timeout: 10_000 });
  await expect(thought.locator("[data-md-image]").allTextContents()).resolves.toEqual(
    expect.arrayContaining(["image: ref image (http://xss-tracker.invalid/ref.png)", "image: tracker (http://xss-tracker.invalid/pixel.png)", "image: inline svg", "image: js"]),
  );
  await expect(thought.locator("[data-md-unlinked]").allTextContents()).resolves.toEqual(expect.arrayContaining(["ref link", "plain", "javascript:window.__xss='md-autolink'", "upper", "spaced", "vb", "data", "rel", "proto"]));
  await expect(thought.locator('pre[aria-label="code"]').first().textContent()).resolves.toContain("<script>window.__xss='fenced'</script>");
}

describe("an XSS corpus on the host's pages", () => {
  it("is shown as text and runs nothing: names, persona, thoughts, outputs, files, messages, replies", async () => {
    const context = await env.browser.newContext();
    try {
      const page = await context.newPage();
      const seen = watchForXss(page);
      env.model.enqueue({ text: HOSTILE_RUN });
      env.model.enqueueReply({ text: XSS_TEXT });
      await createMind(page, baseUrl, { name: XSS_NAME, persona: XSS_TEXT, modelUrl: env.model.url });
      const output = await waitForRowAfter(page, { type: "shell-output", text: "window.__xss='script'" });
      expect(output).toMatch(/^[0-9a-f-]{36}$/);

      // A person whose name and message are hostile, and a hostile reply, in the chat view.
      await page.getByTestId("sender-name").fill(XSS_PERSON);
      await page.getByTestId("message-input").fill(XSS_TEXT);
      await page.getByTestId("send-message").click();
      await page.getByTestId("tab-chat").click();
      await page.getByTestId("chat-view").getByTestId("message-status").filter({ hasText: /^replied$/ }).waitFor({ timeout: 30_000 });
      await page.getByTestId("chat-person").filter({ hasText: XSS_PERSON }).first().waitFor();
      await expectNoXss(page, seen);
      await page.getByTestId("tab-stream").click();
      await expandAll(page);

      // The stream shows each payload literally.
      for (const p of XSS_PAYLOADS.slice(0, 4)) await expect(page.getByTestId("thought-stream").getByText(p, { exact: false }).count()).resolves.toBeGreaterThan(0);
      await expect(page.locator("h1").textContent()).resolves.toBe(XSS_NAME);
      await expectMarkdownRendered(page);
      await expectNoXss(page, seen);
      await expectTrackerWatched(page, seen);

      // The workspace file the block wrote, in the file viewer.
      await page.getByTestId("tab-files").click();
      await page.locator('[data-testid="file-item"][data-path="/workspace/page.html"]').click();
      await page.getByTestId("file-viewer").getByTestId("file-text").getByText("window.__xss='script'", { exact: false }).waitFor();
      await expectNoXss(page, seen);

      // The list of minds shows the hostile name as text too.
      await page.goto(baseUrl);
      await page.getByText(XSS_NAME, { exact: true }).first().waitFor();
      await expectNoXss(page, seen);
    } finally {
      await context.close();
    }
  });

  it("on a live link and an invite, a hostile guest name and message run nothing either", async () => {
    const host = await env.browser.newContext();
    const guest = await env.browser.newContext();
    try {
      const page = await host.newPage();
      const hostSeen = watchForXss(page);
      env.model.enqueue({ text: HOSTILE_RUN });
      env.model.enqueueReply({ text: XSS_TEXT });
      await createMind(page, baseUrl, { name: XSS_NAME, persona: XSS_TEXT, modelUrl: env.model.url });
      await waitForRowAfter(page, { type: "shell-output", text: "window.__xss='script'" });

      await page.getByTestId("share-mode").selectOption("live");
      await page.getByTestId("share-create").click();
      const live = await linkOf(page.getByTestId("share-link"));
      await page.getByTestId("invite-create").click();
      const invite = await linkOf(page.getByTestId("invite-link"));

      // A viewer on the live link sees the hostile run as text.
      const viewer = await guest.newPage();
      const viewerSeen = watchForXss(viewer);
      await viewer.goto(new URL(live, baseUrl).href);
      await viewer.getByTestId("thought-stream").getByText("window.__xss='script'", { exact: false }).first().waitFor({ timeout: 15_000 });
      await expandAll(viewer);
      await expectMarkdownRendered(viewer);
      await expectNoXss(viewer, viewerSeen);

      // A guest with a hostile name writes a hostile message and gets a hostile reply.
      const inv = await guest.newPage();
      const invSeen = watchForXss(inv);
      await inv.goto(new URL(invite, baseUrl).href);
      await inv.getByTestId("guest-name").fill(XSS_PERSON);
      await inv.getByTestId("message-input").fill(XSS_TEXT);
      await inv.getByTestId("send-message").click();
      const reply = inv.locator('[data-testid="step"][data-step-type="message"]', { hasText: XSS_PERSON });
      await expect.poll(() => reply.count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
      await expandAll(inv);
      await expectNoXss(inv, invSeen);
      await expectNoXss(viewer, viewerSeen);

      // The host sees who is talking, by that name, as text.
      await page.getByTestId("tab-chat").click();
      await page.getByTestId("chat-person").filter({ hasText: XSS_PERSON }).first().waitFor({ timeout: 15_000 });
      await expectNoXss(page, hostSeen);
    } finally {
      await guest.close();
      await host.close();
    }
  });
});

/** The URL a share control shows: its href, or its value. */
async function linkOf(el: Locator): Promise<string> {
  await el.waitFor({ timeout: 15_000 });
  await expect.poll(async () => (await el.getAttribute("href")) ?? (await el.inputValue().catch(() => "")), { timeout: 15_000 }).toMatch(/\/s\/[A-Za-z0-9_-]{43}/);
  return (await el.getAttribute("href")) ?? (await el.inputValue());
}
