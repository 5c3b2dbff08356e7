// The built-in price table: well-known models of each provider, keyed as steps
// name them (provider/model), in USD per million tokens. A starting point, not
// an oracle: prices change, so each browser can edit its own copy (Settings),
// and a model not listed here is priced by its human when the mind is made.
import type { ModelSettings } from "../mind/settings/model";
import { modelLabel } from "./settings";
import type { Price, PriceTable } from "../mind/settings/model";

export const BUILT_IN_PRICES: PriceTable = {
  "openai/gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 },
  "openai/gpt-4o": { input: 2.5, output: 10, cachedInput: 1.25 },
  "openai/gpt-4.1": { input: 2, output: 8, cachedInput: 0.5 },
  "openai/gpt-4.1-mini": { input: 0.4, output: 1.6, cachedInput: 0.1 },
  "openai/gpt-4.1-nano": { input: 0.1, output: 0.4, cachedInput: 0.025 },
  "openai/o4-mini": { input: 1.1, output: 4.4, cachedInput: 0.275 },
  "openai/gpt-5": { input: 1.25, output: 10, cachedInput: 0.125 },
  "openai/gpt-5-mini": { input: 0.25, output: 2, cachedInput: 0.025 },
  "anthropic/claude-sonnet-4-5": { input: 3, output: 15, cachedInput: 0.3 },
  "anthropic/claude-haiku-4-5": { input: 1, output: 5, cachedInput: 0.1 },
  "anthropic/claude-opus-4-1": { input: 15, output: 75, cachedInput: 1.5 },
  "google/gemini-2.5-flash": { input: 0.3, output: 2.5, cachedInput: 0.075 },
  "google/gemini-2.5-flash-lite": { input: 0.1, output: 0.4, cachedInput: 0.025 },
  "google/gemini-2.5-pro": { input: 1.25, output: 10, cachedInput: 0.31 },
  "openrouter/openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
  "openrouter/anthropic/claude-sonnet-4.5": { input: 3, output: 15 },
  "openrouter/google/gemini-2.5-flash": { input: 0.3, output: 2.5 },
};

/**
 * The price a mind's calls are counted at: the one its human gave for it,
 * else this browser's table (built-in entries, edited), else none.
 */
export function priceFor(settings: ModelSettings, table: PriceTable): Price | undefined {
  return settings.price ?? table[modelLabel(settings)];
}
