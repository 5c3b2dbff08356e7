// @vitest-environment node
/**
 * bench/mind's instant model server (bench/mind-model.mjs), driven through the
 * REAL AI SDK OpenAI-compatible provider: what the bench reads from it (each
 * call's arrival, answer and prompt size, the `: n` replies, preflights) must
 * stay right now that it measures the prompt without parsing the request.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { streamText } from "ai";
import { answerWrites, promptSpan, replyText, startInstantModel, type InstantModel } from "../../../bench/mind-model.mjs";

let server: InstantModel;
let sentBodies: string[];

function model() {
  const provider = createOpenAICompatible({
    name: "instant",
    baseURL: server.url,
    apiKey: "bench-key",
    includeUsage: true,
    // Keep what the provider really sent, to compare the server's figures with.
    fetch: (input, init) => {
      sentBodies.push(String(init?.body));
      return fetch(input, init);
    },
  });
  return provider.chatModel("instant");
}

/** What the old server computed by parsing the whole body. */
const parsedPromptBytes = (body: string) => Buffer.byteLength(JSON.stringify((JSON.parse(body) as { messages?: unknown }).messages ?? []));

beforeEach(async () => {
  server = await startInstantModel();
  sentBodies = [];
});

afterEach(async () => {
  await server.close();
});

describe("bench's instant model", () => {
  it("answers each call with `: n` and records its arrival, answer and prompt size as sent", async () => {
    const history = 'He said "messages":[1] and ], then ],"x": — ünïcödé 😀\n```bash\n: 0\n```';
    for (const prompt of ["first", history]) {
      const result = streamText({ model: model(), instructions: "You are a mind.", prompt, maxRetries: 0 });
      expect(await result.text).toBe(replyText(server.calls.length));
      expect((await result.usage).inputTokens).toBe(10);
    }
    expect(server.calls.map((c) => c.n)).toEqual([1, 2]);
    expect(server.calls.map((c) => c.promptChars)).toEqual(sentBodies.map(parsedPromptBytes));
    for (const c of server.calls) expect(c.sent).toBeGreaterThanOrEqual(c.at);
    expect(server.calls[1]!.at).toBeGreaterThanOrEqual(server.calls[0]!.sent);
  });

  it("streams a reply in chunks of the size asked for, each event its own write, and keeps the fetch floor's calls apart", async () => {
    await server.close();
    server = await startInstantModel({ chunk: 16, interleave: 1 });
    for (let i = 0; i < 2; i++) {
      const result = streamText({ model: model(), instructions: "You are a mind.", prompt: "go", maxRetries: 0 });
      const deltas: string[] = [];
      for await (const d of result.textStream) deltas.push(d);
      expect(deltas.join("")).toBe(replyText(server.calls.length));
      // Call 1 in one piece, call 2 streamed (blocks of one call, in turn).
      if (i === 0) expect(deltas).toEqual([replyText(1)]);
      else expect(deltas.length).toBe(Math.ceil(replyText(2).length / 16));
    }
    expect(server.calls.map((c) => c.chunk)).toEqual([0, 16]);
    const writes = answerWrites(3, "instant", 16);
    // The role first, an event per 16 characters, the stop, the usage, [DONE].
    expect(writes.length).toBe(1 + Math.ceil(replyText(3).length / 16) + 3);
    const floor = await fetch(`${server.url}/chat/completions?floor=16`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "instant", messages: [{ role: "user", content: "x" }], stream: true }) });
    const created = (t: string) => t.replace(/"created":\d+/g, '"created":0');
    expect(created(await floor.text())).toBe(created(answerWrites(1, "instant", 16).join("")));
    expect(server.floorCalls.map((c) => c.chunk)).toEqual([16]);
    expect(server.calls.length).toBe(2);
  });

  it("counts CORS preflights and answers them with the CORS headers", async () => {
    const res = await fetch(`${server.url}/chat/completions`, { method: "OPTIONS", headers: { Origin: "http://localhost:3000", "Access-Control-Request-Method": "POST" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(server.preflights).toBe(1);
    expect(server.calls).toEqual([]);
  });

  it("measures the prompt of any body shape as a full parse would", () => {
    const bodies = [
      { model: "instant", messages: [{ role: "user", content: 'a "messages":[ b ] c' }], stream: true, stream_options: { include_usage: true } },
      { model: "m", temperature: 0.2, messages: [], stream: true },
      { model: "m", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "f", parameters: { type: "array" } } }], stream: true },
      { messages: [{ role: "user", content: "messages first" }], model: "late" },
      { model: "none", stream: true },
      { model: "ü", messages: [{ role: "user", content: "é\u2028😀" }] },
    ];
    expect(bodies.map((b) => promptSpan(Buffer.from(JSON.stringify(b))))).toEqual(bodies.map((b) => ({ model: b.model, promptBytes: parsedPromptBytes(JSON.stringify(b)) })));
  });
});
