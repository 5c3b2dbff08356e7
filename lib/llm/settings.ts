// A mind's model settings, in words: how a model is named, the form's labels
// and its checks. The schema is the mind's (lib/mind/settings/model.ts).
import type { ModelSettings, Provider } from "../mind/settings/model";

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
