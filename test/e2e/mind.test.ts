// A person creates a mind against the scripted model server, watches it think,
// writes to it, reloads, and opens a second tab — in Debian's Chromium.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startModelServer } from "../fixtures/model-server";
import { browserAndModelForFile } from "./browser";
import { createMind as newMind } from "./mind-page";

const baseUrl = inject("baseUrl");
const env = browserAndModelForFile();

const createMind = (page: Page, name: string) => newMind(page, baseUrl, { name, modelUrl: env.model.url });

const stepIds = (page: Page) => page.locator('[data-testid="step"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-step-id") ?? ""));

describe("a mind in a browser tab", () => {
  let context: BrowserContext;
  let page: Page;
  let mindUrl: string;

  beforeAll(async () => {
    context = await env.browser.newContext();
    page = await context.newPage();
    mindUrl = await createMind(page, "Ada");
  });

  afterAll(async () => {
    await context?.close();
  });

  it("thinks on its own: shell output appears in the stream", async () => {
    const output = page.locator('[data-testid="step"][data-step-type="shell-output"]').first();
    await output.waitFor({ timeout: 30_000 });
    await expect(output.textContent()).resolves.toContain("tick ");
    await expect(output.textContent()).resolves.toContain("/workspace");
    // The stream shows the run around it, in order.
    const types = await page.locator('[data-testid="step"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-step-type")));
    // Its texts written at its first start (self-edit steps) come before its first wake.
    expect(types.slice(0, 7)).toEqual(["trajectory", "config", ...Array(5).fill("self-edit")]);
    expect(types.filter((t) => t !== "self-edit").slice(0, 7)).toEqual(["trajectory", "config", "wake", "shellm-run", "prompt", "reasoning", "shell-output"]);
    await expect(page.getByTestId("mind-status").textContent()).resolves.toMatch(/thinking|waiting/);
    // COOP/COEP make the page cross-origin isolated (WebContainer needs it), and the model call still works.
    await expect(page.evaluate(() => crossOriginIsolated)).resolves.toBe(true);
    // The real provider code called the scripted server with the key and the persona.
    const first = env.model.requests[0];
    expect(first?.headers.authorization).toBe("Bearer test-key");
    expect(first?.messages[0]?.role).toBe("system");
    expect(first?.messages[0]?.content).toContain("A test mind that answers briefly.");
  });

  it("answers a message with chat reply", async () => {
    await page.getByTestId("message-input").fill("Hello Ada, are you there?");
    await page.getByTestId("send-message").click();
    const mine = page.locator('[data-testid="step"][data-step-type="message"]', { hasText: "Hello Ada, are you there?" });
    await mine.waitFor({ timeout: 10_000 });
    // The step names who wrote to whom (the filter above matched only the text).
    await expect(mine.textContent()).resolves.toContain("you → Ada:");
    const reply = page.locator('[data-testid="step"][data-step-type="message"]', { hasText: "Hello you, I got your message." });
    await reply.waitFor({ timeout: 30_000 });
    await expect(page.getByTestId("message-input").inputValue()).resolves.toBe("");
  });

  it("keeps every step across a reload and carries on", async () => {
    const before = await stepIds(page);
    const wakes = await page.locator('[data-testid="step"][data-step-type="wake"]').count();
    expect(before.length).toBeGreaterThan(8);
    await page.reload();
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="step"]').length >= n, before.length);
    // Every step is still there, in the same order. The stream groups steps by
    // run, so a step appended after the reload to an earlier run (the closing
    // "interrupted" error of the run the reload cut off) sits inside that run's
    // group, not at the end: compare the old steps among the new, not a prefix.
    const after = await stepIds(page);
    const known = new Set(before);
    expect(after.filter((id) => known.has(id))).toEqual(before);
    // The loop goes on: a new wake after the reload.
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="step"][data-step-type="wake"]').length > n, wakes, { timeout: 30_000 });
    expect((await stepIds(page)).length).toBeGreaterThan(before.length);
  });

  it("a second tab on the same mind views instead of running a second loop", async () => {
    const second = await context.newPage();
    await second.goto(mindUrl);
    await second.getByTestId("mind-status").filter({ hasText: "viewing" }).waitFor({ timeout: 10_000 });
    // Stop and Start work from the viewing tab too: the running tab follows the mind's flag.
    await second.getByTestId("mind-stop").click();
    await page.getByTestId("mind-status").filter({ hasText: "stopped" }).waitFor({ timeout: 10_000 });
    await second.getByTestId("mind-status").filter({ hasText: "viewing — stopped" }).waitFor();
    await second.getByTestId("mind-start").click();
    await page.getByTestId("mind-status").filter({ hasText: /thinking|waiting/ }).waitFor({ timeout: 10_000 });
    // It still shows the live stream.
    await second.locator('[data-testid="step"][data-step-type="shell-output"]').first().waitFor();
    // The first tab still runs it (its worker may still be booting after the reload).
    await page.getByTestId("mind-status").filter({ hasText: /thinking|waiting/ }).waitFor({ timeout: 15_000 });
    // When the runner's tab goes away, the viewer takes over.
    await page.close();
    await second.getByTestId("mind-status").filter({ hasText: /thinking|waiting/ }).waitFor({ timeout: 15_000 });
    page = second;
  });

  it("keeps thinking while its person browses the rest of the app", async () => {
    const wakes = await page.locator('[data-testid="step"][data-step-type="wake"]').count();
    await page.getByRole("link", { name: "← minds" }).click();
    await page.getByTestId("mind-list").waitFor();
    await page.waitForTimeout(3000);
    await page.getByTestId("mind-list").getByRole("link").first().click();
    await page.waitForURL(/\/mind\//);
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="step"][data-step-type="wake"]').length > n, wakes, { timeout: 5_000 });
  });

  it("changes its model in settings: recorded as a config step, used from the next call", async () => {
    const configs = await page.locator('[data-testid="step"][data-step-type="config"]').count();
    await page.getByTestId("mind-settings").click();
    await page.getByTestId("settings-model-name").fill("scripted-2");
    await page.getByTestId("settings-base_s").fill("2");
    await page.getByTestId("settings-save").click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="step"][data-step-type="config"]').length > n, configs);
    const newest = page.locator('[data-testid="step"][data-step-type="config"]').last();
    await expect(newest.textContent()).resolves.toContain("openai-compatible/scripted-2");
    // The running loop restarts with the new settings; the key was kept.
    await expect.poll(() => env.model.requests.at(-1)?.model, { timeout: 20_000 }).toBe("scripted-2");
    expect(env.model.requests.at(-1)?.headers.authorization).toBe("Bearer test-key");
    await page.getByTestId("mind-settings").click();
  });

  it("sets quiet hours in settings: a zone it does not know is named, good ones (messages held) are recorded as a config change and shown again", async () => {
    const configs = await page.locator('[data-testid="step"][data-step-type="config"]').count();
    await page.getByTestId("mind-settings").click();
    await page.getByTestId("settings-quiet-on").check();
    await page.getByTestId("settings-quiet-tz").fill("Mars/Olympus");
    await page.getByTestId("settings-quiet-ranges").fill("22:00-07:00, 12:30–13:30");
    await page.getByTestId("settings-quiet-messages").selectOption("hold");
    await page.getByTestId("settings-save").click();
    await expect(page.getByTestId("settings-errors").textContent()).resolves.toContain("Quiet hours: not a known time zone");
    await page.getByTestId("settings-quiet-tz").fill("Europe/Berlin");
    await page.getByTestId("settings-save").click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="step"][data-step-type="config"]').length > n, configs);
    const lines = page.getByTestId("config-change").first().getByTestId("config-change-line");
    await expect.poll(() => lines.allTextContents()).toEqual(expect.arrayContaining(["pacing.quiet.tz: (none) → Europe/Berlin", "pacing.quiet.ranges: (none) → 22:00-07:00, 12:30-13:30", "pacing.quiet.alarms: (none) → true", "pacing.quiet.messages: (none) → hold"]));
    // Read back from the mind's record, as the form opens again.
    await page.getByTestId("mind-settings").click();
    await page.getByTestId("mind-settings").click();
    await expect(page.getByTestId("settings-quiet-on").isChecked()).resolves.toBe(true);
    await expect(page.getByTestId("settings-quiet-tz").inputValue()).resolves.toBe("Europe/Berlin");
    await expect(page.getByTestId("settings-quiet-ranges").inputValue()).resolves.toBe("22:00-07:00, 12:30-13:30");
    await expect(page.getByTestId("settings-quiet-messages").inputValue()).resolves.toBe("hold");
    await page.getByTestId("mind-settings").click();
  });

  it("stops and starts", async () => {
    await page.getByTestId("mind-stop").click();
    await page.getByTestId("mind-status").filter({ hasText: "stopped" }).waitFor({ timeout: 10_000 });
    // The stream takes new steps in every 100 ms: let the last ones (the cut run's) arrive, then nothing more may.
    await page.waitForTimeout(500);
    const count = (await stepIds(page)).length;
    await page.waitForTimeout(1500);
    expect((await stepIds(page)).length).toBe(count);
    await page.getByTestId("mind-start").click();
    await page.getByTestId("mind-status").filter({ hasText: /thinking|waiting/ }).waitFor({ timeout: 10_000 });
  });
});

