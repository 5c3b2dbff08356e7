// The new-mind form's connection test: one tiny call, its answer and time, or
// a failure named for what the person can do about it. Against
// MockLanguageModelV4 (ai/test) for each kind of failure, and against the
// scripted OpenAI-compatible server through the real provider code (the
// factory the worker uses) for the whole path.
import net, { type AddressInfo } from "node:net";
import { APICallError } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConnectionTest, testModelSettings } from "../../../lib/llm/connection-test";
import { startModelServer, type ModelServer } from "../../fixtures/model-server";

const answered = (text: string) =>
  new MockLanguageModelV4({
    doGenerate: {
      content: [{ type: "text", text }],
      finishReason: { unified: "stop", raw: undefined },
      usage: { inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } },
      warnings: [],
    },
  });

const failing = (error: unknown) =>
  new MockLanguageModelV4({
    doGenerate: async () => {
      throw error;
    },
  });

const apiError = (statusCode: number | undefined, opts: { body?: string; headers?: Record<string, string>; message?: string } = {}) =>
  new APICallError({
    message: opts.message ?? "refused",
    url: "http://model.test/v1/chat/completions",
    requestBodyValues: {},
    statusCode,
    responseHeaders: opts.headers,
    responseBody: opts.body,
    isRetryable: false,
  });

/** A loopback port that was free a moment ago: nothing listens there, so a connection is refused at once. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A clock that advances 250 ms each time it is read: the first read starts the test, the second ends it. */
function steppingClock() {
  let t = 1000;
  return () => (t += 250);
}

describe("runConnectionTest", () => {
  it("ok: the model's answer on one line, and the time it took", async () => {
    const model = answered("  ok\n\n");
    expect(await runConnectionTest(model, { now: steppingClock() })).toEqual({ ok: true, answer: "ok", ms: 250 });
    // One small call, no retries behind the person's back.
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(model.doGenerateCalls[0]?.maxOutputTokens).toBe(32);
  });

  it("a refused key (401, 403) says to check the key", async () => {
    for (const status of [401, 403]) {
      const r = await runConnectionTest(failing(apiError(status, { message: "Incorrect API key provided" })), { now: steppingClock() });
      expect(r).toEqual({
        ok: false,
        failure: "auth",
        error: `The key was refused: HTTP ${status} from http://model.test/v1/chat/completions: Incorrect API key provided. Check the API key (and that it may use this model).`,
        ms: 250,
      });
    }
  });

  it("404 names the model name and base URL", async () => {
    const r = await runConnectionTest(failing(apiError(404, { message: "model not found" })));
    expect(r).toMatchObject({ ok: false, failure: "not-found", error: "Not found: HTTP 404 from http://model.test/v1/chat/completions: model not found. Check the model name and the base URL." });
  });

  it("429 is a rate limit with the wait the server asks for; the proxy's spend-cap 429 says which cap and until when", async () => {
    const limited = await runConnectionTest(failing(apiError(429, { message: "slow down", headers: { "retry-after": "7" } })));
    expect(limited).toMatchObject({
      ok: false,
      failure: "rate-limit",
      error: "Rate limited: HTTP 429 from http://model.test/v1/chat/completions: slow down. The server asks to wait 7 s. The key works, but it is at its limit for now.",
    });
    const body = JSON.stringify({ error: { type: "spend_cap", cap: "client_hour", limit_usd: 0.5, resets_at: "2026-12-02T04:00:00.000Z" } });
    const capped = await runConnectionTest(failing(apiError(429, { body })));
    expect(capped).toMatchObject({ ok: false, failure: "spend-cap", error: "The host's proxy is at its client hour spend cap ($0.5) until 2026-12-02T04:00:00.000Z." });
  });

  it("no response at all, or a bare fetch TypeError (a browser's refused connection): unreachable", async () => {
    const none = await runConnectionTest(failing(apiError(undefined, { message: "Cannot connect to API: connect ECONNREFUSED 127.0.0.1:9" })));
    expect(none).toMatchObject({
      ok: false,
      failure: "unreachable",
      error:
        "Could not reach the model: no response from http://model.test/v1/chat/completions: Cannot connect to API: connect ECONNREFUSED 127.0.0.1:9. Is the server running, is the URL right, and does it allow this page's origin (CORS)?",
    });
    const browser = await runConnectionTest(failing(new TypeError("Failed to fetch")));
    expect(browser).toMatchObject({ ok: false, failure: "unreachable", error: "Could not reach the model (Failed to fetch). Is the server running, and does it allow this page's origin (CORS)?" });
  });

  it("a model that never answers, even one that ignores the abort signal, times out", async () => {
    const hung = new MockLanguageModelV4({ doGenerate: () => new Promise<never>(() => undefined) });
    const r = await runConnectionTest(hung, { timeoutMs: 50 });
    expect(r).toMatchObject({ ok: false, failure: "timeout", error: "No answer within 0.05 s: the server may be overloaded, still loading the model, or not answering." });
    expect(r.ms).toBeGreaterThanOrEqual(40);
  });

  it("another HTTP error is passed on as the provider said it", async () => {
    const r = await runConnectionTest(failing(apiError(500, { message: "upstream exploded" })));
    expect(r).toMatchObject({ ok: false, failure: "http", error: "HTTP 500 from http://model.test/v1/chat/completions: upstream exploded." });
  });
});

