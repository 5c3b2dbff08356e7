// Models and money, as a person sees them in Chromium: the host's proxy
// offered first and preselected (a newcomer makes a mind without any key and
// watches it think); the proxy's spend cap pausing a mind; a mind's own cap
// pausing it, with its spend on its page, and a raised cap in Settings letting
// it go on. The proxy runs in the built app served a second time
// (startProxyApp) against the scripted model server as its upstream.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { startModelServer, type ModelServer } from "../fixtures/model-server";
import { browserAndModelForFile } from "./browser";
import { createMind, waitForRowAfter, waitForStatus } from "./mind-page";
import { startProxyApp } from "./proxy-app";

const baseUrl = inject("baseUrl");
const env = browserAndModelForFile();
const UPSTREAM_KEY = "upstream-key-for-tests";

/** The proxy's env: the scripted server as upstream, one model, and caps (USD). */
function proxyEnv(upstream: ModelServer, o: { price: number; clientHour: number }): Record<string, string> {
  return {
    LLM_PROXY_UPSTREAM_URL: upstream.url,
    LLM_PROXY_API_KEY: UPSTREAM_KEY,
    LLM_PROXY_MODELS: "scripted",
    LLM_PROXY_PRICES: JSON.stringify({ scripted: { input: o.price, output: o.price } }),
    LLM_PROXY_CAP_DAY_USD: "1000",
    LLM_PROXY_CLIENT_CAP_HOUR_USD: String(o.clientHour),
    LLM_PROXY_CLIENT_CAP_DAY_USD: "1000",
    LLM_PROXY_REQUEST_CAP_USD: "1000",
  };
}

let context: BrowserContext | null = null;
afterEach(async () => {
  await context?.close();
  context = null;
});

async function freshPage(): Promise<Page> {
  context = await env.browser.newContext();
  return context.newPage();
}

/** A newcomer's new mind: a name, and nothing else typed (no provider, no key, no price). */
async function createWithDefaults(page: Page, url: string, name: string): Promise<void> {
  await page.goto(url);
  // The proxy is offered first and preselected once the page has asked the host for it.
  await page.waitForFunction(() => (document.querySelector('[data-testid="model-provider"]') as HTMLSelectElement | null)?.value === "proxy", null, { timeout: 15_000 });
  await page.getByTestId("new-mind-name").fill(name);
  await page.getByTestId("create-mind").click();
  await page.waitForURL(/\/mind\/[0-9a-f-]{36}$/);
}

