// @vitest-environment node
/**
 * Drives the scripted model server (test/fixtures/model-server.ts, a fake at the
 * model's HTTP boundary) through the REAL AI SDK OpenAI-compatible provider.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, JSONParseError, generateText, streamText } from 'ai';
import { defaultResponder, defaultSummary, startModelServer, type ModelServer } from '../fixtures/model-server';
import { SUMMARY_MARK } from '../../lib/mind/summary-prompt';

const THINKING_TEXT = 'I keep thinking.\n\n```bash\necho "tick $((RANDOM % 1000))"\npwd\nFINAL=ok\n```';

let server: ModelServer;

function model() {
  const provider = createOpenAICompatible({
    name: 'scripted',
    baseURL: server.url,
    apiKey: 'test',
    includeUsage: true,
  });
  return provider.chatModel('scripted');
}

async function collect(stream: AsyncIterable<{ type: string }>) {
  const parts: { type: string; [k: string]: unknown }[] = [];
  for await (const part of stream) parts.push(part as { type: string });
  return parts;
}

beforeEach(async () => {
  server = await startModelServer();
});

afterEach(async () => {
  await server.close();
});

describe('scripted model server', () => {
  it('listens on 127.0.0.1 with a /v1 base URL and lists the scripted model', async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/v1`);
    const res = await fetch(`${server.url}/models`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      object: 'list',
      data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'scripted' }],
    });
  });

  it('answers non-streaming generateText with the default responder text and exact usage', async () => {
    const prompt = 'Hello there, what now?'; // 22 chars
    const instructions = 'You are Reverie.'; // 16 chars
    const result = await generateText({ model: model(), instructions, prompt, maxRetries: 0 });
    expect(result.text).toBe(THINKING_TEXT);
    expect(result.finishReason).toBe('stop');
    // default usage: ceil(total message chars / 4), ceil(text length / 4)
    const promptTokens = Math.ceil((prompt.length + instructions.length) / 4);
    const completionTokens = Math.ceil(THINKING_TEXT.length / 4);
    expect(result.usage.inputTokens).toBe(promptTokens);
    expect(result.usage.outputTokens).toBe(completionTokens);
    expect(result.usage.totalTokens).toBe(promptTokens + completionTokens);
    expect(result.usage).toEqual({
      inputTokens: promptTokens,
      inputTokenDetails: { noCacheTokens: promptTokens, cacheReadTokens: 0 },
      outputTokens: completionTokens,
      outputTokenDetails: { textTokens: completionTokens, reasoningTokens: 0 },
      totalTokens: promptTokens + completionTokens,
      raw: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    });

    expect(server.requests).toHaveLength(1);
    const rec = server.requests[0]!;
    expect(rec.model).toBe('scripted');
    expect(rec.stream).toBe(false);
    expect(rec.messages).toEqual([
      { role: 'system', content: instructions },
      { role: 'user', content: prompt },
    ]);
    expect(rec.headers.authorization).toBe('Bearer test');
    expect(typeof rec.at).toBe('number');
  });

  it('uses scripted usage when given', async () => {
    server.enqueue({ text: 'fixed', usage: { prompt_tokens: 7, completion_tokens: 3 } });
    const result = await generateText({ model: model(), prompt: 'x', maxRetries: 0 });
    expect(result.text).toBe('fixed');
    expect(result.usage.inputTokens).toBe(7);
    expect(result.usage.outputTokens).toBe(3);
    expect(result.usage.totalTokens).toBe(10);
  });

  it('streams the default responder text in several chunks, with usage', async () => {
    const result = streamText({ model: model(), prompt: 'Go on.', maxRetries: 0 });
    const parts = await collect(result.stream);
    const deltas = parts.filter((p) => p.type === 'text-delta').map((p) => p.text as string);
    expect(deltas.join('')).toBe(THINKING_TEXT);
    expect(deltas.length).toBe(Math.ceil(THINKING_TEXT.length / 20));
    expect(parts.some((p) => p.type === 'error')).toBe(false);
    const finish = parts.find((p) => p.type === 'finish') as unknown as { finishReason: string; totalUsage: { inputTokens: number; outputTokens: number } };
    expect(finish.finishReason).toBe('stop');
    expect(finish.totalUsage.inputTokens).toBe(Math.ceil('Go on.'.length / 4));
    expect(finish.totalUsage.outputTokens).toBe(Math.ceil(THINKING_TEXT.length / 4));
    const usage = await result.usage;
    expect(usage.inputTokens).toBe(2);
    expect(usage.outputTokens).toBe(Math.ceil(THINKING_TEXT.length / 4));

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.stream).toBe(true);
  });

  it("answers the responder thinker's calls from their own queue, then greets the last writer", async () => {
    server.enqueue({ text: 'inner life reply' });
    server.enqueueReply({ text: 'scripted answer' });
    const ask = (content: string) =>
      generateText({ model: model(), maxRetries: 0, instructions: 'Reply with the text, or exactly NO_REPLY.', messages: [{ role: 'user', content: [{ type: 'text', text: content }] }] });
    expect((await ask('New message from alice (0123abcd):\nhi')).text).toBe('scripted answer');
    expect((await ask('Your conversation with bob so far:\n…\n\nNew message from bob (deadbeef):\nhello?')).text).toBe('Hello bob, I got your message.');
    // The inner life's queue was left alone; its reply is still first in line.
    expect((await generateText({ model: model(), maxRetries: 0, prompt: 'x' })).text).toBe('inner life reply');
    // array content parts were normalized to a single string
    expect(server.requests[0]!.messages[1]).toEqual({ role: 'user', content: 'New message from alice (0123abcd):\nhi' });
  });

  it("answers the summarizer's calls from their own queue, then with a default summary, leaving the inner life's queue alone", async () => {
    server.enqueue({ text: 'inner life reply' });
    server.enqueueSummary({ text: 'I tried three things.' });
    const summarize = () => generateText({ model: model(), maxRetries: 0, instructions: `You are Ada, a persistent mind, ${SUMMARY_MARK}: a summary.`, prompt: 'steps' });
    expect((await summarize()).text).toBe('I tried three things.');
    expect((await summarize()).text).toBe(defaultSummary({ messages: [], model: 'm', stream: false }).text);
    expect((await generateText({ model: model(), maxRetries: 0, prompt: 'x' })).text).toBe('inner life reply');
  });

  it('defaultResponder ignores message lines outside the last user message', () => {
    expect(
      defaultResponder({
        model: 'scripted',
        stream: false,
        messages: [
          { role: 'user', content: '[message abcdef01 from carol to reverie] hey' },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'nothing new' },
        ],
      }),
    ).toEqual({ text: THINKING_TEXT });
  });

  it('turns a scripted 500 into an APICallError with statusCode 500', async () => {
    server.enqueue({ status: 500, errorBody: 'boom' });
    let caught: unknown;
    try {
      await generateText({ model: model(), prompt: 'x', maxRetries: 0 });
    } catch (e) {
      caught = e;
    }
    expect(APICallError.isInstance(caught)).toBe(true);
    const err = caught as APICallError;
    expect(err.statusCode).toBe(500);
    expect(err.message).toBe('boom');
    expect(err.responseBody).toBe('{"error":{"message":"boom","type":"server_error"}}');
    expect(server.requests).toHaveLength(1);
  });

  it('turns a scripted 429 during streaming into an error part', async () => {
    server.enqueue({ status: 429 });
    const result = streamText({ model: model(), prompt: 'x', maxRetries: 0, onError: () => {} });
    const parts = await collect(result.stream);
    const errorPart = parts.find((p) => p.type === 'error') as { error: unknown } | undefined;
    expect(errorPart).toBeDefined();
    expect(APICallError.isInstance(errorPart!.error)).toBe(true);
    expect((errorPart!.error as APICallError).statusCode).toBe(429);
    expect((errorPart!.error as APICallError).message).toBe('scripted failure');
  });

  it('a malformed stream yields a JSONParseError error part after the valid first chunk', async () => {
    server.enqueue({ text: 'partial text that is longer than twenty chars', malformed: true });
    const result = streamText({ model: model(), prompt: 'x', maxRetries: 0, onError: () => {} });
    // AI SDK 7 does not throw from the stream here: it emits an error part and finishes with 'error'.
    const parts = await collect(result.stream);
    const deltas = parts.filter((p) => p.type === 'text-delta').map((p) => p.text as string);
    expect(deltas.join('')).toBe('partial text that is');
    const errors = parts.filter((p) => p.type === 'error') as unknown as { error: Error & { text?: string } }[];
    expect(errors).toHaveLength(1);
    expect(JSONParseError.isInstance(errors[0]!.error)).toBe(true);
    expect(errors[0]!.error.text).toBe('{not json');
    const finish = parts.find((p) => p.type === 'finish') as unknown as { finishReason: string };
    expect(finish.finishReason).toBe('error');
  });

  it('a malformed non-streaming body makes generateText throw an APICallError (status 200)', async () => {
    server.enqueue({ text: 'ignored', malformed: true });
    let caught: unknown;
    try {
      await generateText({ model: model(), prompt: 'x', maxRetries: 0 });
    } catch (e) {
      caught = e;
    }
    expect(APICallError.isInstance(caught)).toBe(true);
    expect((caught as APICallError).message).toBe('Invalid JSON response');
    expect((caught as APICallError).statusCode).toBe(200);
    expect((caught as APICallError).responseBody).toBe('{"choices": [');
  });

  it('answers CORS preflights with 204 and the CORS headers', async () => {
    const res = await fetch(`${server.url}/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:3000',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toBe('*, authorization, content-type');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    expect(res.headers.get('access-control-allow-private-network')).toBe('true');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(server.requests).toHaveLength(0);
  });

  it('sends the CORS headers on ordinary responses too', async () => {
    const res = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const json = await res.json();
    expect(json.object).toBe('chat.completion');
    expect(json.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: THINKING_TEXT }, finish_reason: 'stop' },
    ]);
    expect(json.usage).toEqual({
      prompt_tokens: 1,
      completion_tokens: Math.ceil(THINKING_TEXT.length / 4),
      total_tokens: 1 + Math.ceil(THINKING_TEXT.length / 4),
    });
  });

  it('queued replies come first, then the responder; setResponder replaces it', async () => {
    server.enqueue({ text: 'one' }, { text: 'two' });
    server.setResponder((req) => ({ text: `echo:${req.messages.at(-1)!.content}` }));
    const m = model();
    const texts: string[] = [];
    for (const prompt of ['a', 'b', 'c']) {
      texts.push((await generateText({ model: m, prompt, maxRetries: 0 })).text);
    }
    expect(texts).toEqual(['one', 'two', 'echo:c']);
    expect(server.requests.map((r) => r.messages.at(-1)!.content)).toEqual(['a', 'b', 'c']);
  });

  it('delayMs delays the answer', async () => {
    server.enqueue({ text: 'late', delayMs: 150 });
    const t0 = Date.now();
    const result = await generateText({ model: model(), prompt: 'x', maxRetries: 0 });
    expect(result.text).toBe('late');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('a hanging reply never answers; aborting the client works and close() does not hang', async () => {
    server.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = generateText({ model: model(), prompt: 'x', maxRetries: 0, abortSignal: controller.signal });
    await new Promise((r) => setTimeout(r, 100));
    expect(server.requests).toHaveLength(1);
    controller.abort();
    await expect(pending).rejects.toThrow();

    // a second hang left open: close() must still finish promptly
    server.enqueue({ hang: true });
    const stuck = fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'hi' }] }),
    }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    expect(server.requests).toHaveLength(2);
    const t0 = Date.now();
    await server.close();
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await stuck).toBeInstanceOf(Error);
  });
});
