// Onboarding, as a newcomer does it in Chromium: pick a persona preset, point
// the mind at a model (the scripted model server), test the connection (a
// refused key and an unreachable port first, then a working one), set the
// pacing and see what it means and what it would cost, submit with Enter
// (a missing name is listed, nothing typed is lost), and watch the mind start
// from the first thought its persona gave it. And the connection test through
// the host's proxy, when the host has one.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { usd } from "../../components/usage/format";
import { TYPICAL_IDLE_WAKE } from "../../lib/onboarding/forecast";
import { PERSONA_PRESETS } from "../../lib/onboarding/persona-presets";
import { isResponderCall, isSummaryCall, startModelServer, type ModelServer } from "../fixtures/model-server";
import { browserAndModelForFile } from "./browser";
import { rows } from "./mind-page";
import { startProxyApp } from "./proxy-app";

const baseUrl = inject("baseUrl");
const env = browserAndModelForFile();
const tutor = PERSONA_PRESETS.find((p) => p.key === "tutor")!;

let context: BrowserContext | null = null;
afterEach(async () => {
  await context?.close();
  context = null;
});

async function freshPage(): Promise<Page> {
  context = await env.browser.newContext();
  return context.newPage();
}

/** A typical idle wake (lib/onboarding/forecast) at USD 1 in and 2 out per million tokens: $0.00266 while it is 2,500 in and 80 out. */
const WAKE_AT_1_2 = (TYPICAL_IDLE_WAKE.inputTokens * 1 + TYPICAL_IDLE_WAKE.outputTokens * 2) / 1e6;

const result = (page: Page) => page.getByTestId("connection-result");

/** Click "Test connection" and wait for its answer (the button reads "Testing…" meanwhile). */
async function testConnection(page: Page): Promise<{ ok: string | null; failure: string | null; text: string }> {
  const before = await result(page).textContent().catch(() => null);
  await page.getByTestId("connection-test").click();
  await page.waitForFunction(
    (prev) => {
      const el = document.querySelector('[data-testid="connection-result"]');
      const button = document.querySelector('[data-testid="connection-test"]') as HTMLButtonElement | null;
      return !!el && !button?.disabled && el.textContent !== prev;
    },
    before,
    { timeout: 30_000 },
  );
  return { ok: await result(page).getAttribute("data-ok"), failure: await result(page).getAttribute("data-failure"), text: (await result(page).textContent()) ?? "" };
}

/** A loopback URL where nothing listens: a model server started and closed again. */
async function deadUrl(): Promise<string> {
  const gone = await startModelServer();
  await gone.close();
  return gone.url;
}

