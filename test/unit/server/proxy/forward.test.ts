// forward() against an upstream that sends malformed replies (a loopback
// server answering each call with a scripted body): what the client gets in
// their place, how the call is settled, and what the host's log says. Each
// case beside a well-formed one, relayed as it came.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatCompletions } from "@/lib/llm/chat-completions";
import { modelPort } from "@/lib/llm/complete";
import { forward } from "@/lib/server/proxy/forward";
import type { CallEnd } from "@/lib/server/proxy/settlement";
import { countText } from "@/lib/server/proxy/tokens";

/** Not a real key. */
const KEY = "fake-key-forward-under-test-5d4c3b2a19";
type Reply = { type: string; body: string };

let server: http.Server;
let url = "";
const replies: Reply[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const r = replies.shift() ?? { type: "text/plain", body: "no reply scripted" };
      res.writeHead(200, { "Content-Type": r.type }).end(r.body);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  url = `http://127.0.0.1:${address.port}/v1`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

async function call(reply: Reply, opts: { stream?: boolean; showUpstreamErrors?: boolean } = {}) {
  replies.push(reply);
  const ends: CallEnd[] = [];
  const logs: string[] = [];
  const res = await forward({
    upstreamUrl: url,
    body: { model: "m", messages: [{ role: "user", content: "hi" }] },
    stream: opts.stream ?? false,
    signal: new AbortController().signal,
    settle: (end) => ends.push(end),
    apiKey: KEY,
    log: (line) => logs.push(line),
    timeoutMs: 10_000,
    showUpstreamErrors: opts.showUpstreamErrors ?? true,
  });
  return { status: res.status, type: res.headers.get("content-type"), body: await res.text(), ends, logs };
}

const json = (o: unknown): Reply => ({ type: "application/json", body: JSON.stringify(o) });
const completion = (content: string, usage: unknown) => ({ id: "c1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }], usage });
const notCompletion = (message: string) => JSON.stringify({ error: { message, type: "upstream_error", status: 200 } });

describe("a non-streamed answer that is not a completion: 502 saying why, settled on all it sent", () => {
  it("not JSON", async () => {
    const body = "<html><body>502 Bad Gateway</body></html>";
    expect(await call({ type: "text/html", body })).toEqual({
      status: 502,
      type: "application/json",
      body: notCompletion("the model server's answer is not a chat completion (not JSON)"),
      ends: [{ outcome: "malformed", relayedTokens: countText(body), worked: true, reasoningSeen: false }],
      logs: ["llm proxy: the model server's answer is not a chat completion (not JSON)"],
    });
  });

  it("a count as a string: nothing of it relayed (the key in its text neither), settled on the whole body, not the count", async () => {
    const reply = json(completion(`the key is ${KEY}`, { prompt_tokens: "12", completion_tokens: 5 }));
    expect(await call(reply)).toEqual({
      status: 502,
      type: "application/json",
      body: notCompletion("the model server's answer is not a chat completion (usage.prompt_tokens: expected number, received string)"),
      ends: [{ outcome: "malformed", relayedTokens: countText(reply.body), worked: true, reasoningSeen: false }],
      logs: ["llm proxy: the model server's answer is not a chat completion (usage.prompt_tokens: expected number, received string)"],
    });
  });

  it("an error body on a 200: its message (scrubbed) when the host shows upstream errors, else only that there was one", async () => {
    const reply = json({ error: { message: `Provider overloaded (key ${KEY})`, code: 529 } });
    const shown = await call(reply);
    expect({ status: shown.status, body: shown.body, logs: shown.logs }).toEqual({
      status: 502,
      body: notCompletion("the model server answered 200 with an error: Provider overloaded (key [redacted])"),
      logs: ["llm proxy: the model server's answer is not a chat completion (choices: expected array, received undefined)"],
    });
    expect((await call(reply, { showUpstreamErrors: false })).body).toBe(notCompletion("the model server answered 200 with an error"));
  });

  it("beside a well-formed completion, relayed byte for byte and settled on its usage", async () => {
    const reply = json(completion("Hello.", { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 }));
    expect(await call(reply)).toEqual({
      status: 200,
      type: "application/json",
      body: reply.body,
      ends: [{ outcome: "completed", reported: { inputTokens: 12, outputTokens: 5 }, relayedTokens: countText("Hello."), worked: true, reasoningSeen: false }],
      logs: [],
    });
  });
});

describe("a stream with malformed events", () => {
  const event = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
  const chunk = (delta: unknown, extra: Record<string, unknown> = {}) => event({ id: "c1", object: "chat.completion.chunk", model: "m", choices: [{ index: 0, delta, finish_reason: null }], ...extra });
  const sse = (...events: string[]): Reply => ({ type: "text/event-stream", body: events.join("") });
  const errorEvent = (problem: string) => event({ error: { message: `the model server sent a malformed event, not relayed (${problem})`, type: "upstream_error" } });

  it("each is relayed as an error saying what is wrong; the rest as they came; a malformed usage is not settled on", async () => {
    const reply = sse(
      chunk({ role: "assistant", content: "Hello" }),
      event({ id: "c1", choices: "oops" }),
      chunk({ content: " world" }),
      event({ id: "c1", choices: [], usage: { prompt_tokens: 9, completion_tokens: "2" } }),
      "data: [DONE]\n\n",
    );
    expect(await call(reply, { stream: true })).toEqual({
      status: 200,
      type: "text/event-stream; charset=utf-8",
      body:
        chunk({ role: "assistant", content: "Hello" }) +
        errorEvent("choices: expected array, received string") +
        chunk({ content: " world" }) +
        errorEvent("usage.completion_tokens: expected number, received string") +
        "data: [DONE]\n\n",
      ends: [{ outcome: "completed", relayedTokens: countText("Hello world"), worked: true, reasoningSeen: false }],
      logs: ["llm proxy: the model server sent 2 malformed events, each relayed as an error (the first: choices: expected array, received string)"],
    });
  });

  it("beside well-formed variants (content parts, an error event on a 200, usage null), relayed byte for byte", async () => {
    const reply = sse(
      chunk({ content: [{ type: "thinking", thinking: [{ type: "text", text: "hm" }] }] }, { usage: null }),
      chunk({ content: "ok" }, { usage: null }),
      event({ error: { message: "Provider returned error", code: 502 } }),
      event({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 2 } }),
      "data: [DONE]\n\n",
    );
    expect(await call(reply, { stream: true })).toEqual({
      status: 200,
      type: "text/event-stream; charset=utf-8",
      body: reply.body,
      ends: [{ outcome: "completed", reported: { inputTokens: 9, outputTokens: 2 }, relayedTokens: countText("ok"), worked: true, reasoningSeen: false }],
      logs: [],
    });
  });

  it("the mind's own client reads the relayed error as the call's failure, in the proxy's words", async () => {
    replies.push(sse(chunk({ content: "Hel" }), event({ choices: [{ delta: { content: 42 } }] }), "data: [DONE]\n\n"));
    // The proxy's answer, handed to the client as its fetch's response.
    const viaProxy = async () =>
      forward({ upstreamUrl: url, body: { model: "m", messages: [] }, stream: true, signal: new AbortController().signal, settle: () => {}, apiKey: KEY, log: () => {}, timeoutMs: 10_000, showUpstreamErrors: true });
    const port = modelPort(new ChatCompletions({ baseURL: "http://proxy.test/api/llm/v1", model: "m", fetch: viaProxy }), "m");
    const result = await port.complete({ instructions: "Be brief.", messages: [{ role: "user", content: "hi" }], signal: new AbortController().signal });
    expect(result).toEqual({
      ok: false,
      aborted: false,
      error:
        "The model's provider reported an error partway through its reply (upstream_error): the model server sent a malformed event, not relayed (choices.0.delta.content: expected text or a list of parts, each with a type)",
    });
  });
});
