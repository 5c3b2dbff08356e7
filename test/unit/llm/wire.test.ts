// Issue 21, part 5: every provider on the wire. For OpenAI, Anthropic, Google
// and OpenRouter, the mind's model port (modelPort over createModel: the
// provider's own AI SDK code, over real HTTP on loopback) against a FAKE that
// speaks that provider's streaming format (test/fixtures/providers/). Each
// way a call goes becomes the ModelResult the README's table says: a reply
// with its usage, reasoning kept out of the reply, a 429's wait, a refused
// key, an overloaded provider, an error inside the stream, a stream cut or
// ended short, a malformed event. What the loop then does with each is in
// llm-wire-loop.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatCompletions } from "../../../lib/llm/chat-completions";
import { modelPort } from "../../../lib/llm/complete";
import { testModelSettings } from "../../../lib/llm/connection-test";
import { createModel, modelLabel } from "../../../lib/llm/model";
import type { ModelResult } from "../../../lib/mind/ports";
import type { FakeProvider, Scenario } from "../../fixtures/providers/fake-provider";
import { KEY, settingsFor, WIRE_CASES } from "../helpers/providers-on-the-wire";

const REFUSED = " The provider refused the API key: fix it in Settings.";
const BROKE_OFF = "broke off before it finished (terminated).";
const ENDED_SHORT = "The model's reply ended before it finished: the stream closed without the provider's last event.";
const tokens = { input: 1200, cached: 800, output: 90, reasoning: 0 };

/** Resolves once `text` has reached onDelta: the fake then goes wrong, after the client has read it. */
function arrival(text: string) {
  let arrived!: () => void;
  const after = new Promise<void>((resolve) => (arrived = resolve));
  const deltas: string[] = [];
  const onDelta = (soFar: string) => {
    deltas.push(soFar);
    if (soFar === text) arrived();
  };
  return { after, deltas, onDelta };
}

