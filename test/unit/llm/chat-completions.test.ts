// The chat-completions path (lib/llm/chat-completions.ts) against the scripted
// OpenAI-compatible server (a fake at the model's HTTP boundary): each script
// is run through it and through the AI SDK's openai-compatible provider, and
// the two ModelResults must be the same — text, usage, and each failure's
// message — since the mind's steps are made from them.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatCompletions, chatUsage } from "../../../lib/llm/chat-completions";
import { modelPort } from "../../../lib/llm/complete";
import type { ModelResult } from "../../../lib/mind/ports";
import { startModelServer, type ModelServer, type ScriptedReply } from "../../fixtures/model-server";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

const price = { input: 1, output: 2 };
const lean = () => modelPort(new ChatCompletions({ baseURL: server.url, model: "scripted", apiKey: "test-key" }), "openai-compatible/scripted", { price });
const sdk = () => modelPort(createOpenAICompatible({ name: "openai-compatible", baseURL: server.url, apiKey: "test-key", includeUsage: true }).chatModel("scripted"), "openai-compatible/scripted", { price });
const request = (signal = new AbortController().signal, onDelta?: (t: string) => void) => ({
  instructions: "You are a test.",
  messages: [
    { role: "user" as const, content: "Hello?" },
    { role: "assistant" as const, content: "Hi." },
    { role: "user" as const, content: "And now?" },
  ],
  signal,
  onDelta,
});

async function both(reply: ScriptedReply): Promise<{ lean: ModelResult; sdk: ModelResult }> {
  server.enqueue(reply);
  const a = await lean().complete(request());
  server.enqueue(reply);
  const b = await sdk().complete(request());
  return { lean: a, sdk: b };
}

describe("chat completions without the SDK's stream layers", () => {
  it("streams the reply and its usage, as the SDK reports them", async () => {
    const deltas: string[] = [];
    server.enqueue({ text: "one two three four five six seven", usage: { prompt_tokens: 120, completion_tokens: 7 } });
    const r = await lean().complete(request(undefined, (t) => deltas.push(t)));
    expect(r).toMatchObject({ ok: true, text: "one two three four five six seven", inTokens: 120, outTokens: 7 });
    expect(r.ok && r.usage).toMatchObject({ input_tokens: 120, output_tokens: 7, cached_input_tokens: 0, reasoning_tokens: 0, model: "openai-compatible/scripted" });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.at(-1)).toBe("one two three four five six seven");
    const { lean: a, sdk: b } = await both({ text: "the same\n\n```bash\necho hi\n```", usage: { prompt_tokens: 9, completion_tokens: 4 } });
    expect(a).toEqual(b);
  });

  it("sends what the SDK sends: the instructions as a system message first, streaming with usage, the key", async () => {
    server.enqueue({ text: "ok" });
    await lean().complete(request());
    server.enqueue({ text: "ok" });
    await sdk().complete(request());
    const [a, b] = server.requests.slice(-2);
    expect(a!.body).toEqual(b!.body);
    expect(a!.body).toMatchObject({ model: "scripted", stream: true, stream_options: { include_usage: true } });
    expect(a!.messages[0]).toEqual({ role: "system", content: "You are a test." });
    expect(a!.headers.authorization).toBe("Bearer test-key");
  });

  it("an HTTP error, a 429 with Retry-After and a proxy's spend cap read as through the SDK", async () => {
    const outage = await both({ status: 500, errorBody: "scripted outage" });
    expect(outage.lean).toEqual(outage.sdk);
    expect(outage.lean).toMatchObject({ ok: false, error: `HTTP 500 from ${server.url}/chat/completions: scripted outage` });
    const slow = await both({ status: 429, errorBody: "slow down", headers: { "Retry-After": "2" } });
    expect(slow.lean).toEqual(slow.sdk);
    expect(slow.lean).toMatchObject({ ok: false, retryAfterS: 2 });
    const cap = { error: { type: "spend_cap", message: "The host's daily cap is reached.", cap: "daily", limit_usd: 1, resets_at: "2026-12-04T00:00:00.000Z" } };
    const capped = await both({ status: 429, errorJson: cap });
    expect(capped.lean).toEqual(capped.sdk);
    expect(capped.lean).toMatchObject({ ok: false, paused: { scope: "proxy", cap: "daily", limitUsd: 1 } });
  });

  it("a malformed event and a stream cut mid-way are failures, with the SDK's words", async () => {
    const bad = await both({ text: "partial text that is longer than twenty chars", malformed: true });
    expect(bad.lean).toEqual(bad.sdk);
    expect(bad.lean).toMatchObject({ ok: false, error: expect.stringContaining("JSON parsing failed: Text: {not json") });
    // Chunks of 20 characters: the connection is destroyed after the second.
    const long = "a thought that goes on and on and on, well past two chunks of the stream";
    const cut = await both({ text: long, cutAfterChunks: 2 });
    expect(cut.lean).toEqual(cut.sdk);
    expect(cut.lean).toMatchObject({ ok: false, aborted: false, error: expect.stringContaining(`The model's reply from ${server.url}/chat/completions broke off`) });
  });

  it("an event that is JSON but not an object is a failure that says so", async () => {
    // A fake fetch at the HTTP boundary: the scripted server only sends well-formed chunks or broken JSON.
    const sse = 'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: null\n\ndata: [DONE]\n\n';
    const fakeFetch = async () => new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } });
    const port = modelPort(new ChatCompletions({ baseURL: "http://model.test/v1", model: "x", fetch: fakeFetch }), "x");
    expect(await port.complete(request())).toEqual({ ok: false, aborted: false, error: "The model sent an event that is not a JSON object: null" });
  });

  it("[DONE] ends a reply as a finish reason does; a body that closes with neither ended short", async () => {
    // A fake fetch at the HTTP boundary: some servers send [DONE] without a finish reason, and a cut body sends neither.
    const reply = (sse: string) => {
      const fakeFetch = async () => new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } });
      return modelPort(new ChatCompletions({ baseURL: "http://model.test/v1", model: "x", fetch: fakeFetch }), "x").complete(request());
    };
    const hi = 'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n';
    expect(await reply(`${hi}data: [DONE]\n\n`)).toMatchObject({ ok: true, text: "hi" });
    expect(await reply(`${hi}data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`)).toMatchObject({ ok: true, text: "hi" });
    expect(await reply(hi)).toMatchObject({ ok: false, error: "The model's reply ended before it finished: the stream closed without the provider's last event." });
  });

  it("a server that cannot be reached, and a Stop mid-stream", async () => {
    const gone = modelPort(new ChatCompletions({ baseURL: "http://127.0.0.1:9/v1", model: "x" }), "x");
    const r = await gone.complete(request());
    expect(r).toMatchObject({ ok: false, aborted: false, error: expect.stringMatching(/^Could not reach the model/) });
    server.enqueue({ text: "a b c d e f g h i j k l", chunkDelayMs: 200 });
    const stop = new AbortController();
    const stopped = lean().complete(request(stop.signal, () => stop.abort()));
    await expect(stopped).resolves.toEqual({ ok: false, aborted: true, error: "aborted" });
  });

  it("counts usage as the SDK's provider and core do", () => {
    expect(chatUsage({ prompt_tokens: 100, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 40 }, completion_tokens_details: { reasoning_tokens: 10 } })).toEqual({
      inputTokens: 100,
      outputTokens: 30,
      totalTokens: 130,
      inputTokenDetails: { noCacheTokens: 60, cacheReadTokens: 40, cacheWriteTokens: undefined },
      outputTokenDetails: { textTokens: 20, reasoningTokens: 10 },
    });
  });
});
