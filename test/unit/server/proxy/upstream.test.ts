// The upstream's reply shapes (lib/server/proxy/upstream.ts): what passes as
// it came (every variant a real server sends that the AI SDK takes), and what
// is malformed, with the words the proxy relays in its place.
import { describe, expect, it } from "vitest";
import { UpstreamChunk, UpstreamCompletion, UpstreamError, UpstreamUsage, checkChunk, errorMessageIn, readCompletion } from "@/lib/server/proxy/upstream";
import { COMPILE_AFTER, parsesAsWritten } from "@/lib/trajectory/compiled";

describe("a stream's event", () => {
  const wellFormed: [string, unknown][] = [
    ["OpenAI's first chunk", { id: "c1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }], usage: null }],
    ["the usage chunk, with details", { choices: [], usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12, prompt_tokens_details: { cached_tokens: null }, completion_tokens_details: { reasoning_tokens: 1 } } }],
    ["a partial usage (counts the AI SDK takes as missing)", { choices: [], usage: { prompt_tokens: 9 } }],
    ["Mistral's content parts", { choices: [{ index: 0, delta: { content: [{ type: "thinking", thinking: [{ type: "text", text: "hm" }] }] } }] }],
    ["Google's tool call without an index", { choices: [{ delta: { tool_calls: [{ id: "t", function: { name: "run", arguments: "{}" } }] } }] }],
    ["a choice index that is not a number (no client reads it)", { choices: [{ index: "0", delta: { content: "x" } }] }],
    ["gpt-oss's reasoning field", { choices: [{ delta: { reasoning: "thinking" } }] }],
    ["an error event on an HTTP 200", { error: { message: "Provider returned error", code: 502 } }],
    ["a chunk carrying a whole message", { choices: [{ message: { content: "all" } }] }],
  ];
  it.each(wellFormed)("%s passes, checked in place", (_name, json) => {
    const r = checkChunk(json);
    expect(r).toEqual({ ok: true, value: json });
    // The very object: a rewritten event keeps its keys in the order they came.
    expect(r.ok && r.value).toBe(json);
  });

  const malformed: [string, unknown, string][] = [
    ["null", null, "expected object, received null"],
    ["a list", [{ choices: [] }], "expected object, received array"],
    ["choices not a list", { choices: "none" }, "choices: expected array, received string"],
    ["a choice not an object", { choices: [7] }, "choices.0: expected object, received number"],
    ["a delta not an object", { choices: [{ delta: "hi" }] }, "choices.0.delta: expected object, received string"],
    ["content a number", { choices: [{ delta: { content: 42 } }] }, "choices.0.delta.content: expected text or a list of parts, each with a type"],
    ["content parts without a type", { choices: [{ delta: { content: [{ text: "x" }] } }] }, "choices.0.delta.content: expected text or a list of parts, each with a type"],
    ["reasoning not text", { choices: [{ delta: { reasoning_content: ["a"] } }] }, "choices.0.delta.reasoning_content: expected string, received array"],
    ["tool calls not a list", { choices: [{ delta: { tool_calls: { 0: {} } } }] }, "choices.0.delta.tool_calls: expected array, received object"],
    ["tool arguments an object", { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: { cmd: "ls" } } }] } }] }, "choices.0.delta.tool_calls.0.function.arguments: expected string, received object"],
    ["a count as a string", { choices: [], usage: { prompt_tokens: "12", completion_tokens: 3 } }, "usage.prompt_tokens: expected number, received string"],
    ["usage a number", { usage: 20 }, "usage: expected object, received number"],
    ["details a number", { choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, completion_tokens_details: 0 } }, "usage.completion_tokens_details: expected object, received number"],
  ];
  it.each(malformed)("%s is malformed, and says where", (_name, json, problem) => {
    expect(checkChunk(json)).toEqual({ ok: false, problem });
  });

  it("once the check is compiled (a stream's every event is checked), the same verdicts", () => {
    for (let i = 0; i < COMPILE_AFTER; i++) checkChunk(wellFormed[0]![1]);
    for (const [, json] of wellFormed) expect(checkChunk(json)).toEqual({ ok: true, value: json });
    for (const [, json, problem] of malformed) expect(checkChunk(json)).toEqual({ ok: false, problem });
  });
});

describe("a whole answer", () => {
  it("a completion passes as it came, compiled or not", () => {
    const text = JSON.stringify({ id: "c", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 1 } });
    for (let i = 0; i <= COMPILE_AFTER; i++) expect(readCompletion(text)).toEqual({ ok: true, value: JSON.parse(text) });
    expect(readCompletion('{"choices":[{"message":{"content":1}}]}')).toEqual({ ok: false, problem: "choices.0.message.content: expected text or a list of parts, each with a type" });
  });

  it.each([
    ["not JSON", "<html>Bad Gateway</html>", { ok: false, problem: "not JSON" }],
    ["JSON, not an object", '"{\\"choices\\": ["', { ok: false, problem: "expected object, received string" }],
    ["no choices", "{}", { ok: false, problem: "choices: expected array, received undefined" }],
    ["a malformed usage", '{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":null,"prompt_tokens_details":[]}}', { ok: false, problem: "usage.prompt_tokens_details: expected object, received array" }],
    ["an error body on a 200", '{"error":{"message":"Provider overloaded","code":529}}', { ok: false, problem: "choices: expected array, received undefined", upstreamError: "Provider overloaded" }],
    ["a bare error string on a 200", '{"error":"quota"}', { ok: false, problem: "choices: expected array, received undefined", upstreamError: "quota" }],
  ])("%s is not a completion", (_name, text, read) => {
    expect(readCompletion(text)).toEqual(read);
  });
});

describe("an error body", () => {
  it.each([
    ['{"error":{"message":"slow down","type":"rate_limit"}}', "slow down"],
    ['{"error":"bare"}', "bare"],
    ['{"error":{"message":7}}', undefined],
    ['{"detail":"not OpenAI\'s shape"}', undefined],
    ["upstream exploded", undefined],
  ])("%s: %s", (text, message) => {
    expect(errorMessageIn(text)).toBe(message);
  });
});

it("every shape gives back what it is given, so checking one in place is parsing it", () => {
  for (const schema of [UpstreamChunk, UpstreamCompletion, UpstreamUsage, UpstreamError]) expect(parsesAsWritten(schema)).toBe(true);
});