describe("model failures", () => {
  it("become error steps and a visible status, and the loop retries", async () => {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    // The first two calls fail: a 500, then a malformed stream.
    env.model.enqueue({ status: 500, errorBody: "scripted outage" }, { malformed: true, text: "half a reply" });
    await createMind(page, "Bo");
    const error = page.locator('[data-testid="step"][data-step-type="error"]').first();
    await error.waitFor({ timeout: 30_000 });
    await expect(error.textContent()).resolves.toContain("HTTP 500");
    await page.getByTestId("mind-error").waitFor({ timeout: 10_000 });
    await expect(page.getByTestId("mind-status").textContent()).resolves.toContain("waiting");
    // It retries with backoff and recovers.
    await page.locator('[data-testid="step"][data-step-type="wake"]', { hasText: "retry" }).first().waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="step"][data-step-type="shell-output"]').first().waitFor({ timeout: 60_000 });
    await context.close();
  });

  it("a refused connection is an error step too", async () => {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    const dead = await startModelServer();
    const url = dead.url;
    await dead.close();
    await page.goto(baseUrl);
    await page.getByTestId("new-mind-name").fill("Cy");
    await page.getByTestId("model-base-url").fill(url);
    await page.getByTestId("model-name").fill("scripted");
    await page.getByTestId("create-mind").click();
    const error = page.locator('[data-testid="step"][data-step-type="error"]').first();
    await error.waitFor({ timeout: 30_000 });
    await expect(error.textContent()).resolves.toContain("model");
    await page.getByTestId("mind-error").waitFor();
    await context.close();
  });
});

