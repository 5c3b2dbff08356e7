// What the fault tests do on a mind's page, as a person would: create a mind
// against a model URL, wait for a status, read the stream's rows, change the
// pacing in Settings, make an invite from the share bar.
import type { Browser, BrowserContext, Page } from "playwright-core";

export interface NewMind {
  name: string;
  modelUrl: string;
  persona?: string;
  /** The key typed into the form ("test-key" by default). */
  apiKey?: string;
  /** Switch real Node (WebContainer) on in the form. */
  webcontainer?: boolean;
  /** The model's price typed into the form, USD per million tokens (default: the form's 0 for an OpenAI-compatible server). */
  price?: { input: number; output: number };
  /** The spend caps typed into the form, USD (default: the form's offered ones). */
  caps?: { hour: number; day: number };
}

/** Create a mind from the home page; resolves with the mind's URL once its page is open. */
export async function createMind(page: Page, baseUrl: string, mind: NewMind): Promise<string> {
  await page.goto(baseUrl);
  await page.getByTestId("new-mind-name").fill(mind.name);
  await page.getByTestId("new-mind-persona").fill(mind.persona ?? "A test mind that answers briefly.");
  await page.getByTestId("model-provider").selectOption("openai-compatible");
  await page.getByTestId("model-base-url").fill(mind.modelUrl);
  await page.getByTestId("model-name").fill("scripted");
  await page.getByTestId("model-api-key").fill(mind.apiKey ?? "test-key");
  if (mind.price) {
    await page.getByTestId("model-price-input").fill(String(mind.price.input));
    await page.getByTestId("model-price-output").fill(String(mind.price.output));
  }
  if (mind.caps) {
    await page.getByTestId("cap-hour").fill(String(mind.caps.hour));
    await page.getByTestId("cap-day").fill(String(mind.caps.day));
  }
  if (mind.webcontainer) await page.getByTestId("perm-webcontainer").check();
  await page.getByTestId("create-mind").click();
  await page.waitForURL(/\/mind\/[0-9a-f-]{36}$/);
  return page.url();
}

export const RUNNING = /thinking|waiting/;

export async function waitForStatus(page: Page, text: RegExp | string, timeout = 15_000): Promise<void> {
  await page.getByTestId("mind-status").filter({ hasText: text }).waitFor({ timeout });
}

export interface Row {
  id: string;
  type: string;
  ts: string;
  source: string;
  text: string;
}

/** The stream's rows as shown (every row while the stream is short enough not to be virtualized). */
export function rows(page: Page): Promise<Row[]> {
  return page.locator('[data-testid="step"]').evaluateAll((els) =>
    els.map((e) => ({
      id: e.getAttribute("data-step-id") ?? "",
      type: e.getAttribute("data-step-type") ?? "",
      ts: e.querySelector("time")?.getAttribute("datetime") ?? "",
      // The header line's badge: who wrote the step.
      source: e.querySelector("span.rounded")?.textContent ?? "",
      text: e.textContent ?? "",
    })),
  );
}

/** Wait until a row of `type` (containing `text`) appears after the row `afterId` (or anywhere). */
export async function waitForRowAfter(page: Page, opts: { type: string; afterId?: string; text?: string; timeout?: number }): Promise<string> {
  const handle = await page.waitForFunction(
    ({ type, afterId, text }) => {
      const els = [...document.querySelectorAll('[data-testid="step"]')];
      const from = afterId ? els.findIndex((e) => e.getAttribute("data-step-id") === afterId) : -1;
      if (afterId && from < 0) return null;
      const hit = els.slice(from + 1).find((e) => e.getAttribute("data-step-type") === type && (!text || (e.textContent ?? "").includes(text)));
      return hit?.getAttribute("data-step-id") ?? null;
    },
    { type: opts.type, afterId: opts.afterId, text: opts.text },
    { timeout: opts.timeout ?? 30_000 },
  );
  return (await handle.jsonValue()) as string;
}

/** Stop the mind and wait until its worker says so. */
export async function stopMind(page: Page): Promise<void> {
  await page.getByTestId("mind-stop").click();
  await waitForStatus(page, "stopped", 15_000);
}

export async function startMind(page: Page): Promise<void> {
  await page.getByTestId("mind-start").click();
  await waitForStatus(page, RUNNING, 15_000);
}

/** Settings: the first and the longest pause, saved (a config step), panel closed again. */
export async function setPacing(page: Page, pacing: { base_s: number; cap_s: number; ticks_per_level?: number }): Promise<void> {
  const configs = await page.locator('[data-testid="step"][data-step-type="config"]').count();
  await page.getByTestId("mind-settings").click();
  await page.getByTestId("settings-base_s").fill(String(pacing.base_s));
  await page.getByTestId("settings-cap_s").fill(String(pacing.cap_s));
  if (pacing.ticks_per_level !== undefined) await page.getByTestId("settings-ticks_per_level").fill(String(pacing.ticks_per_level));
  await page.getByTestId("settings-save").click();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="step"][data-step-type="config"]').length > n, configs);
  await page.getByTestId("mind-settings").click();
}

/** Wait until the mind idles with a long wait ahead (the pacing setPacing gave it): from then on only what the test does wakes it. */
export async function waitForLongIdle(page: Page, timeout = 30_000): Promise<void> {
  await page.getByTestId("next-wake").filter({ hasText: /^next thought in \d{2,3} s$/ }).waitFor({ timeout });
}

/** Send a message from the box and wait until its step is in the stream (written to the store). */
export async function sendMessage(page: Page, text: string, timeout = 10_000): Promise<void> {
  await page.getByTestId("message-input").fill(text);
  await page.getByTestId("send-message").click();
  await page.locator('[data-testid="step"][data-step-type="message"]', { hasText: text }).first().waitFor({ timeout });
}

/** Make an invite with `role` from the share bar; resolves with its URL (a new one, not the field's previous). */
export async function invite(host: Page, role: "guest" | "member" | "operator", previous = ""): Promise<string> {
  await host.getByTestId("invite-role").selectOption(role);
  await host.getByTestId("invite-create").click();
  const made = await host.waitForFunction(
    (prev) => {
      const v = (document.querySelector('[data-testid="invite-link"]') as HTMLInputElement | null)?.value ?? "";
      return v.includes("/s/") && v !== prev ? v : null;
    },
    previous,
    { timeout: 30_000 },
  );
  return (await made.jsonValue()) as string;
}

/**
 * A running mind in its owner's tab that idles two minutes between wakes (one
 * idle wake raises the level, and a level waits two minutes), its owner
 * writing as `sender`: within a test only what the test does wakes it.
 */
export async function idlingMind(browser: Browser, baseUrl: string, mind: NewMind & { sender: string }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await createMind(page, baseUrl, mind);
  await waitForStatus(page, RUNNING);
  await page.getByTestId("sender-name").fill(mind.sender);
  await setPacing(page, { base_s: 120, cap_s: 120, ticks_per_level: 1 });
  return { context, page };
}
