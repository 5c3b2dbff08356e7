// A mind's model settings. The key stays in this browser's storage and is
// never exported or shown to the sandbox.
import * as z from "zod";
import { Price } from "./price";

/** In the order the form offers them; `proxy` is offered (first) only when the host has one. */
export const PROVIDERS = ["proxy", "openai-compatible", "openai", "anthropic", "google", "openrouter"] as const;
export const Provider = z.enum(PROVIDERS);
export type Provider = z.infer<typeof Provider>;

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

/** How the model is named in steps: provider/model. (Here, not in model.ts, so the page can name a model without loading the SDK.) */
export function modelLabel(s: ModelSettings): string {
  return `${s.provider}/${s.model}`;
}

export const PROVIDER_LABELS: Record<Provider, string> = {
  proxy: "This host's proxy (no key needed)",
  "openai-compatible": "OpenAI-compatible (Ollama, LM Studio, vLLM, …)",
  openai: "OpenAI",
  anthropic: "Anthropic",
  google: "Google (Gemini)",
  openrouter: "OpenRouter",
};

/** Providers that refuse calls without the user's own key. */
const NEEDS_KEY: ReadonlySet<Provider> = new Set(["openai", "anthropic", "google", "openrouter"]);

/** Check settings before a mind is created; returns a message per problem. */
export function settingsProblems(s: ModelSettings): string[] {
  const problems: string[] = [];
  if (s.provider === "openai-compatible" && !s.baseURL) problems.push("An OpenAI-compatible model needs a base URL (e.g. http://localhost:11434/v1).");
  if (s.provider !== "proxy" && s.baseURL && !/^https?:\/\//.test(s.baseURL)) problems.push("The base URL must start with http:// or https://.");
  if (NEEDS_KEY.has(s.provider) && !s.apiKey) problems.push(`${PROVIDER_LABELS[s.provider]} needs an API key.`);
  return problems;
}