describe("nothing is lost", () => {
  it("a huge output keeps 4096 bytes inline and the whole text in a blob, loaded on demand", async () => {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    env.model.enqueue({ text: "Let me count far.\n\n```bash\nseq 1 20000\nFINAL=counted\n```" });
    await createMind(page, "Di");
    const output = page.locator('[data-testid="step"][data-step-type="shell-output"]').first();
    await output.waitFor({ timeout: 30_000 });
    await expect(output.textContent()).resolves.not.toContain("19999");
    await output.getByTestId("load-blob").click();
    await output.getByText(/^1\n2\n[\s\S]*\n20000\n?$/).waitFor();
    await context.close();
  });

  it("a tab closed mid-thought leaves the run marked interrupted when the mind comes back", async () => {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    // The first reply takes long: the tab closes while the mind waits for it.
    env.model.enqueue({ text: "Slow thought.\n\n```bash\necho slow\nFINAL=slow\n```", delayMs: 20_000 });
    const url = await createMind(page, "Ed");
    await page.locator('[data-testid="step"][data-step-type="prompt"]').first().waitFor({ timeout: 30_000 });
    const run = await page.locator('[data-testid="step"][data-step-type="shellm-run"]').first().getAttribute("data-step-id");
    await page.close();
    const again = await context.newPage();
    await again.goto(url);
    const interrupted = again.locator('[data-testid="step"][data-step-type="error"]', { hasText: "interrupted" });
    await interrupted.waitFor({ timeout: 30_000 });
    // It is shown inside the run it ends, which the trajectory links by run_id.
    await expect(again.locator(`[data-step-id="${run}"] [data-testid="toggle-run"]`).count()).resolves.toBe(1);
    await again.getByTestId("mind-status").filter({ hasText: /thinking|waiting/ }).waitFor({ timeout: 15_000 });
    await context.close();
  });
});
