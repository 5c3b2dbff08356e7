// lib/eval/meter.ts: a call is priced on the larger of the tokens its server
// reports and those the harness counts itself (the request's instructions and
// messages as sent, the reply's text as received), input and output each.
import { describe, expect, it } from "vitest";
import { countO200k } from "@/lib/context/count-o200k";
import { MESSAGE_OVERHEAD } from "@/lib/context/message-overhead";
import { callMeter } from "@/lib/eval/meter";
import type { ModelRequest, ModelResult } from "@/lib/mind/ports";
import type { StepUsage } from "@/lib/trajectory/schema";

const PRICE = { input: 10, output: 30, cachedInput: 1 };
const req: ModelRequest = {
  instructions: "You are a persistent mind. Answer briefly.",
  messages: [
    { role: "user", content: "My cat is called Miso, and she likes the windowsill in the morning." },
    { role: "assistant", content: "Noted." },
    { role: "user", content: "What is my cat called?" },
  ],
  signal: new AbortController().signal,
};
const REPLY = "Her cat is Miso.";
const SENT = countO200k(req.instructions) + MESSAGE_OVERHEAD + req.messages.reduce((n, m) => n + countO200k(m.content) + MESSAGE_OVERHEAD, 0);
const RECEIVED = countO200k(REPLY);
/** USD per million tokens, the arithmetic lib/llm/price.ts does (the same order, so the same float). */
const usd = (input: number, output: number, cached = 0) => ((input - cached) * PRICE.input + cached * PRICE.cachedInput + output * PRICE.output) * (1 / 1_000_000);
const ok = (usage?: StepUsage): ModelResult => ({ ok: true, text: REPLY, ...(usage ? { usage } : {}) });

describe("pricing a model call", () => {
  it("a server that reports nothing, or too little, is priced on what the harness counted", () => {
    expect(SENT).toBeGreaterThan(20);
    const meter = callMeter(PRICE);
    const counted = { input_tokens: SENT, output_tokens: RECEIVED, usd: usd(SENT, RECEIVED) };
    expect(meter(req, ok())).toEqual(counted);
    expect(meter(req, ok({ input_tokens: 1, output_tokens: 1, usd: 0 }))).toEqual(counted);
  });

  it("a server that reports more is priced on what it reports, input and output each", () => {
    const meter = callMeter(PRICE);
    expect(meter(req, ok({ input_tokens: 5000, output_tokens: 1 }))).toEqual({ input_tokens: 5000, output_tokens: RECEIVED, usd: usd(5000, RECEIVED) });
    // Reasoning the reply's text does not show is in the output the server reports.
    expect(meter(req, ok({ input_tokens: 1, output_tokens: 900, reasoning_tokens: 880 }))).toEqual({ input_tokens: SENT, output_tokens: 900, usd: usd(SENT, 900) });
  });

  it("takes a cache discount only when the server's own input count is the one priced", () => {
    const meter = callMeter(PRICE);
    expect(meter(req, ok({ input_tokens: 5000, cached_input_tokens: 4000, output_tokens: 0 })).usd).toBeCloseTo(usd(5000, RECEIVED, 4000), 12);
    expect(meter(req, ok({ input_tokens: 10, cached_input_tokens: 10, output_tokens: 0 })).usd).toBeCloseTo(usd(SENT, RECEIVED), 12);
  });

  it("a failed or stopped call is priced on what it sent", () => {
    const meter = callMeter(PRICE);
    expect(meter(req, { ok: false, error: "HTTP 500", aborted: false })).toEqual({ input_tokens: SENT, output_tokens: 0, usd: usd(SENT, 0) });
    expect(meter(req, undefined)).toEqual({ input_tokens: SENT, output_tokens: 0, usd: usd(SENT, 0) });
    expect(meter(req, { ok: false, error: "cut off", aborted: false, usage: { input_tokens: 9000, output_tokens: 40 } })).toEqual({ input_tokens: 9000, output_tokens: 40, usd: usd(9000, 40) });
  });
});