describe("onboarding: a mind in under a minute", () => {
  it("walks from a preset to a thinking mind that starts from its persona's first thought", async () => {
    const page = await freshPage();
    await page.goto(baseUrl);

    // The default is the persona the form always offered, shown as its preset.
    await expect(page.locator('[data-testid="persona-preset"][aria-pressed="true"]').getAttribute("data-preset")).resolves.toBe("notebook");
    await page.locator('[data-testid="persona-preset"][data-preset="tutor"]').click();
    await expect(page.getByTestId("new-mind-persona").inputValue()).resolves.toBe(tutor.persona);
    await expect(page.getByTestId("new-mind-first-thought").inputValue()).resolves.toBe(tutor.firstThought);
    await expect(page.locator('[data-testid="persona-preset"][aria-pressed="true"]').getAttribute("data-preset")).resolves.toBe("tutor");

    await page.getByTestId("model-provider").selectOption("openai-compatible");
    await page.getByTestId("model-name").fill("scripted");

    // A refused key: the scripted server answers the test call with a 401.
    await page.getByTestId("model-base-url").fill(env.model.url);
    await page.getByTestId("model-api-key").fill("wrong-key");
    env.model.enqueue({ status: 401, errorBody: "Incorrect API key provided" });
    const refused = await testConnection(page);
    expect(refused).toMatchObject({ ok: "false", failure: "auth" });
    expect(refused.text).toMatch(/^Failed after (\d+ ms|\d+\.\d s): The key was refused: HTTP 401 from .*\/chat\/completions: Incorrect API key provided\. Check the API key/);
    expect(env.model.requests.at(-1)?.headers.authorization).toBe("Bearer wrong-key");

    // Nothing listening at that port: the browser's fetch fails.
    await page.getByTestId("model-base-url").fill(await deadUrl());
    const unreachable = await testConnection(page);
    expect(unreachable).toMatchObject({ ok: "false", failure: "unreachable" });
    expect(unreachable.text).toContain("Could not reach the model (Failed to fetch). Is the server running, and does it allow this page's origin (CORS)?");

    // The right URL and key: one small real call, its answer and its time.
    await page.getByTestId("model-base-url").fill(env.model.url);
    await page.getByTestId("model-api-key").fill("test-key");
    env.model.enqueue({ text: "ok" });
    const calls = env.model.requests.length;
    const ok = await testConnection(page);
    expect(ok).toMatchObject({ ok: "true", failure: null });
    expect(ok.text).toMatch(/^Connected in (\d+ ms|\d+\.\d s): the model answered “ok”\.$/);
    expect(env.model.requests.length).toBe(calls + 1);
    expect(env.model.requests.at(-1)?.messages).toEqual([{ role: "user", content: "This is a connection test. Reply with the single word: ok" }]);

    // Pacing in plain words, and the forecast it implies at the price typed.
    await expect(page.getByTestId("pacing-sentence").textContent()).resolves.toContain("5 s at first, twice as long every 3 quiet wakes, up to 5 min");
    await page.getByTestId("pacing-base_s").fill("2");
    await page.getByTestId("pacing-cap_s").fill("60");
    await page.getByTestId("pacing-ticks_per_level").fill("2");
    await expect
      .poll(() => page.getByTestId("pacing-sentence").textContent())
      .toBe(
        "When nobody is around and it finds nothing to do, it starts pausing after its 2nd quiet wake: 2 s at first, twice as long every 2 quiet wakes, up to 1 min (after about 2 min of quiet). Then at most 60 wakes an hour; a message or real work brings it back to no pause.",
      );
    // Its price is unknown until given: no forecast, and it says so.
    await page.getByTestId("model-price-input").fill("");
    await page.getByTestId("model-price-output").fill("");
    await expect.poll(() => page.getByTestId("onboarding-forecast").textContent()).toContain("no price known for this model (openai-compatible/scripted)");
    // USD 1 in and 2 out per million, 60 idle wakes an hour: $0.16 an hour, $3.83 a day.
    await page.getByTestId("model-price-input").fill("1");
    await page.getByTestId("model-price-output").fill("2");
    await expect.poll(() => page.getByTestId("onboarding-forecast-hour").textContent()).toBe(usd(WAKE_AT_1_2 * 60));
    await expect(page.getByTestId("onboarding-forecast-day").textContent()).resolves.toBe(usd(WAKE_AT_1_2 * 60 * 24));
    await expect(page.getByTestId("onboarding-forecast").textContent()).resolves.toContain("60 wakes an hour");

    // Enter submits; without a name the problem is listed and nothing typed is lost.
    await page.getByTestId("model-name").press("Enter");
    await expect(page.getByTestId("form-errors").textContent()).resolves.toContain("A mind needs a name.");
    await expect(page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).resolves.toBe("form-errors");
    await expect(page.getByTestId("new-mind-persona").inputValue()).resolves.toBe(tutor.persona);
    await expect(page.getByTestId("model-base-url").inputValue()).resolves.toBe(env.model.url);
    await expect(page.getByTestId("pacing-cap_s").inputValue()).resolves.toBe("60");

    // The mind's first wake: the model sees the persona and the first thought, and thinks on from it.
    env.model.enqueue({
      text: 'I will start with the questions students ask most.\n\n```bash\nmkdir -p lessons && echo "fractions: halves first" > lessons/fractions.md\nFINAL="think: prepare short explanations for the questions students ask most"\n```',
    });
    const before = env.model.requests.length;
    await page.getByTestId("new-mind-name").fill("Tutor Tam");
    await page.getByTestId("new-mind-name").press("Enter");
    await page.waitForURL(/\/mind\/[0-9a-f-]{36}$/);

    const seed = page.locator('[data-testid="step"][data-step-type="thought"]', { hasText: tutor.firstThought });
    await seed.waitFor({ timeout: 15_000 });
    const own = page.locator('[data-testid="step"][data-step-type="thought"]', { hasText: "prepare short explanations for the questions students ask most" });
    await own.waitFor({ timeout: 30_000 });
    const shown = await rows(page);
    // Its texts are written at its first start (five self-edits), before it is woken.
    expect(shown.slice(0, 9).map((r) => [r.type, r.source])).toEqual([
      ["trajectory", "system"],
      ["config", "system"],
      ["thought", "seed"],
      ...Array(5).fill(["self-edit", "system"]),
      ["wake", "monolith"],
    ]);
    const first = env.model.requests.slice(before).find((r) => !isResponderCall(r.messages) && !isSummaryCall(r.messages));
    expect(first?.messages[0]?.content).toContain(tutor.persona);
    expect(first?.messages.filter((m) => m.role === "assistant").map((m) => m.content)).toEqual([tutor.firstThought]);

    // It was made with the pacing chosen: Settings shows it.
    await page.getByTestId("tab-settings").click();
    await expect(page.getByTestId("settings-base_s").inputValue()).resolves.toBe("2");
    await expect(page.getByTestId("settings-cap_s").inputValue()).resolves.toBe("60");
    await expect(page.getByTestId("settings-ticks_per_level").inputValue()).resolves.toBe("2");
  });

  it("quiet hours chosen in the new-mind form: said in the pacing sentence, checked with the rest, and the mind is made with them", async () => {
    const page = await freshPage();
    await page.goto(baseUrl);
    await page.getByTestId("new-mind-name").fill("Night Owl");
    await page.getByTestId("model-provider").selectOption("openai-compatible");
    await page.getByTestId("model-base-url").fill(env.model.url);
    await page.getByTestId("model-name").fill("scripted");
    await page.getByTestId("model-api-key").fill("test-key");
    await page.getByTestId("new-mind-quiet-on").check();
    await page.getByTestId("new-mind-quiet-tz").fill("Mars/Olympus");
    await page.getByTestId("new-mind-quiet-ranges").fill("22:00-07:00");
    await page.getByTestId("new-mind-quiet-messages").selectOption("hold");
    await page.getByTestId("create-mind").click();
    await expect(page.getByTestId("form-errors").textContent()).resolves.toContain("not a known time zone");
    await page.getByTestId("new-mind-quiet-tz").fill("Europe/Berlin");
    await expect.poll(() => page.getByTestId("pacing-sentence").textContent()).toMatch(/22:00.07:00.*messages wait until 07:00/);
    await page.getByTestId("create-mind").click();
    await page.waitForURL(/\/mind\/[0-9a-f-]{36}$/);
    const config = page.locator('[data-testid="step"][data-step-type="config"]').first();
    await config.waitFor({ timeout: 15_000 });
    await page.getByTestId("tab-settings").click();
    await expect(page.getByTestId("settings-quiet-on").isChecked()).resolves.toBe(true);
    await expect(page.getByTestId("settings-quiet-tz").inputValue()).resolves.toBe("Europe/Berlin");
    await expect(page.getByTestId("settings-quiet-ranges").inputValue()).resolves.toBe("22:00-07:00");
    await expect(page.getByTestId("settings-quiet-messages").inputValue()).resolves.toBe("hold");
  });

  it("a persona written by hand starts with no seed unless one is drawn from it", async () => {
    const page = await freshPage();
    await page.goto(baseUrl);
    await page.getByTestId("new-mind-persona").fill("You look after a small vegetable garden and write down what grows.");
    await expect(page.getByTestId("new-mind-first-thought").inputValue()).resolves.toBe("");
    await expect(page.locator('[data-testid="persona-preset"][aria-pressed="true"]').count()).resolves.toBe(0);
    await page.getByTestId("first-thought-draw").click();
    await expect(page.getByTestId("new-mind-first-thought").inputValue()).resolves.toBe(
      'I have just begun. This is how I was described: "You look after a small vegetable garden and write down what grows." Before anything else I want to work out what that asks of me here, and choose one small first thing to do that fits it.',
    );
  });
});

