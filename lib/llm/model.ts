// Build an AI SDK language model from a mind's settings. One small branch per
// provider; calls go straight from the worker to the provider.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { ModelSettings } from "./settings";

export function createModel(s: ModelSettings): LanguageModel {
  const baseURL = s.baseURL?.replace(/\/+$/, "") || undefined;
  switch (s.provider) {
    case "openai-compatible":
      return createOpenAICompatible({ name: "openai-compatible", baseURL: baseURL ?? "", apiKey: s.apiKey || undefined, includeUsage: true }).chatModel(s.model);
    case "openai":
      return createOpenAI({ apiKey: s.apiKey, baseURL }).chat(s.model);
    case "anthropic":
      return createAnthropic({
        apiKey: s.apiKey,
        baseURL,
        // Anthropic refuses browser calls unless they say they mean it.
        headers: { "anthropic-dangerous-direct-browser-access": "true" },
      })(s.model);
  }
}

/** How the model is named in steps: provider/model. */
export function modelLabel(s: ModelSettings): string {
  return `${s.provider}/${s.model}`;
}