for (const c of WIRE_CASES) {
  describe(`${c.provider} on the wire`, () => {
    let fake: FakeProvider;
    beforeAll(async () => {
      fake = await c.start();
    });
    afterAll(() => fake.close());

    const callUrl = () => `${fake.url}${c.callPath}`;
    async function call(scenario: Scenario, onDelta?: (soFar: string) => void): Promise<ModelResult> {
      fake.enqueue(scenario);
      const settings = settingsFor(c, fake);
      const port = modelPort(await createModel(settings), modelLabel(settings));
      return port.complete({ instructions: "Be brief.", messages: [{ role: "user", content: "Hi" }], signal: new AbortController().signal, onDelta });
    }

    it("a reply streams in pieces; its tokens, cached input included, land on the result", async () => {
      const deltas: string[] = [];
      const r = await call({ kind: "reply", text: "Hello. I am here and listening.", tokens }, (t) => deltas.push(t));
      expect(r).toEqual({
        ok: true,
        text: "Hello. I am here and listening.",
        inTokens: 1200,
        outTokens: 90,
        usage: { input_tokens: 1200, cached_input_tokens: 800, output_tokens: 90, reasoning_tokens: 0, model: `${c.provider}/${c.model}` },
      });
      expect(deltas).toEqual(["Hello. I am", "Hello. I am here and l", "Hello. I am here and listening."]);
      // The request went where the provider's own API takes it, with the key and the instructions in its places.
      const req = fake.requests.at(-1)!;
      expect(`http://127.0.0.1:${new URL(fake.url).port}${req.path}`).toBe(callUrl());
      expect(c.sent(req)).toEqual({ key: KEY, instructions: "Be brief." });
    });

    it("reasoning is counted in the usage and kept out of the reply (and out of what streams to the page)", async () => {
      const deltas: string[] = [];
      const reasoning = "The person said hi; a short greeting back will do.";
      const r = await call({ kind: "reply", text: "Hi!", reasoning, tokens: { ...tokens, reasoning: 40 } }, (t) => deltas.push(t));
      expect(r).toEqual({
        ok: true,
        text: "Hi!",
        inTokens: 1200,
        outTokens: 90,
        usage: { input_tokens: 1200, cached_input_tokens: 800, output_tokens: 90, reasoning_tokens: 40, model: `${c.provider}/${c.model}` },
      });
      expect(deltas).toEqual(["H", "Hi", "Hi!"]);
      // It was on the wire (all but OpenAI's Chat Completions, which only counts it).
      expect(fake.answers.at(-1)!.includes("The person said")).toBe(c.streamsReasoning);
    });

    it("a 429: the provider's words, and the seconds it asks to wait", async () => {
      expect(await call({ kind: "rate-limited", retryAfterS: 37 })).toEqual({ ok: false, aborted: false, error: `HTTP 429 from ${callUrl()}: ${c.says.rateLimited}`, retryAfterS: 37 });
      fake.enqueue({ kind: "rate-limited", retryAfterS: 37 });
      expect(await testModelSettings(settingsFor(c, fake), {}, { now: () => 0 })).toMatchObject({ ok: false, failure: "rate-limit", error: expect.stringContaining(" The server asks to wait 37 s. ") });
    });

    it("a refused key says so, and where to fix it", async () => {
      const { status, message } = c.says.keyRefused;
      expect(await call({ kind: "key-refused" })).toEqual({ ok: false, aborted: false, error: `HTTP ${status} from ${callUrl()}: ${message}${REFUSED}` });
      // Test connection (the form's button) files it under the key too.
      fake.enqueue({ kind: "key-refused" });
      expect(await testModelSettings(settingsFor(c, fake), {}, { now: () => 0 })).toMatchObject({ ok: false, failure: "auth" });
    });

    it(`overloaded (HTTP ${c.says.overloaded.status}): the status and the provider's words`, async () => {
      const { status, message } = c.says.overloaded;
      expect(await call({ kind: "overloaded" })).toEqual({ ok: false, aborted: false, error: `HTTP ${status} from ${callUrl()}: ${message}` });
    });

    // Gemini documents no error event inside a stream.
    if (c.says.errorEvent) {
      it("an error event after the reply began: the provider's error, and no partial reply", async () => {
        expect(await call({ kind: "error-event", text: "I was about to say" })).toEqual({
          ok: false,
          aborted: false,
          error: `The model's provider reported an error partway through its reply ${c.says.errorEvent}`,
        });
      });
    }

    it("a connection dropped mid-reply: it broke off, and what had arrived is not passed off as a reply", async () => {
      const text = "Let me look at ```bash\nrm -rf /tmp/scr";
      const a = arrival(text);
      const r = await call({ kind: "cut", text, after: a.after }, a.onDelta);
      expect(r).toEqual({ ok: false, aborted: false, error: `The model's reply from ${callUrl()} ${BROKE_OFF}` });
      expect(a.deltas.at(-1)).toBe(text);
    });

    it("a stream closed cleanly before its last event: the same, not a short reply", async () => {
      const text = "Let me look at ```bash\nrm -rf /tmp/scr";
      const a = arrival(text);
      expect(await call({ kind: "ends-early", text, after: a.after }, a.onDelta)).toEqual({ ok: false, aborted: false, error: ENDED_SHORT });
      expect(a.deltas.at(-1)).toBe(text);
    });

    it("a malformed event: the event that failed to parse, no crash, no hang", async () => {
      const r = await call({ kind: "malformed", text: "I was about to say" });
      expect(r).toEqual({ ok: false, aborted: false, error: expect.stringContaining(`JSON parsing failed: Text: ${c.malformed}.\nError message: SyntaxError: Unterminated string in JSON`) });
      expect(!r.ok && r.error.startsWith("JSON parsing failed")).toBe(true);
    });

    it("after all of that, the next call is answered as usual", async () => {
      expect(await call({ kind: "reply", text: "Still here.", tokens })).toMatchObject({ ok: true, text: "Still here." });
    });
  });
}

// The host's proxy and OpenAI-compatible servers are read without the SDK (lib/llm/chat-completions.ts):
// over OpenAI's own wire format, every case must come out as it does through @ai-sdk/openai.
describe("chat completions read without the SDK, against the same OpenAI wire", () => {
  const openai = WIRE_CASES.find((c) => c.provider === "openai")!;
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await openai.start();
  });
  afterAll(() => fake.close());

  const scenarios: Scenario[] = [
    { kind: "reply", text: "Hello. I am here and listening.", tokens: { ...tokens, reasoning: 40 } },
    { kind: "rate-limited", retryAfterS: 37 },
    { kind: "key-refused" },
    { kind: "overloaded" },
    { kind: "error-event", text: "I was about to say" },
    { kind: "cut", text: "I was about to say" },
    { kind: "ends-early", text: "I was about to say" },
    { kind: "malformed", text: "I was about to say" },
  ];
  for (const scenario of scenarios) {
    it(scenario.kind, async () => {
      const request = () => ({ instructions: "Be brief.", messages: [{ role: "user" as const, content: "Hi" }], signal: new AbortController().signal });
      fake.enqueue(scenario);
      const viaSdk = await modelPort(await createModel(settingsFor(openai, fake)), "openai/gpt-4o-mini").complete(request());
      fake.enqueue(scenario);
      const lean = await modelPort(new ChatCompletions({ baseURL: fake.url, model: openai.model, apiKey: KEY }), "openai/gpt-4o-mini").complete(request());
      expect(lean).toEqual(viaSdk);
      expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    });
  }
});
