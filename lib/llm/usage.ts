// One model call's usage as the AI SDK reports it, turned into what the step
// records: tokens (input, cached input, output, reasoning) and, when the
// model's price is known, what the call cost.
import type { LanguageModelUsage } from "ai";
import type { StepUsage } from "../trajectory/schema";
import { costUsd, type TokenUsage } from "./price";
import { type Price } from "../mind/settings/model";

/** The tokens of a call; counts a provider did not report are left out (input and output count as 0). */
export function tokenUsage(u: Partial<LanguageModelUsage>): TokenUsage {
  const cached = u.inputTokenDetails?.cacheReadTokens;
  const reasoning = u.outputTokenDetails?.reasoningTokens;
  return {
    inputTokens: u.inputTokens ?? 0,
    outputTokens: u.outputTokens ?? 0,
    ...(cached !== undefined ? { cachedInputTokens: cached } : {}),
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
  };
}

/** The step's `usage` for a call: its tokens, and its cost at `price` when there is one. */
export function stepUsage(u: Partial<LanguageModelUsage>, opts: { price?: Price; model?: string } = {}): StepUsage {
  const t = tokenUsage(u);
  return {
    input_tokens: t.inputTokens,
    ...(t.cachedInputTokens !== undefined ? { cached_input_tokens: t.cachedInputTokens } : {}),
    output_tokens: t.outputTokens,
    ...(t.reasoningTokens !== undefined ? { reasoning_tokens: t.reasoningTokens } : {}),
    ...(opts.price ? { usd: costUsd(opts.price, t) } : {}),
    ...(opts.model ? { model: opts.model } : {}),
  };
}

