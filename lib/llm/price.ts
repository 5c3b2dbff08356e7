// Price arithmetic, shared by the mind (what a call cost) and the proxy (what
// a call may cost at worst, and what it did cost). Pure.
import { PriceTable, type Price } from "../mind/settings/model";

/** One call's tokens. Reasoning tokens are part of the output and billed as output (they are not added again). */
export interface TokenUsage {
  inputTokens: number;
  /** Of the input, how many were read from the provider's cache. */
  cachedInputTokens?: number;
  outputTokens: number;
  reasoningTokens?: number;
}

const PER_TOKEN = 1 / 1_000_000;

/** What a call cost, in USD. */
export function costUsd(price: Price, usage: TokenUsage): number {
  const cached = Math.min(Math.max(0, usage.cachedInputTokens ?? 0), Math.max(0, usage.inputTokens));
  const fresh = Math.max(0, usage.inputTokens) - cached;
  const output = Math.max(0, usage.outputTokens);
  return (fresh * price.input + cached * (price.cachedInput ?? price.input) + output * price.output) * PER_TOKEN;
}

/** The most a call can cost: every input token uncached, and the full output allowance used. */
export function worstCaseUsd(price: Price, inputTokens: number, maxOutputTokens: number): number {
  return costUsd(price, { inputTokens, outputTokens: maxOutputTokens });
}

/** The largest output allowance that keeps the worst case within `capUsd` (0 when the input alone is over it). */
export function maxOutputWithin(price: Price, inputTokens: number, capUsd: number): number {
  const left = capUsd - costUsd(price, { inputTokens, outputTokens: 0 });
  if (left <= 0) return 0;
  if (price.output === 0) return Number.MAX_SAFE_INTEGER;
  return Math.floor(left / (price.output * PER_TOKEN));
}

/** Parse a price table from JSON text; the error names the model and field at fault. */
export function parsePriceTable(text: string): { ok: true; table: PriceTable } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `not JSON: ${(e as Error).message}` };
  }
  const parsed = PriceTable.safeParse(raw);
  if (parsed.success) return { ok: true, table: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, error: `${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"} (expected {"model": {"input": USD per million tokens, "output": USD per million tokens}})` };
}