describe("the host's proxy as a provider", () => {
  let upstream: ModelServer;
  beforeAll(async () => {
    upstream = await startModelServer();
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it("is offered first and preselected, with its model and price; a new mind needs no key and thinks", async () => {
    const app = await startProxyApp(proxyEnv(upstream, { price: 1, clientHour: 10 }));
    try {
      const page = await freshPage();
      await page.goto(app.url);
      await page.waitForFunction(() => (document.querySelector('[data-testid="model-provider"]') as HTMLSelectElement | null)?.value === "proxy", null, { timeout: 15_000 });
      const options = await page.getByTestId("model-provider").locator("option").evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));
      expect(options).toEqual(["proxy", "openai-compatible", "openai", "anthropic", "google", "openrouter"]);
      await expect(page.getByTestId("model-name").inputValue()).resolves.toBe("scripted");
      await expect(page.getByTestId("model-price").textContent()).resolves.toContain("$1 per million input tokens, $1 per million output tokens");
      // No key field to fill: the host's key stays on its server.
      await expect(page.getByTestId("model-api-key").count()).resolves.toBe(0);

      await createWithDefaults(page, app.url, "Newt");
      const output = page.locator('[data-testid="step"][data-step-type="shell-output"]').first();
      await output.waitFor({ timeout: 60_000 });
      await expect(output.textContent()).resolves.toContain("tick ");
      // The call went through the proxy: the upstream saw the host's key, and the mind's model is the proxy's.
      expect(upstream.requests[0]?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
      await expect(page.locator("h1 + span").textContent()).resolves.toBe("proxy/scripted");
      // What the call cost, at the proxy's price, on the mind's page.
      await page.getByTestId("spend-hour").filter({ hasText: /\$0\.0\d*[1-9]/ }).waitFor({ timeout: 15_000 });
    } finally {
      await app.close();
    }
  });

  it("at the proxy's spend cap the mind shows paused: budget, and says which cap", async () => {
    // USD 1000 per million tokens against a client cap of 0.01 an hour: the first call's worst case is already over it.
    const app = await startProxyApp(proxyEnv(upstream, { price: 1000, clientHour: 0.01 }));
    try {
      const page = await freshPage();
      const before = upstream.requests.length;
      await createWithDefaults(page, app.url, "Capped");
      await waitForStatus(page, "paused: budget", 60_000);
      await expect(page.getByTestId("mind-status").textContent()).resolves.toMatch(/paused: budget — the proxy's hourly cap for this browser of \$0\.01 is reached; resumes at /);
      // The stream says why, as an error step; no retry loop hammers the proxy.
      const error = page.locator('[data-testid="step"][data-step-type="error"]', { hasText: "spend cap" }).first();
      await error.waitFor({ timeout: 10_000 });
      await new Promise((r) => setTimeout(r, 2000));
      await expect(page.locator('[data-testid="step"][data-step-type="error"]').count()).resolves.toBe(1);
      expect(upstream.requests.length - before).toBeLessThanOrEqual(1);
    } finally {
      await app.close();
    }
  });
});

describe("a mind's own cap", () => {
  it("pauses it at the cap with its spend shown; raising the cap in Settings resumes it", async () => {
    const page = await freshPage();
    // USD 100,000 per million tokens: one scripted call costs well over the 0.5 USD hourly cap.
    await createMind(page, baseUrl, { name: "Spender", modelUrl: env.model.url, price: { input: 100_000, output: 100_000 }, caps: { hour: 0.5, day: 100 } });
    await waitForStatus(page, "paused: budget", 30_000);
    await expect(page.getByTestId("mind-status").textContent()).resolves.toMatch(/paused: budget — its hourly cap of \$0\.50 is reached; resumes at /);
    const pauseId = await waitForRowAfter(page, { type: "error", text: "spend cap" });
    // The page reads the spend every 2 s.
    const spentNow = async () => Number((await page.getByTestId("spend-hour").textContent())?.replace("$", ""));
    await expect.poll(spentNow, { timeout: 10_000 }).toBeGreaterThan(0.5);
    const spent = await spentNow();
    await expect(page.getByTestId("spend-day").textContent()).resolves.toBe(`$${spent.toFixed(2)}`);
    await expect(page.getByTestId("burn-rate").textContent()).resolves.toBe(`$${spent.toFixed(2)}/h`);
    const reasoningBefore = await page.locator('[data-testid="step"][data-step-type="reasoning"]').count();

    await page.getByTestId("mind-settings").click();
    await page.getByTestId("settings-cap-hour").fill("100000");
    await page.getByTestId("settings-cap-day").fill("100000");
    await page.getByTestId("settings-save").click();
    // The change is a config step; the mind calls its model again.
    const config = await waitForRowAfter(page, { type: "config", afterId: pauseId });
    await waitForRowAfter(page, { type: "reasoning", afterId: config, timeout: 30_000 });
    expect(await page.locator('[data-testid="step"][data-step-type="reasoning"]').count()).toBeGreaterThan(reasoningBefore);
    await waitForStatus(page, /thinking|waiting/, 15_000);
  });

  it("a cap that is not positive refuses to create the mind, with a message", async () => {
    const page = await freshPage();
    const asked = page.waitForResponse((r) => r.url().endsWith("/api/llm/v1/models"), { timeout: 15_000 });
    await page.goto(baseUrl);
    // This app has no proxy configured: its /api/llm/v1/models answers 404, and the proxy is not offered.
    expect((await asked).status()).toBe(404);
    const options = await page.getByTestId("model-provider").locator("option").evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));
    expect(options).toEqual(["openai-compatible", "openai", "anthropic", "google", "openrouter"]);
    await page.getByTestId("new-mind-name").fill("Unbounded");
    await page.getByTestId("model-base-url").fill(env.model.url);
    await page.getByTestId("model-name").fill("scripted");
    await page.getByTestId("cap-hour").fill("0");
    await page.getByTestId("cap-day").fill("");
    await page.getByTestId("create-mind").click();
    await expect(page.getByTestId("form-errors").textContent()).resolves.toBe(
      "The hourly spend cap must be a positive number of USD (it is 0).The daily spend cap is missing: give one in USD (e.g. 5).",
    );
    expect(page.url()).toBe(`${baseUrl}/`);
  });
});
