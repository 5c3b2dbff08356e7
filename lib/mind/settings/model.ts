// The model part of a mind's settings, and prices: schemas only (declared
// once, here in the mind's own layer), so the settings parse alike in every
// home. What is done with them (building a model, pricing a call, words for
// the form) is lib/llm's.
import * as z from "zod";

/** In the order the form offers them; `proxy` is offered (first) only when the host has one. */
export const PROVIDERS = ["proxy", "openai-compatible", "openai", "anthropic", "google", "openrouter"] as const;
export const Provider = z.enum(PROVIDERS);
export type Provider = z.infer<typeof Provider>;

/** USD per million tokens. Cached input defaults to the input price (a provider that discounts it says so). */
export const Price = z.object({
  input: z.number().finite().nonnegative(),
  output: z.number().finite().nonnegative(),
  cachedInput: z.number().finite().nonnegative().optional(),
});
export type Price = z.infer<typeof Price>;

/** A model -> price table, as LLM_PROXY_PRICES and the mind's editable table hold it. */
export const PriceTable = z.record(z.string().min(1), Price);
export type PriceTable = z.infer<typeof PriceTable>;

/** A mind's model. The key stays in its browser's storage (or the server's vault) and is never exported or shown to the sandbox. */
export const ModelSettings = z.object({
  provider: Provider,
  /** Required for openai-compatible; optional override for the others; unused for the proxy (same origin). */
  baseURL: z.string().trim().optional(),
  model: z.string().trim().min(1, "a model name is needed"),
  apiKey: z.string().optional(),
  /** The price the human gave for this model (USD per million tokens), when it is not in the price table. */
  price: Price.optional(),
});
export type ModelSettings = z.infer<typeof ModelSettings>;
