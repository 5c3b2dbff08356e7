// Reservation and settlement through the proxy, end to end over real HTTP and
// a real ledger: what each outcome (success, upstream 500 and 429, a stream
// cut mid-way, a client that goes away) is settled at.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costUsd, maxOutputWithin } from "@/lib/llm/price";
import { tokenClientId } from "@/lib/server/proxy/identity";
import { DEFAULT_MAX_TOKENS } from "@/lib/server/proxy/routes";
import { ChatRequest } from "@/lib/server/proxy/request";
import { INPUT_MARGIN, countText, inputTokens, reservedInputTokens } from "@/lib/server/proxy/tokens";
import { CAPS, HOST_KEY, PRICE, chat, startHarness, type Harness } from "./harness";

let h: Harness;
// Opening PGlite takes seconds on a busy machine.
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

// Within the hold of every call below that reports it (the proxy settles a call at most at its hold).
const USAGE = { prompt_tokens: 8, completion_tokens: 500 };
const USAGE_USD = (8 * PRICE.input + 500 * PRICE.output) / 1e6; // 0.01508
const counted = (body: unknown) => inputTokens(ChatRequest.parse(body));
/** A count as a call without reported usage is settled on it: with the tokenizer's margin (the model's own is 1 here). */
const withMargin = (n: number) => Math.ceil(n * INPUT_MARGIN);

/** The data lines of an SSE text, parsed (without [DONE]). */
const events = (sse: string) =>
  sse
    .split("\n\n")
    .filter((e) => e.startsWith("data: ") && e !== "data: [DONE]")
    .map((e) => JSON.parse(e.slice(6)) as { choices: { delta?: { content?: string } }[]; usage?: unknown });

