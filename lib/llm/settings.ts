// A mind's model settings. The key stays in this browser's storage and is
// never exported or shown to the sandbox.
import { z } from "zod";

export const PROVIDERS = ["openai-compatible", "openai", "anthropic"] as const;
export const Provider = z.enum(PROVIDERS);
export type Provider = z.infer<typeof Provider>;

export const ModelSettings = z.object({
  provider: Provider,
  /** Required for openai-compatible; optional override for the others. */
  baseURL: z.string().trim().optional(),
  model: z.string().trim().min(1, "a model name is needed"),
  apiKey: z.string().optional(),
});
export type ModelSettings = z.infer<typeof ModelSettings>;

export const PROVIDER_LABELS: Record<Provider, string> = {
  "openai-compatible": "OpenAI-compatible (Ollama, LM Studio, vLLM, …)",
  openai: "OpenAI",
  anthropic: "Anthropic",
};

/** Check settings before a mind is created; returns a message per problem. */
export function settingsProblems(s: ModelSettings): string[] {
  const problems: string[] = [];
  if (s.provider === "openai-compatible" && !s.baseURL) problems.push("An OpenAI-compatible model needs a base URL (e.g. http://localhost:11434/v1).");
  if (s.baseURL && !/^https?:\/\//.test(s.baseURL)) problems.push("The base URL must start with http:// or https://.");
  if ((s.provider === "openai" || s.provider === "anthropic") && !s.apiKey) problems.push(`${PROVIDER_LABELS[s.provider]} needs an API key.`);
  return problems;
}
