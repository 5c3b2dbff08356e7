// Reading an upstream's event stream as it passes: whole events out however
// the bytes were cut, the reported usage, and the streamed text a cut stream
// is settled on.
import { describe, expect, it } from "vitest";
import { SseTally, generatedText, usageFrom } from "@/lib/server/proxy/sse";

const ev = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
const STREAM =
  ev({ choices: [{ index: 0, delta: { role: "assistant", content: "" } }] }) +
  ev({ choices: [{ index: 0, delta: { content: "Grüße, " } }] }) +
  ev({ choices: [{ index: 0, delta: { reasoning_content: "(thinking) " } }] }) +
  ev({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: "run", arguments: '{"cmd":"ls"}' } }] } }] }) +
  ev({ choices: [], usage: { prompt_tokens: 40, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 32 }, completion_tokens_details: { reasoning_tokens: 3 } } }) +
  "data: [DONE]\n\n";

describe("SseTally", () => {
  it.each([1, 3, 7, 64, 100_000])("gives back exactly the events, whole, when the bytes come %i at a time", (size) => {
    const bytes = new TextEncoder().encode(STREAM);
    const t = new SseTally();
    const out: string[] = [];
    for (let i = 0; i < bytes.length; i += size) out.push(...t.push(bytes.slice(i, i + size)));
    expect(t.flush()).toBe("");
    expect(out).toEqual(STREAM.split(/(?<=\n\n)/));
    expect(t.text).toBe('Grüße, (thinking) run{"cmd":"ls"}');
    expect(t.usage).toEqual({ inputTokens: 40, cachedInputTokens: 32, outputTokens: 9, reasoningTokens: 3 });
  });

  it("hands on an unterminated last event at the end, and skips what is not JSON", () => {
    const t = new SseTally();
    expect(t.push(new TextEncoder().encode("data: {not json\n\ndata: " + JSON.stringify({ choices: [{ delta: { content: "tail" } }] })))).toEqual(["data: {not json\n\n"]);
    expect(t.flush()).toBe('data: {"choices":[{"delta":{"content":"tail"}}]}');
    expect(t.text).toBe("tail");
    expect(t.usage).toBeUndefined();
  });

  it("does not hold an endless event: past 1 MiB it relays all but the last 512 characters", () => {
    const t = new SseTally();
    const out = t.push(new TextEncoder().encode("data: " + "x".repeat(1 << 20)));
    expect(out).toHaveLength(1);
    expect(out[0]!.length + t.flush().length).toBe(6 + (1 << 20));
    expect(out[0]!.length).toBe(6 + (1 << 20) - 512);
  });
});

describe("usageFrom and generatedText", () => {
  it("reads OpenAI's usage, and nothing from a partial one", () => {
    expect(usageFrom({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 })).toEqual({ inputTokens: 5, outputTokens: 2 });
    expect(usageFrom({ prompt_tokens: 5 })).toBeUndefined();
    expect(usageFrom({ prompt_tokens: -1, completion_tokens: 2 })).toBeUndefined();
    expect(usageFrom(null)).toBeUndefined();
  });

  it("reads a non-streamed completion's message", () => {
    expect(generatedText({ choices: [{ message: { role: "assistant", content: "all of it" } }, { message: { content: " and more" } }] })).toBe("all of it and more");
    expect(generatedText({ error: "x" })).toBe("");
  });
});

describe("the key split across events", () => {
  const KEY = "fake-key-split-under-test-77aa";
  const chunk = (content: string, extra: Record<string, unknown> = {}) => `data: ${JSON.stringify({ id: "c1", model: "m", choices: [{ index: 0, delta: { content }, ...extra }] })}\n\n`;
  const contentOf = (sse: string) =>
    sse
      .split("\n\n")
      .filter((e) => e.startsWith("data: {"))
      .map((e) => (JSON.parse(e.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices.map((c) => c.delta?.content ?? "").join(""))
      .join("");

  /** A deterministic generator, so a failure names its seed. */
  const rng = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);

  it.each(Array.from({ length: 40 }, (_, i) => i + 1))("text cut at random (seed %i): the key never leaves, in pieces or whole, and the rest is intact", (seed) => {
    const next = rng(seed);
    const parts = ["start ", KEY, " mid ", KEY.slice(0, 12), "x ", KEY.slice(0, 1), KEY, KEY, " f", "a", "k", "e end"];
    const text = parts.join("");
    const cuts: string[] = [];
    for (let i = 0; i < text.length; ) {
      const n = 1 + Math.floor(next() * 9);
      cuts.push(text.slice(i, i + n));
      i += n;
    }
    const t = new SseTally(KEY);
    let out = "";
    for (const c of cuts) out += t.push(new TextEncoder().encode(chunk(c))).join("");
    out += t.push(new TextEncoder().encode(chunk("", { finish_reason: "stop" }) + "data: [DONE]\n\n")).join("");
    out += t.flush();
    expect(contentOf(out)).toBe(text.split(KEY).join("[redacted]"));
    // Pieces longer than the near-miss "fake-key-spl" never appear; nor does the key whole.
    expect(out).not.toContain(KEY.slice(0, 13));
    expect(out).not.toContain(KEY.slice(12));
    expect(out.trimEnd().endsWith("data: [DONE]")).toBe(true);
  });

  it("text held back at the end of a stream with no closing chunk is relayed before [DONE]", () => {
    const t = new SseTally(KEY);
    const out = [...t.push(new TextEncoder().encode(chunk("ends with fake-k") + "data: [DONE]\n\n")), t.flush()].join("");
    expect(contentOf(out)).toBe("ends with fake-k");
    expect(out.indexOf("fake-k")).toBeLessThan(out.indexOf("[DONE]"));
  });

  it("a stream with no sign of the key is relayed byte for byte", () => {
    const t = new SseTally(KEY);
    const stream = chunk("nothing to see") + chunk("here either") + "data: [DONE]\n\n";
    expect(t.push(new TextEncoder().encode(stream)).join("") + t.flush()).toBe(stream);
  });
});
