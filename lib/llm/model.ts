// Build an AI SDK language model from a mind's settings. One small branch per
// provider; calls go straight from the worker to the provider, or to the
// host's proxy (same origin, so the browser sends its `reverie_client` cookie
// and no key is needed). Each provider's package is loaded when a mind first
// uses it: together they are a megabyte of the worker's code, and a mind on
// the proxy (or any chat-completions server) needs none of them.
import type { LanguageModel } from "ai";
import { ChatCompletions } from "./chat-completions";
import type { ModelSettings } from "../mind/settings/model";

import { PROXY_PATH } from "./proxy";

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

export async function createModel(s: ModelSettings, env: ModelEnv = {}): Promise<LanguageModel> {
  const baseURL = s.baseURL?.replace(/\/+$/, "") || undefined;
  const fetch = env.fetch;
  switch (s.provider) {
    case "proxy": {
      // No key: the proxy holds the host's; it knows this browser by its cookie.
      const base = proxyBaseUrl(env.origin);
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({ name: "proxy", baseURL: base, includeUsage: true, fetch }).chatModel(s.model);
    }
    case "openai-compatible": {
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({ name: "openai-compatible", baseURL: baseURL ?? "", apiKey: s.apiKey || undefined, includeUsage: true, fetch }).chatModel(s.model);
    }
    case "openai": {
      const { createOpenAI } = await import("@ai-sdk/openai");
      return createOpenAI({ apiKey: s.apiKey, baseURL, fetch }).chat(s.model);
    }
    case "anthropic": {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic({
        apiKey: s.apiKey,
        baseURL,
        // Anthropic refuses browser calls unless they say they mean it.
        headers: { "anthropic-dangerous-direct-browser-access": "true" },
        fetch,
      })(s.model);
    }
    case "google": {
      const { createGoogle } = await import("@ai-sdk/google");
      return createGoogle({ apiKey: s.apiKey, baseURL, fetch })(s.model);
    }
    case "openrouter": {
      // "strict" asks for usage in streamed replies (stream_options.include_usage).
      const { createOpenRouter } = await import("@openrouter/ai-sdk-provider");
      return createOpenRouter({ apiKey: s.apiKey, baseURL, compatibility: "strict", fetch }).chat(s.model);
    }
  }
}

/**
 * What the mind's loop calls: the proxy and OpenAI-compatible servers speak
 * plain chat completions, read without the AI SDK's stream layers (about
 * 1 ms a call: lib/llm/chat-completions.ts); every other provider through
 * the SDK.
 */
export async function createModelSource(s: ModelSettings, env: ModelEnv = {}): Promise<LanguageModel | ChatCompletions> {
  const fetch = env.fetch;
  if (s.provider === "proxy") return new ChatCompletions({ baseURL: proxyBaseUrl(env.origin), model: s.model, fetch });
  // openChatStream trims the base URL's trailing slashes itself.
  if (s.provider === "openai-compatible") return new ChatCompletions({ baseURL: s.baseURL ?? "", model: s.model, apiKey: s.apiKey || undefined, fetch });
  return createModel(s, env);
}

export { modelLabel } from "./settings";
