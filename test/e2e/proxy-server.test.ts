// The proxy through the real server (`next start`, as `npm start` serves it),
// pointed at the scripted model server: the routes are wired, a stream
// arrives as a stream with the upstream's usage, the cookie is set, and the
// key is in no response. The handlers' behaviour in detail is in test/unit/proxy-*.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "../fixtures/model-server";
import { startProxyApp } from "./proxy-app";

const KEY = "fake-key-e2e-proxy-key-not-real-0b1c2d3e";
let upstream: ModelServer;
let app: { url: string; close(): Promise<void> };

beforeAll(async () => {
  upstream = await startModelServer();
  app = await startProxyApp({
    LLM_PROXY_UPSTREAM_URL: upstream.url,
    LLM_PROXY_API_KEY: KEY,
    LLM_PROXY_MODELS: "scripted",
    LLM_PROXY_PRICES: JSON.stringify({ scripted: { input: 1, output: 2 } }),
    LLM_PROXY_CAP_DAY_USD: "10",
    LLM_PROXY_CLIENT_CAP_HOUR_USD: "1",
    LLM_PROXY_CLIENT_CAP_DAY_USD: "2",
    LLM_PROXY_REQUEST_CAP_USD: "0.5",
  });
});

afterAll(async () => {
  await app?.close();
  await upstream?.close();
});

describe("the proxy behind next start", () => {
  it("lists its models and sets the anonymous cookie", async () => {
    const res = await fetch(`${app.url}/api/llm/v1/models`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ object: "list", data: [{ id: "scripted", object: "model", owned_by: "reverie-proxy", pricing: { input: 1, output: 2 } }] });
    expect(res.headers.get("set-cookie")).toMatch(/^reverie_client=.+; Path=\/api\/llm; .*HttpOnly; SameSite=Strict/);
  });

  it("streams a completion with the upstream's usage, and the key is in neither response nor headers", async () => {
    upstream.enqueue({ text: "Streamed through the real server.", usage: { prompt_tokens: 12, completion_tokens: 7 } });
    const res = await fetch(`${app.url}/api/llm/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "scripted", stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await res.text();
    expect(text).toContain('"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}');
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    expect(text + JSON.stringify([...res.headers])).not.toContain(KEY);
    expect(upstream.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("relays each event as it arrives (nothing in next start buffers or compresses the stream whole)", async () => {
    upstream.enqueue({ text: "first chunk arrives.second one is late.", chunkDelayMs: 600, usage: { prompt_tokens: 5, completion_tokens: 5 } });
    const res = await fetch(`${app.url}/api/llm/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "accept-encoding": "gzip, deflate, br" },
      body: JSON.stringify({ model: "scripted", stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.headers.get("content-encoding")).toBeNull();
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let got = "";
    while (!got.includes("first chunk")) got += decoder.decode((await reader.read()).value, { stream: true });
    expect(got).not.toContain("second one");
    while (!got.includes("[DONE]")) {
      const { done, value } = await reader.read();
      if (done) break;
      got += decoder.decode(value, { stream: true });
    }
    expect(got).toContain("second one");
  });

  it("tells a client what it has spent against its caps (GET /usage), with the cookie it was given", async () => {
    const first = await fetch(`${app.url}/api/llm/v1/usage`);
    expect(first.status).toBe(200);
    const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0]!;
    expect(await first.json()).toMatchObject({ client: { hour_usd: 0, day_usd: 0, cap_hour_usd: 1, cap_day_usd: 2 }, resets_at: { hour: expect.any(String), day: expect.any(String) } });
    upstream.enqueue({ text: "Counted.", usage: { prompt_tokens: 100, completion_tokens: 50 } });
    const res = await fetch(`${app.url}/api/llm/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ model: "scripted", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
    // Settled just after the answer went out.
    await expect.poll(async () => (await (await fetch(`${app.url}/api/llm/v1/usage`, { headers: { cookie } })).json()).client.hour_usd).toBe((100 * 1 + 50 * 2) / 1e6);
  });

  it("refuses a malformed body with 400 and an unknown path with JSON 404", async () => {
    const bad = await fetch(`${app.url}/api/llm/v1/chat/completions`, { method: "POST", body: "{" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.type).toBe("invalid_request");
    const other = await fetch(`${app.url}/api/llm/v1/embeddings`, { method: "POST", body: "{}" });
    expect(other.status).toBe(404);
    expect((await other.json()).error.type).toBe("not_found");
  });
});
