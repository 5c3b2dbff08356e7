// Talking with a mind, in Debian's Chromium against the scripted model
// server: the responder answers while the inner life is stuck, the chat view
// shows what became of each message (and each reply once), and a panic stop
// ends a hung run at once, from the runner's tab or a viewing one.
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { browserAndModelForFile } from "./browser";
import { createMind as newMind } from "./mind-page";

const baseUrl = inject("baseUrl");
const env = browserAndModelForFile();

const createMind = (page: Page, name: string) => newMind(page, baseUrl, { name, modelUrl: env.model.url });

const mindIdOf = (url: string) => url.split("/").pop() ?? "";

interface StoredStep {
  type: string;
  step_id: string;
  ts: string;
  run_id?: string;
  reason?: string;
  content?: string;
  source?: string;
}

/** The mind's steps as stored (every trajectory), read straight from the page's IndexedDB. */
function storedSteps(page: Page, mindId: string): Promise<StoredStep[]> {
  return page.evaluate(
    (mind) =>
      new Promise<StoredStep[]>((resolve, reject) => {
        const open = indexedDB.open("reverie");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const req = db.transaction("steps").objectStore("steps").getAll();
          req.onerror = () => reject(req.error);
          req.onsuccess = () => {
            db.close();
            resolve((req.result as { mind_id: string; json: string }[]).filter((r) => r.mind_id === mind).map((r) => JSON.parse(r.json) as StoredStep));
          };
        };
      }),
    mindId,
  );
}

const errorsOf = async (page: Page, mindId: string, reason: string) => (await storedSteps(page, mindId)).filter((s) => s.type === "error" && s.reason === reason);

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId("message-input").fill(text);
  await page.getByTestId("send-message").click();
  await expect.poll(() => page.getByTestId("message-input").inputValue()).toBe("");
}

async function withContext(run: (context: BrowserContext) => Promise<void>): Promise<void> {
  // Each test's mind goes away with its context, so it takes nothing from the next test's script.
  const context = await env.browser.newContext();
  try {
    await run(context);
  } finally {
    await context.close();
  }
}

describe("the responder answers at once", () => {
  it("while a long inner-life run waits on its model", async () => {
    await withContext(async (context) => {
      const page = await context.newPage();
      // The inner life's first call takes 25 s: it is stuck in it the whole time.
      env.model.enqueue({ text: "A slow thought.\n\n```bash\necho slow\nFINAL=slow\n```", delayMs: 25_000 });
      env.model.enqueueReply({ text: "Yes, I am here, even mid-thought." });
      await createMind(page, "Fay");
      await page.locator('[data-testid="step"][data-step-type="prompt"]').first().waitFor({ timeout: 30_000 });
      const sent = Date.now();
      await send(page, "Are you there, Fay?");
      await page.getByTestId("tab-chat").click();
      const chat = page.getByTestId("chat-view");
      const entry = chat.locator('[data-testid="chat-message"]', { hasText: "Are you there, Fay?" });
      await entry.getByTestId("chat-reply").filter({ hasText: "Yes, I am here, even mid-thought." }).waitFor({ timeout: 10_000 });
      expect(Date.now() - sent).toBeLessThan(10_000);
      await expect(entry.getByTestId("message-status").textContent()).resolves.toBe("replied");
      // The slow run is still in flight: it has not run its block, let alone ended.
      const steps = await storedSteps(page, mindIdOf(page.url()));
      expect(steps.filter((s) => s.type === "shell-output" || s.type === "final")).toEqual([]);
      await expect(page.getByTestId("mind-status").textContent()).resolves.toMatch(/^thinking/);
    });
  });
});

describe("the chat view", () => {
  it("shows what became of each message, and each reply once", async () => {
    await withContext(async (context) => {
      const page = await context.newPage();
      // One responder call per message, in the order they were sent (the responder takes them one at a time).
      env.model.enqueueReply({ text: "Answer to the first." }, { text: "NO_REPLY" }, { status: 500, errorBody: "down" }, { text: "Late answer to the fourth.", delayMs: 20_000 });
      await createMind(page, "Gil");
      await page.getByTestId("tab-chat").click();
      const chat = page.getByTestId("chat-view");
      await chat.getByText("Nobody has written to Gil yet.", { exact: false }).waitFor();
      const entry = (text: string) => chat.locator('[data-testid="chat-message"]', { hasText: text });
      const status = (text: string) => entry(text).getByTestId("message-status");

      await send(page, "first: please answer");
      await status("first: please answer").filter({ hasText: /^replied$/ }).waitFor({ timeout: 15_000 });
      await send(page, "second: no need to answer");
      await status("second: no need to answer").filter({ hasText: /^read it and chose not to answer$/ }).waitFor({ timeout: 15_000 });
      await send(page, "third: this one fails");
      await status("third: this one fails").filter({ hasText: /^failed — / }).waitFor({ timeout: 15_000 });
      await send(page, "fourth: take your time");
      await status("fourth: take your time").filter({ hasText: /^thinking about it…$/ }).waitFor({ timeout: 10_000 });

      await expect(status("third: this one fails").textContent()).resolves.toMatch(/^failed — HTTP 500 .*down$/);
      await expect(chat.getByTestId("message-status").allTextContents()).resolves.toEqual(["replied", "read it and chose not to answer", expect.stringMatching(/^failed — /), "thinking about it…"]);
      // Only the person's messages have a status, and only the first has a reply yet.
      await expect(chat.getByTestId("chat-reply").allTextContents()).resolves.toEqual([expect.stringContaining("Answer to the first.")]);

      // The slow answer arrives, under its message, and is shown once.
      await status("fourth: take your time").filter({ hasText: /^replied$/ }).waitFor({ timeout: 30_000 });
      await expect(chat.getByTestId("chat-reply").allTextContents()).resolves.toEqual([expect.stringContaining("Answer to the first."), expect.stringContaining("Late answer to the fourth.")]);
      await expect(chat.getByText("Answer to the first.", { exact: true }).count()).resolves.toBe(1);
      await expect(chat.getByText("Late answer to the fourth.", { exact: true }).count()).resolves.toBe(1);
      await expect(entry("fourth: take your time").getByTestId("chat-reply").textContent()).resolves.toContain("Late answer to the fourth.");
      await expect(chat.getByTestId("chat-duplicates").count()).resolves.toBe(0);
      // The people list names the one person who wrote.
      await expect(chat.getByTestId("chat-person").allTextContents()).resolves.toEqual(["you(4)"]);

      // The tabs are keyboard-reachable: arrows move between Stream, Chat and Files.
      await page.getByTestId("tab-chat").focus();
      await page.keyboard.press("ArrowLeft");
      await expect(page.getByTestId("tab-stream").getAttribute("aria-selected")).resolves.toBe("true");
      await page.keyboard.press("ArrowRight");
      await expect(page.getByTestId("tab-chat").getAttribute("aria-selected")).resolves.toBe("true");
      await chat.waitFor();
    });
  });
});