describe("testModelSettings, through the real provider code", () => {
  let scripted: ModelServer;
  beforeAll(async () => {
    scripted = await startModelServer();
  });
  afterAll(async () => {
    await scripted?.close();
  });

  it("calls the server as the mind would, with the key typed, and shows the answer", async () => {
    scripted.enqueue({ text: "ok" });
    const r = await testModelSettings({ provider: "openai-compatible", model: "scripted", baseURL: scripted.url, apiKey: "typed-key" });
    expect(r).toEqual({ ok: true, answer: "ok", ms: expect.any(Number) });
    const call = scripted.requests.at(-1);
    expect(call?.headers.authorization).toBe("Bearer typed-key");
    expect(call?.messages).toEqual([{ role: "user", content: "This is a connection test. Reply with the single word: ok" }]);
    expect(call?.body.max_tokens).toBe(32);
  });

  it("a 401 from the server, and a port where nothing listens", async () => {
    scripted.enqueue({ status: 401, errorBody: "Incorrect API key provided" });
    const bad = await testModelSettings({ provider: "openai", model: "gpt-4o-mini", apiKey: "wrong", baseURL: scripted.url });
    expect(bad).toMatchObject({ ok: false, failure: "auth", error: `The key was refused: HTTP 401 from ${scripted.url}/chat/completions: Incorrect API key provided. Check the API key (and that it may use this model).` });
    const port = await closedPort();
    const down = await testModelSettings({ provider: "openai-compatible", model: "scripted", baseURL: `http://127.0.0.1:${port}/v1` });
    expect(down).toMatchObject({ ok: false, failure: "unreachable" });
    expect(down.ok === false && down.error).toBe(
      `Could not reach the model: no response from http://127.0.0.1:${port}/v1/chat/completions: Cannot connect to API: connect ECONNREFUSED 127.0.0.1:${port}. Is the server running, is the URL right, and does it allow this page's origin (CORS)?`,
    );
  });

  it("settings that cannot work are refused before any call", async () => {
    const before = scripted.requests.length;
    expect(await testModelSettings({ provider: "anthropic", model: "claude-haiku-4-5" })).toEqual({ ok: false, failure: "settings", error: "Anthropic needs an API key.", ms: 0 });
    expect(await testModelSettings({ provider: "openai-compatible", model: " ", baseURL: "" })).toEqual({
      ok: false,
      failure: "settings",
      error: "Give a model name first. An OpenAI-compatible model needs a base URL (e.g. http://localhost:11434/v1).",
      ms: 0,
    });
    // The host's proxy lives at the app's origin; without one there is nothing to call.
    expect(await testModelSettings({ provider: "proxy", model: "scripted" })).toEqual({ ok: false, failure: "settings", error: "The host's proxy is reached through the app's own origin, and this context has none.", ms: 0 });
    expect(scripted.requests.length).toBe(before);
  });
});