describe("a call that completes", () => {
  it("non-streaming: passes the JSON through with usage, and settles on it", async () => {
    const token = h.token();
    h.upstream.enqueue({ text: "Hello from upstream.", usage: USAGE });
    const res = await h.post(chat("hi", { max_tokens: 800 }), { token });
    expect(res.status).toBe(200);
    const body = JSON.parse(await h.text(res));
    expect(body.choices[0].message.content).toBe("Hello from upstream.");
    expect(body.usage).toEqual({ ...USAGE, total_tokens: 508 });
    const s = await h.settlement();
    expect(s).toMatchObject({ clientId: tokenClientId(token), model: "scripted", outcome: "completed", usage: { inputTokens: 8, outputTokens: 500 } });
    expect(s.usd).toBeCloseTo(USAGE_USD, 12);
    expect(await h.ledger.spent(tokenClientId(token))).toMatchObject({ clientHourUsd: USAGE_USD, clientDayUsd: USAGE_USD });
    // The upstream got the host key, the asked allowance, and not the client's token.
    const sent = h.upstream.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${HOST_KEY}`);
    expect(sent.body.max_tokens).toBe(800);
    expect(JSON.stringify(sent)).not.toContain(token);
  });

  it("a message holding a special token's text is counted as text and passed on, not refused", async () => {
    // gpt-tokenizer throws on `<|endoftext|>` by default; the proxy counted with it, and the call failed before it was made.
    const body = chat("what does <|endoftext|> mean in <|im_start|>?", { max_tokens: 100 });
    expect(counted(body)).toBeGreaterThan(countText("what does  mean in ?"));
    h.upstream.enqueue({ text: "A marker.", usage: { prompt_tokens: 8, completion_tokens: 50 } });
    const res = await h.post(body, { token: h.token() });
    expect(res.status).toBe(200);
    expect(h.upstream.requests.at(-1)!.body.messages).toEqual(body.messages);
    expect(await h.settlement()).toMatchObject({ outcome: "completed", usage: { inputTokens: 8, outputTokens: 50 } });
  });

  it("streaming: relays the events, asks upstream for usage, and settles on the reported usage", async () => {
    const token = h.token();
    const text = "A streamed answer that arrives in several chunks of twenty characters.";
    h.upstream.enqueue({ text, usage: USAGE });
    const res = await h.post(chat("hi", { stream: true, max_tokens: 600 }), { token });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const sse = await h.text(res);
    expect(sse.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const evs = events(sse);
    expect(evs.map((e) => e.choices[0]?.delta?.content ?? "").join("")).toBe(text);
    expect(evs.at(-1)?.usage).toEqual({ ...USAGE, total_tokens: 508 });
    const sent = h.upstream.requests.at(-1)!;
    expect(sent.body.stream_options).toEqual({ include_usage: true });
    expect(sent.body.max_tokens).toBe(600);
    const s = await h.settlement();
    expect(s).toMatchObject({ outcome: "completed", usage: { inputTokens: 8, outputTokens: 500 } });
    expect((await h.ledger.spent(tokenClientId(token))).clientHourUsd).toBe(USAGE_USD);
  });

  it("relays events as they arrive, before the upstream has finished", async () => {
    const token = h.token();
    h.upstream.enqueue({ text: "first chunk here....second chunk here...", chunkDelayMs: 400, usage: USAGE });
    const started = Date.now();
    const res = await h.post(chat("hi", { stream: true }), { token });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let got = "";
    while (!got.includes("first chunk")) got += decoder.decode((await reader.read()).value);
    // The second chunk is still 400 ms away upstream: the first was not held back for it.
    expect(got).not.toContain("second chunk");
    while (!(await reader.read()).done);
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    await h.settlement();
  });

  it("forwards a default allowance when none is asked, clamped so the worst case fits the request cap", async () => {
    const token = h.token();
    const body = chat("hi");
    h.upstream.enqueue({ text: "ok", usage: USAGE });
    await h.text(await h.post(body, { token }));
    await h.settlement();
    const fits = maxOutputWithin(PRICE, reservedInputTokens(counted(body)), CAPS.requestUsd - 1e-6);
    expect(fits).toBeLessThan(DEFAULT_MAX_TOKENS);
    expect(h.upstream.requests.at(-1)!.body.max_tokens).toBe(fits);

    h.upstream.enqueue({ text: "ok", usage: USAGE });
    await h.text(await h.post(chat("hi", { max_completion_tokens: 1_000_000 }), { token: h.token() }));
    await h.settlement();
    const sent = h.upstream.requests.at(-1)!.body;
    expect(sent.max_completion_tokens).toBe(fits);
    expect(sent).not.toHaveProperty("max_tokens");
  });
});

describe("a call that fails", () => {
  it("upstream 500: passes the status and a sanitized error, settles at 0", async () => {
    const token = h.token();
    h.upstream.enqueue({ status: 500, errorBody: `internal failure with key ${HOST_KEY} in it` });
    const res = await h.post(chat("hi"), { token });
    expect(res.status).toBe(500);
    const body = JSON.parse(await h.text(res));
    expect(body).toEqual({ error: { type: "upstream_error", status: 500, message: "the model server answered 500: internal failure with key [redacted] in it" } });
    expect(await h.settlement()).toMatchObject({ outcome: "upstream_error", usd: 0 });
    expect(await h.ledger.spent(tokenClientId(token))).toEqual({ clientHourUsd: 0, clientDayUsd: 0, globalDayUsd: expect.any(Number) });
  });

  it("upstream 429: passes the status and its Retry-After, settles at 0", async () => {
    const token = h.token();
    h.upstream.enqueue({ status: 429, errorBody: "slow down", headers: { "Retry-After": "7" } });
    const res = await h.post(chat("hi", { stream: true }), { token });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(JSON.parse(await h.text(res)).error).toMatchObject({ type: "upstream_error", message: "the model server answered 429: slow down" });
    expect(await h.settlement()).toMatchObject({ outcome: "upstream_error", usd: 0 });
    expect((await h.ledger.spent(tokenClientId(token))).clientHourUsd).toBe(0);
  });

  it("upstream unreachable: 502, settles at 0, and the log line holds no key", async () => {
    const down = { ...h.deps, config: { ...h.deps.config, upstreamUrl: "http://127.0.0.1:9/v1" } };
    const { handleChatCompletions } = await import("@/lib/server/proxy/routes");
    const token = h.token();
    const res = await handleChatCompletions(
      new Request("http://proxy.test/x", { method: "POST", headers: { authorization: `Bearer ${token}` }, body: JSON.stringify(chat("hi")) }),
      down,
    );
    expect(res.status).toBe(502);
    h.seen.push(await res.text());
    expect(await h.settlement()).toMatchObject({ outcome: "upstream_unreachable", usd: 0 });
    expect(h.logs.some((l) => l.startsWith("llm proxy: upstream unreachable"))).toBe(true);
  });

  it("a stream cut mid-way, no reasoning: the client sees the cut, settled on the input and the output streamed, both with the margin", async () => {
    const token = h.token();
    const body = chat("tell me a long story", { stream: true });
    const story = "Once upon a time there was a proxy that counted tokens, and then the line went dead.";
    // The scripted server streams 20 characters a chunk: the client gets two chunks, then the connection drops.
    h.upstream.enqueue({ text: story, cutAfterChunks: 2, chunkDelayMs: 150 });
    const res = await h.post(body, { token });
    expect(res.status).toBe(200);
    await expect(h.text(res)).rejects.toThrow(/cut off/);
    const s = await h.settlement();
    const usage = { inputTokens: withMargin(counted(body)), outputTokens: withMargin(countText(story.slice(0, 40))) };
    expect(s).toMatchObject({ outcome: "cut", basis: "relayed", usage });
    expect(s.usd).toBe(costUsd(PRICE, usage));
    expect((await h.ledger.spent(tokenClientId(token))).clientHourUsd).toBeCloseTo(s.usd, 6);
  });

  it("the client goes away mid-stream: the upstream call is aborted, settled on what had streamed", async () => {
    const token = h.token();
    const body = chat("go on", { stream: true });
    const pieces = Array.from({ length: 40 }, (_, i) => `piece ${String(i).padStart(2, "0")} of the text.`);
    h.upstream.enqueue({ text: pieces.join(""), chunkDelayMs: 30, usage: USAGE });
    const abort = new AbortController();
    const res = await h.post(body, { token, signal: abort.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let got = "";
    while (!got.includes("piece 02")) got += decoder.decode((await reader.read()).value);
    abort.abort();
    await reader.cancel();
    const s = await h.settlement();
    expect(s.outcome).toBe("client_aborted");
    expect(s.usage.inputTokens).toBe(withMargin(counted(body)));
    // About the pieces the client saw (tokens at a chunk's edge may split differently), far fewer than the forty, and not the usage the upstream never sent.
    expect(s.usage.outputTokens).toBeGreaterThanOrEqual(withMargin(countText(pieces.slice(0, 2).join(""))));
    expect(s.usage.outputTokens).toBeLessThan(countText(pieces.slice(0, 20).join("")));
    expect((await h.ledger.spent(tokenClientId(token))).clientHourUsd).toBeCloseTo(s.usd, 6);
  });

  it("the client goes away before a non-streaming answer: settled at the input estimate", async () => {
    const token = h.token();
    const body = chat("slow one");
    h.upstream.enqueue({ text: "late", delayMs: 2000, usage: USAGE });
    const abort = new AbortController();
    const pending = h.post(body, { token, signal: abort.signal });
    await new Promise((r) => setTimeout(r, 200));
    abort.abort();
    const res = await pending;
    expect(res.status).toBe(499);
    h.seen.push(await res.text());
    expect(await h.settlement()).toMatchObject({ outcome: "client_aborted", basis: "relayed", usage: { inputTokens: withMargin(counted(body)), outputTokens: 0 } });
  });
});

describe("the key", () => {
  it("is scrubbed from upstream text relayed whole, and is in no response so far", async () => {
    h.upstream.enqueue({ text: `the key is ${HOST_KEY}, oops`, usage: USAGE });
    const body = JSON.parse(await h.text(await h.post(chat("leak it"), { token: h.token() })));
    expect(body.choices[0].message.content).toBe("the key is [redacted], oops");
    await h.settlement();
    expect(h.seen.length).toBeGreaterThan(15);
    for (const r of h.seen) expect(r).not.toContain(HOST_KEY);
    for (const l of h.logs) expect(l).not.toContain(HOST_KEY);
  });
});