describe("panic stop", () => {
  const HANG = "I will wait a long while.\n\n```bash\nsleep 600\nFINAL=slept\n```";

  it("ends a hung block at once, records why, and Start brings the mind back without an 'interrupted' run", async () => {
    await withContext(async (context) => {
      const page = await context.newPage();
      env.model.enqueue({ text: HANG });
      const url = await createMind(page, "Hal");
      const mindId = mindIdOf(url);
      // The block is running (its reasoning step is written just before it starts).
      await page.locator('[data-testid="step"][data-step-type="reasoning"]').first().waitFor({ timeout: 30_000 });
      await page.waitForTimeout(500);
      const run = await page.locator('[data-testid="step"][data-step-type="shellm-run"]').first().getAttribute("data-step-id");

      const panic = page.getByTestId("panic-stop");
      await expect(panic.getAttribute("aria-label")).resolves.toMatch(/end the run in flight at once/);
      const clicked = Date.now();
      await panic.click();
      await page.getByTestId("mind-status").filter({ hasText: /^stopped$/ }).waitFor({ timeout: 2_000 });
      expect(Date.now() - clicked).toBeLessThan(2_000);
      await page.locator('[data-testid="step"][data-step-type="error"]', { hasText: "Panic stop" }).waitFor({ timeout: 5_000 });
      const panics = await errorsOf(page, mindId, "panic-stop");
      expect(panics.map(({ run_id, content, source }) => ({ run_id, content, source }))).toEqual([
        { run_id: run, content: "Panic stop by its human: the run in flight was ended at once.", source: "system" },
      ]);
      await expect(panic.isDisabled()).resolves.toBe(true);

      // Start again: the mind comes back, and start-up finds the run closed.
      await page.getByTestId("mind-start").click();
      await page.getByTestId("mind-status").filter({ hasText: /thinking|waiting/ }).waitFor({ timeout: 10_000 });
      const panicTs = panics[0]?.ts ?? "";
      await expect.poll(async () => (await storedSteps(page, mindId)).some((s) => s.type === "wake" && s.ts > panicTs), { timeout: 15_000 }).toBe(true);
      await expect(errorsOf(page, mindId, "interrupted")).resolves.toEqual([]);
      await expect(page.getByTestId("mind-status").textContent()).resolves.toMatch(/thinking|waiting/);
    });
  });

  it("works from a tab that only views the mind: the runner's tab ends its worker and names the run", async () => {
    await withContext(async (context) => {
      const runner = await context.newPage();
      env.model.enqueue({ text: HANG });
      const url = await createMind(runner, "Ida");
      const mindId = mindIdOf(url);
      await runner.locator('[data-testid="step"][data-step-type="reasoning"]').first().waitFor({ timeout: 30_000 });
      const run = await runner.locator('[data-testid="step"][data-step-type="shellm-run"]').first().getAttribute("data-step-id");

      const viewer = await context.newPage();
      await viewer.goto(url);
      await viewer.getByTestId("mind-status").filter({ hasText: "viewing" }).waitFor({ timeout: 10_000 });
      await viewer.getByTestId("panic-stop").focus();
      const pressed = Date.now();
      await viewer.keyboard.press("Enter");
      await runner.getByTestId("mind-status").filter({ hasText: /^stopped$/ }).waitFor({ timeout: 2_000 });
      expect(Date.now() - pressed).toBeLessThan(2_000);
      await viewer.getByTestId("mind-status").filter({ hasText: "viewing — stopped" }).waitFor({ timeout: 5_000 });
      await viewer.locator('[data-testid="step"][data-step-type="error"]', { hasText: "Panic stop" }).waitFor({ timeout: 5_000 });
      const panics = await errorsOf(viewer, mindId, "panic-stop");
      expect(panics.map((s) => s.run_id)).toEqual([run]);

      await viewer.getByTestId("mind-start").click();
      await runner.getByTestId("mind-status").filter({ hasText: /thinking|waiting/ }).waitFor({ timeout: 10_000 });
      const panicTs = panics[0]?.ts ?? "";
      await expect.poll(async () => (await storedSteps(runner, mindId)).some((s) => s.type === "wake" && s.ts > panicTs), { timeout: 15_000 }).toBe(true);
      await expect(errorsOf(runner, mindId, "interrupted")).resolves.toEqual([]);
      await expect(errorsOf(runner, mindId, "panic-stop")).resolves.toHaveLength(1);
    });
  });
});
