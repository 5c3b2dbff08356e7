// Build an AI SDK language model from a mind's settings. One small branch per
// provider; calls go straight from the worker to the provider, or to the
// host's proxy (same origin, so the browser sends its `reverie_client` cookie
// and no key is needed).
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogle } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createOpenRouter } from "@openrouter/ai-sdk-provider";
import type { LanguageModel } from "ai";
import { ChatCompletions } from "./chat-completions";
import type { ModelSettings } from "./settings";

/** Where the host's proxy answers, under the app's origin. */
export const PROXY_PATH = "/api/llm/v1";

export interface ModelEnv {
  /** The app's origin (the page's or the worker's `location.origin`): the proxy lives there. */
  origin?: string;
  /** For tests at the HTTP boundary; the global fetch otherwise. */
  fetch?: typeof globalThis.fetch;
}

export function proxyBaseUrl(origin: string | undefined): string {
  if (!origin) throw new Error("The host's proxy is reached through the app's own origin, and this context has none.");
  return `${origin.replace(/\/+$/, "")}${PROXY_PATH}`;
}

export function createModel(s: ModelSettings, env: ModelEnv = {}): LanguageModel {
  const baseURL = s.baseURL?.replace(/\/+$/, "") || undefined;
  const fetch = env.fetch;
  switch (s.provider) {
    case "proxy":
      // No key: the proxy holds the host's; it knows this browser by its cookie.
      return createOpenAICompatible({ name: "proxy", baseURL: proxyBaseUrl(env.origin), includeUsage: true, fetch }).chatModel(s.model);
    case "openai-compatible":
      return createOpenAICompatible({ name: "openai-compatible", baseURL: baseURL ?? "", apiKey: s.apiKey || undefined, includeUsage: true, fetch }).chatModel(s.model);
    case "openai":
      return createOpenAI({ apiKey: s.apiKey, baseURL, fetch }).chat(s.model);
    case "anthropic":
      return createAnthropic({
        apiKey: s.apiKey,
        baseURL,
        // Anthropic refuses browser calls unless they say they mean it.
        headers: { "anthropic-dangerous-direct-browser-access": "true" },
        fetch,
      })(s.model);
    case "google":
      return createGoogle({ apiKey: s.apiKey, baseURL, fetch })(s.model);
    case "openrouter":
      // "strict" asks for usage in streamed replies (stream_options.include_usage).
      return createOpenRouter({ apiKey: s.apiKey, baseURL, compatibility: "strict", fetch }).chat(s.model);
  }
}

/**
 * What the mind's loop calls: the proxy and OpenAI-compatible servers speak
 * plain chat completions, read without the AI SDK's stream layers (about
 * 1 ms a call: lib/llm/chat-completions.ts); every other provider through
 * the SDK.
 */
export function createModelSource(s: ModelSettings, env: ModelEnv = {}): LanguageModel | ChatCompletions {
  const fetch = env.fetch;
  if (s.provider === "proxy") return new ChatCompletions({ baseURL: proxyBaseUrl(env.origin), model: s.model, fetch });
  // openChatStream trims the base URL's trailing slashes itself.
  if (s.provider === "openai-compatible") return new ChatCompletions({ baseURL: s.baseURL ?? "", model: s.model, apiKey: s.apiKey || undefined, fetch });
  return createModel(s, env);
}

/** How the model is named in steps: provider/model. */
export function modelLabel(s: ModelSettings): string {
  return `${s.provider}/${s.model}`;
}
