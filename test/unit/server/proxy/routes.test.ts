// What the /api/llm routes answer when the server has no proxy (404
// not_configured, which the page reads) or a misconfigured one (503 naming
// each variable at fault). The configuration is read once per process, so
// each case loads the module afresh with its environment.
import { afterEach, describe, expect, it, vi } from "vitest";

const PROXY_VARS = Object.keys(process.env).filter((k) => k.startsWith("LLM_PROXY_"));
const saved = Object.fromEntries(PROXY_VARS.map((k) => [k, process.env[k]]));

afterEach(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith("LLM_PROXY_")) delete process.env[k];
  Object.assign(process.env, saved);
});

async function routes(env: Record<string, string>) {
  for (const k of Object.keys(process.env)) if (k.startsWith("LLM_PROXY_")) delete process.env[k];
  Object.assign(process.env, env);
  vi.resetModules();
  return import("@/lib/server/proxy/runtime");
}

const post = () => new Request("http://app.test/api/llm/v1/chat/completions", { method: "POST", body: "{}" });
const get = () => new Request("http://app.test/api/llm/v1/models");

describe("no proxy configured", () => {
  it("every /api/llm route answers 404 not_configured", async () => {
    const r = await routes({});
    for (const res of [await r.chatCompletionsRoute(post()), await r.modelsRoute(get()), r.otherLlmRoute()]) {
      expect(res.status).toBe(404);
      const body = await res.json();
      expect(body.error.type).toBe("not_configured");
      expect(body.error.message).toMatch(/no proxy configured/);
    }
  });
});

describe("a proxy without its caps", () => {
  it("answers 503 invalid_config naming each missing variable, and never opens the ledger", async () => {
    const r = await routes({ LLM_PROXY_UPSTREAM_URL: "http://127.0.0.1:9/v1", LLM_PROXY_API_KEY: "fake-key-not-real", LLM_PROXY_MODELS: "m", LLM_PROXY_PRICES: '{"m":{"input":1,"output":1}}' });
    const res = await r.chatCompletionsRoute(post());
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.error.type).toBe("invalid_config");
    for (const name of ["LLM_PROXY_CAP_DAY_USD", "LLM_PROXY_CLIENT_CAP_HOUR_USD", "LLM_PROXY_CLIENT_CAP_DAY_USD", "LLM_PROXY_REQUEST_CAP_USD"]) {
      expect(body.error.message).toContain(`${name} is missing`);
    }
    expect(JSON.stringify(body)).not.toContain("fake-key-not-real");
    expect((await r.modelsRoute(get())).status).toBe(503);
    // Configured (if badly): an unknown path is "no such endpoint", not "not configured".
    expect((await r.otherLlmRoute().json()).error.type).toBe("not_found");
  });
});
