"use client";
// The model part of a mind's settings: provider, model name, base URL, key.
// Shared by the new-mind form and the settings panel.
import { PROVIDER_LABELS, PROVIDERS, type ModelSettings, type Provider } from "@/lib/llm/settings";

export const inputClass =
  "mt-1 w-full rounded border border-stone-300 bg-white px-2 py-1.5 text-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500 dark:border-stone-700 dark:bg-stone-900";

export function ModelFields(props: {
  provider: Provider;
  onProvider: (p: Provider) => void;
  /** Prefix of the fields' test ids ("" gives the contract ids model-provider, model-name …). */
  testIdPrefix?: string;
  initial?: ModelSettings;
  /** When editing: an empty key field keeps the saved key. */
  keepKeyHint?: boolean;
}) {
  const { provider } = props;
  const id = (name: string) => `${props.testIdPrefix ?? ""}${name}`;
  return (
    <fieldset className="grid gap-3 sm:grid-cols-2">
      <legend className="mb-1 text-sm font-medium">Model</legend>
      <label className="block text-sm">
        Provider
        <select name="provider" data-testid={id("model-provider")} className={inputClass} value={provider} onChange={(e) => props.onProvider(e.target.value as Provider)}>
          {PROVIDERS.map((p) => (
            <option key={p} value={p}>
              {PROVIDER_LABELS[p]}
            </option>
          ))}
        </select>
      </label>
      <label className="block text-sm">
        Model name
        <input
          name="model"
          data-testid={id("model-name")}
          className={inputClass}
          defaultValue={props.initial?.model}
          placeholder={provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o-mini"}
          autoComplete="off"
        />
      </label>
      <label className="block text-sm">
        Base URL {provider === "openai-compatible" ? "" : "(optional)"}
        <input
          name="baseURL"
          data-testid={id("model-base-url")}
          className={inputClass}
          defaultValue={props.initial?.baseURL}
          placeholder={provider === "openai-compatible" ? "http://localhost:11434/v1" : "default"}
          autoComplete="off"
        />
      </label>
      <label className="block text-sm">
        API key {props.keepKeyHint ? "(empty keeps the saved key)" : provider === "openai-compatible" ? "(if the server needs one)" : ""}
        <input name="apiKey" type="password" data-testid={id("model-api-key")} className={inputClass} autoComplete="off" />
      </label>
    </fieldset>
  );
}

/** The model settings typed into ModelFields, before validation. */
export function readModelFields(f: FormData, provider: Provider, savedKey?: string) {
  const field = (k: string) => String(f.get(k) ?? "");
  return { provider, baseURL: field("baseURL") || undefined, model: field("model"), apiKey: field("apiKey") || savedKey || undefined };
}
