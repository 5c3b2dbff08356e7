// lib/llm: every provider builds from a mind's settings, and the ones we can
// reach without the internet are called for real through their AI SDK
// provider code: OpenRouter (its own package) against the scripted
// OpenAI-compatible server, Google against the FAKE Gemini of
// test/fixtures/providers/google.ts, the host's proxy through a FAKE fetch
// that maps its path onto the scripted server (each provider against a fake
// of its own wire format, failures and all: llm-wire.test.ts). Usage
// (cached input, reasoning) and cost come back on the result; a proxy's
// spend-cap 429 comes back as a pause.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelPort } from "../../../lib/llm/complete";
import { createModel, modelLabel, proxyBaseUrl } from "../../../lib/llm/model";
import { discoverProxy } from "../../../lib/llm/proxy";
import { PROVIDERS, type ModelSettings } from "../../../lib/mind/settings/model";
import { settingsProblems } from "../../../lib/llm/settings";
import { startModelServer, type ModelServer } from "../../fixtures/model-server";
import type { FakeProvider } from "../../fixtures/providers/fake-provider";
import { startFakeGoogle } from "../../fixtures/providers/google";

let scripted: ModelServer;
let gemini: FakeProvider;

beforeAll(async () => {
  scripted = await startModelServer();
  gemini = await startFakeGoogle();
});
afterAll(async () => {
  await scripted.close();
  await gemini.close();
});

const signal = () => new AbortController().signal;
const ask = async (settings: ModelSettings, env = {}, price?: { input: number; output: number }) =>
  modelPort(await createModel(settings, env), modelLabel(settings), price ? { price } : {}).complete({ instructions: "Be brief.", messages: [{ role: "user", content: "Hi" }], signal: signal() });

describe("createModel", () => {
  it("builds a model for every provider, named provider/model", async () => {
    const built = await Promise.all(PROVIDERS.map(async (provider) => {
      const s: ModelSettings = { provider, model: "m1", apiKey: "k", baseURL: provider === "openai-compatible" ? "http://localhost:11434/v1" : undefined };
      const m = await createModel(s, { origin: "http://app.test" });
      return typeof m === "string" ? m : [m.provider, m.modelId, modelLabel(s)];
    }));
    expect(built).toEqual([
      ["proxy.chat", "m1", "proxy/m1"],
      ["openai-compatible.chat", "m1", "openai-compatible/m1"],
      ["openai.chat", "m1", "openai/m1"],
      ["anthropic.messages", "m1", "anthropic/m1"],
      ["google.generative-ai", "m1", "google/m1"],
      ["openrouter", "m1", "openrouter/m1"],
    ]);
  });

  it("the proxy lives under the app's origin, needs no key, and cannot be built without an origin", async () => {
    expect(proxyBaseUrl("http://app.test/")).toBe("http://app.test/api/llm/v1");
    await expect(createModel({ provider: "proxy", model: "m" })).rejects.toThrow("The host's proxy is reached through the app's own origin, and this context has none.");
    expect(settingsProblems({ provider: "proxy", model: "m" })).toEqual([]);
    expect(settingsProblems({ provider: "google", model: "gemini-2.5-flash" })).toEqual(["Google (Gemini) needs an API key."]);
    expect(settingsProblems({ provider: "openrouter", model: "openai/gpt-4o-mini" })).toEqual(["OpenRouter needs an API key."]);
  });
});

