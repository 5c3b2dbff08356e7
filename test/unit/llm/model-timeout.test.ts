// A model call that never finishes is ended by modelPort's own timeout (the
// e2e tests cannot wait the real 180 s): the result is data, not a throw, and
// says what happened.
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { modelPort } from "../../../lib/llm/complete";

/** A model that starts a reply and then never sends another part (nor ends). */
function hangingModel(opts: { honoursAbort: boolean }) {
  return new MockLanguageModelV4({
    doStream: async ({ abortSignal }) => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] });
          controller.enqueue({ type: "text-start", id: "t1" });
          controller.enqueue({ type: "text-delta", id: "t1", delta: "I am thinking about" });
          if (opts.honoursAbort) abortSignal?.addEventListener("abort", () => controller.error(abortSignal.reason), { once: true });
        },
      }),
    }),
  });
}

const request = (signal = new AbortController().signal) => ({ instructions: "You are a test.", messages: [{ role: "user" as const, content: "Hello?" }], signal });

describe("modelPort's timeout", () => {
  for (const honoursAbort of [true, false]) {
    it(`ends a stream that never finishes (${honoursAbort ? "a provider that honours abort" : "a stream that ignores abort"})`, async () => {
      const port = modelPort(hangingModel({ honoursAbort }), "mock/hang", { timeoutMs: 200 });
      const started = Date.now();
      const result = await port.complete(request());
      const took = Date.now() - started;
      expect(result).toEqual({ ok: false, aborted: false, error: "The model did not finish within 0.2 s (timed out)." });
      expect(took).toBeGreaterThanOrEqual(190);
      expect(took).toBeLessThan(3000);
    });
  }

  it("a Stop before the timeout is an abort, not a timeout", async () => {
    const port = modelPort(hangingModel({ honoursAbort: true }), "mock/hang", { timeoutMs: 5000 });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    const started = Date.now();
    const result = await port.complete(request(stop.signal));
    expect(result).toEqual({ ok: false, aborted: true, error: "aborted" });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
