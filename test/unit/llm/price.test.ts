import { describe, expect, it } from "vitest";
import { costUsd, maxOutputWithin, parsePriceTable, worstCaseUsd } from "../../../lib/llm/price";

const gpt = { input: 2.5, output: 10 };

describe("price arithmetic", () => {
  it("bills input and output per million tokens", () => {
    expect(costUsd(gpt, { inputTokens: 1_000_000, outputTokens: 0 })).toBeCloseTo(2.5, 10);
    expect(costUsd(gpt, { inputTokens: 2000, outputTokens: 500 })).toBeCloseTo(0.005 + 0.005, 10);
  });

  it("bills cached input at its own price, and never more cached than input", () => {
    const p = { ...gpt, cachedInput: 1.25 };
    expect(costUsd(p, { inputTokens: 1000, cachedInputTokens: 600, outputTokens: 0 })).toBeCloseTo((400 * 2.5 + 600 * 1.25) / 1e6, 12);
    expect(costUsd(p, { inputTokens: 100, cachedInputTokens: 500, outputTokens: 0 })).toBeCloseTo((100 * 1.25) / 1e6, 12);
    // Without a cached price, cached input costs what input costs.
    expect(costUsd(gpt, { inputTokens: 1000, cachedInputTokens: 600, outputTokens: 0 })).toBeCloseTo((1000 * 2.5) / 1e6, 12);
  });

  it("does not bill reasoning tokens twice (they are part of the output)", () => {
    expect(costUsd(gpt, { inputTokens: 0, outputTokens: 100, reasoningTokens: 80 })).toBeCloseTo(100 * 10 / 1e6, 12);
  });

  it("the worst case uses the whole output allowance; the allowance within a cap inverts it", () => {
    const worst = worstCaseUsd(gpt, 4000, 1000);
    expect(worst).toBeCloseTo(0.01 + 0.01, 10);
    const n = maxOutputWithin(gpt, 4000, worst);
    expect(n).toBe(1000);
    expect(worstCaseUsd(gpt, 4000, n + 1)).toBeGreaterThan(worst);
    expect(maxOutputWithin(gpt, 4000, 0.005)).toBe(0);
    expect(maxOutputWithin({ input: 0, output: 0 }, 10, 0.01)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("parses a price table and names what is wrong", () => {
    expect(parsePriceTable('{"m": {"input": 1, "output": 2}}')).toEqual({ ok: true, table: { m: { input: 1, output: 2 } } });
    const bad = parsePriceTable('{"m": {"input": -1, "output": 2}}');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/^m\.input: /);
    const notJson = parsePriceTable("{m:");
    expect(notJson.ok).toBe(false);
    if (!notJson.ok) expect(notJson.error).toMatch(/^not JSON/);
  });
});