describe("calls through the real provider code", () => {
  it("OpenRouter (@openrouter/ai-sdk-provider with ai 7) streams a reply and its usage, priced", async () => {
    scripted.enqueue({ text: "Routed.", usage: { prompt_tokens: 200, completion_tokens: 20 } });
    const before = scripted.requests.length;
    const r = await ask({ provider: "openrouter", model: "openai/gpt-4o-mini", apiKey: "or-key", baseURL: scripted.url }, {}, { input: 0.15, output: 0.6 });
    expect(r).toEqual({
      ok: true,
      text: "Routed.",
      inTokens: 200,
      outTokens: 20,
      // The provider reads the absent cache and reasoning details as 0.
      usage: { input_tokens: 200, cached_input_tokens: 0, output_tokens: 20, reasoning_tokens: 0, usd: (200 * 0.15 + 20 * 0.6) / 1e6, model: "openrouter/openai/gpt-4o-mini" },
    });
    const req = scripted.requests[before]!;
    expect([req.model, req.stream, req.headers.authorization]).toEqual(["openai/gpt-4o-mini", true, "Bearer or-key"]);
    // Strict mode asks for the usage in the stream.
    expect(req.body.stream_options).toEqual({ include_usage: true });
  });

  it("Google streams a reply; cached input and thinking tokens are recorded and priced", async () => {
    gemini.enqueue({ kind: "reply", text: "Hello from Gemini.", tokens: { input: 1000, cached: 400, output: 80, reasoning: 30 } });
    const r = await ask({ provider: "google", model: "gemini-2.5-flash", apiKey: "g-key", baseURL: gemini.url }, {}, { input: 0.3, output: 2.5 });
    expect(r.ok && r.text).toBe("Hello from Gemini.");
    // Gemini reports thoughts apart from the candidates; the SDK counts both as output.
    expect(r.ok && r.usage).toEqual({ input_tokens: 1000, cached_input_tokens: 400, output_tokens: 80, reasoning_tokens: 30, usd: (1000 * 0.3 + 80 * 2.5) / 1e6, model: "google/gemini-2.5-flash" });
    const req = gemini.requests.at(-1)!;
    expect([req.path, req.headers["x-goog-api-key"]]).toEqual(["/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "g-key"]);
  });

  it("the proxy is called at <origin>/api/llm/v1 with no key (the browser's cookie identifies it)", async () => {
    const seen: { url: string; auth: string | null }[] = [];
    // FAKE fetch: the app's proxy path mapped onto the scripted server.
    const fetchViaProxy: typeof fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      seen.push({ url, auth: new Headers(init?.headers).get("authorization") });
      return fetch(url.replace("http://app.test/api/llm/v1", scripted.url), init);
    };
    scripted.enqueue({ text: "Via the host." });
    const r = await ask({ provider: "proxy", model: "scripted" }, { origin: "http://app.test", fetch: fetchViaProxy });
    expect(r.ok && r.text).toBe("Via the host.");
    expect(seen).toEqual([{ url: "http://app.test/api/llm/v1/chat/completions", auth: null }]);
  });

  it("a proxy's 429 spend_cap is a pause until it resets, not an error to retry", async () => {
    const resets = "2030-01-01T13:00:00.000Z";
    scripted.enqueue({ status: 429, headers: { "Retry-After": "1800" }, errorJson: { error: { message: "Your hourly cap is reached.", type: "spend_cap", cap: "client_hour", limit_usd: 0.5, resets_at: resets } } });
    const r = await ask({ provider: "openai-compatible", model: "scripted", baseURL: scripted.url });
    expect(r).toEqual({
      ok: false,
      aborted: false,
      paused: { scope: "proxy", cap: "client_hour", limitUsd: 0.5, resetsAt: Date.parse(resets) },
      error: `The host proxy's hourly (this browser's, at the host's proxy) spend cap of $0.50 is reached: no model calls until it resets at ${resets}, or its human raises the cap.`,
    });
    // Any other 429 stays a model error with its Retry-After.
    scripted.enqueue({ status: 429, headers: { "Retry-After": "7" }, errorBody: "slow down" });
    const other = await ask({ provider: "openai-compatible", model: "scripted", baseURL: scripted.url });
    expect(other).toMatchObject({ ok: false, retryAfterS: 7 });
    expect(other.ok === false && other.paused).toBeUndefined();
  });
});

describe("discoverProxy", () => {
  const answering = (status: number, body: unknown): typeof fetch => async () => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

  it("200: the proxy's models with their prices", async () => {
    const list = { object: "list", data: [{ id: "gpt-4o-mini", object: "model", owned_by: "reverie-proxy", pricing: { input: 0.15, output: 0.6 } }, { id: "bare", object: "model", owned_by: "reverie-proxy" }] };
    expect(await discoverProxy("http://app.test", answering(200, list))).toEqual({ available: true, models: [{ id: "gpt-4o-mini", price: { input: 0.15, output: 0.6 } }, { id: "bare" }] });
  });

  it("404 (no proxy configured), another status, a body that does not parse, or no answer: not offered", async () => {
    const notConfigured = { error: { message: "no proxy configured", type: "not_configured" } };
    expect(await discoverProxy("http://app.test", answering(404, notConfigured))).toEqual({ available: false, reason: "this host has no proxy configured" });
    expect(await discoverProxy("http://app.test", answering(503, {}))).toEqual({ available: false, reason: "the proxy answered HTTP 503" });
    expect(await discoverProxy("http://app.test", answering(200, { data: [{ pricing: 1 }] }))).toEqual({ available: false, reason: "the proxy's model list did not parse" });
    const down: typeof fetch = async () => {
      throw new TypeError("Failed to fetch");
    };
    expect(await discoverProxy("http://app.test", down)).toEqual({ available: false, reason: "the proxy could not be reached (Failed to fetch)" });
  });
});