describe("onboarding before the page has hydrated", () => {
  it("keeps what is typed at once into the server's HTML (the form waits for React, and nothing is joined to the preset)", async () => {
    const page = await freshPage();
    // A slow machine: the server's HTML is on screen well before React takes it over.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 8 });
    await page.goto(baseUrl, { waitUntil: "domcontentloaded" });
    const mine = "You keep bees and write down what they do.";
    await page.getByTestId("new-mind-persona").fill(mine);
    await page.getByTestId("new-mind-name").fill("Bea");
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
    await expect(page.getByTestId("new-mind-persona").inputValue()).resolves.toBe(mine);
    await expect(page.getByTestId("new-mind-name").inputValue()).resolves.toBe("Bea");
    await expect(page.getByTestId("new-mind-first-thought").inputValue()).resolves.toBe("");
    await expect(page.locator('[data-testid="persona-preset"][aria-pressed="true"]').count()).resolves.toBe(0);
  });
});

describe("onboarding through the host's proxy", () => {
  let upstream: ModelServer;
  beforeAll(async () => {
    upstream = await startModelServer();
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it("the connection test goes through /api/llm with no key of the person's, and shows the host's price in the forecast", async () => {
    const app = await startProxyApp({
      LLM_PROXY_UPSTREAM_URL: upstream.url,
      LLM_PROXY_API_KEY: "upstream-key-for-tests",
      LLM_PROXY_MODELS: "scripted",
      LLM_PROXY_PRICES: JSON.stringify({ scripted: { input: 1, output: 2 } }),
      LLM_PROXY_CAP_DAY_USD: "1000",
      LLM_PROXY_CLIENT_CAP_HOUR_USD: "10",
      LLM_PROXY_CLIENT_CAP_DAY_USD: "1000",
      LLM_PROXY_REQUEST_CAP_USD: "1000",
    });
    try {
      const page = await freshPage();
      await page.goto(app.url);
      await page.waitForFunction(() => (document.querySelector('[data-testid="model-provider"]') as HTMLSelectElement | null)?.value === "proxy", null, { timeout: 15_000 });
      upstream.enqueue({ text: "ok" });
      const ok = await testConnection(page);
      expect(ok).toMatchObject({ ok: "true" });
      expect(ok.text).toMatch(/^Connected in (\d+ ms|\d+\.\d s): the model answered “ok”\.$/);
      // The upstream saw the host's key: the call went through the proxy, not from the tab to the upstream.
      expect(upstream.requests.at(-1)?.headers.authorization).toBe("Bearer upstream-key-for-tests");
      // At the host's price and the default pacing (12 idle wakes an hour at 5 min): $0.03 an hour, $0.77 a day.
      await expect.poll(() => page.getByTestId("onboarding-forecast-hour").textContent()).toBe(usd(WAKE_AT_1_2 * 12));
      await expect(page.getByTestId("onboarding-forecast-day").textContent()).resolves.toBe(usd(WAKE_AT_1_2 * 12 * 24));
    } finally {
      await app.close();
    }
  });
});
