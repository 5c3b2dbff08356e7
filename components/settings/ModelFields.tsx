"use client";
// The model part of a mind's settings: provider, model name, base URL, key,
// price, and a connection test. Shared by the new-mind form and the settings
// panel. The host's proxy is offered only when the host has one; it needs no
// key, and its models and prices come from the proxy itself.
import { useState } from "react";
import { modelLabel } from "@/lib/llm/settings";
import type { PriceTable } from "@/lib/mind/settings/model";
import type { ProxyOffer } from "@/lib/llm/proxy";
import { PROVIDER_LABELS } from "@/lib/llm/settings";
import { PROVIDERS, type ModelSettings, type Provider } from "@/lib/mind/settings/model";
import { PRICE_INPUT_FIELD, PRICE_OUTPUT_FIELD, readPriceFields } from "./money-form";
import { ConnectionTest } from "../onboarding/ConnectionTest";

export const inputClass =
  "mt-1 w-full rounded border border-stone-300 bg-white px-2 py-1.5 text-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500 dark:border-stone-700 dark:bg-stone-900";

const PLACEHOLDERS: Partial<Record<Provider, string>> = {
  anthropic: "claude-sonnet-4-5",
  google: "gemini-2.5-flash",
  openrouter: "openai/gpt-4o-mini",
};

export function ModelFields(props: {
  provider: Provider;
  onProvider: (p: Provider) => void;
  /** Prefix of the fields' test ids ("" gives the contract ids model-provider, model-name …). */
  testIdPrefix?: string;
  initial?: ModelSettings;
  /** When editing: an empty key field keeps the saved key. */
  keepKeyHint?: boolean;
  /** The key saved for this mind, for the connection test when the field is left empty. */
  savedKey?: string;
  /** The host's proxy, once asked (undefined while asking). */
  proxy?: ProxyOffer;
  /** This browser's price table, for the model typed. */
  prices?: PriceTable;
  /** The connection test's button and result ids (default: the prefixed model-test and model-test-result). */
  connectionTestIds?: { button: string; result: string };
}) {
  const { provider, proxy } = props;
  const id = (name: string) => `${props.testIdPrefix ?? ""}${name}`;
  const [model, setModel] = useState(props.initial?.model ?? "");
  const proxyModels = proxy?.available ? proxy.models : [];
  // The proxy first when the host has one; a mind already on it keeps it listed even if the host dropped it.
  const offered = PROVIDERS.filter((p) => p !== "proxy" || proxy?.available || props.initial?.provider === "proxy");
  const known = props.prices?.[modelLabel({ provider, model })];
  const isProxy = provider === "proxy";
  const proxyModel = isProxy ? (proxyModels.find((m) => m.id === model) ?? proxyModels[0]) : undefined;
  const initialPrice = props.initial?.provider === provider && props.initial.price ? props.initial.price : provider === "openai-compatible" ? { input: 0, output: 0 } : undefined;

  return (
    <fieldset className="grid gap-3 sm:grid-cols-2">
      <legend className="mb-1 text-sm font-medium">Model</legend>
      <label className="block text-sm">
        Provider
        <select
          name="provider"
          data-testid={id("model-provider")}
          className={inputClass}
          value={provider}
          onChange={(e) => props.onProvider(e.target.value as Provider)}
        >
          {offered.map((p) => (
            <option key={p} value={p}>
              {PROVIDER_LABELS[p]}
            </option>
          ))}
        </select>
      </label>
      <label className="block text-sm">
        Model name
        {isProxy ? (
          <select name="model" data-testid={id("model-name")} className={inputClass} value={proxyModel?.id ?? model} onChange={(e) => setModel(e.target.value)}>
            {proxyModels.length === 0 && model && <option value={model}>{model}</option>}
            {proxyModels.map((m) => (
              <option key={m.id} value={m.id}>
                {m.id}
              </option>
            ))}
          </select>
        ) : (
          <input
            name="model"
            data-testid={id("model-name")}
            className={inputClass}
            value={model}
            onChange={(e) => setModel(e.target.value)}
            placeholder={PLACEHOLDERS[provider] ?? "gpt-4o-mini"}
            autoComplete="off"
          />
        )}
      </label>
      {!isProxy && (
        <>
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
        </>
      )}
      {isProxy ? (
        <p data-testid={id("model-price")} className="text-xs text-stone-600 sm:col-span-2 dark:text-stone-400">
          {proxyModel?.price
            ? `Priced by the host: $${proxyModel.price.input} per million input tokens, $${proxyModel.price.output} per million output tokens.`
            : "The host prices this model."}{" "}
          The host&apos;s key stays on its server; its own caps apply on top of this mind&apos;s.
        </p>
      ) : (
        <fieldset className="grid gap-3 sm:col-span-2 sm:grid-cols-2" key={`price-${provider}`}>
          <PriceInput side="input" name={PRICE_INPUT_FIELD} testId={id("model-price-input")} initial={initialPrice?.input} known={known?.input} />
          <PriceInput side="output" name={PRICE_OUTPUT_FIELD} testId={id("model-price-output")} initial={initialPrice?.output} known={known?.output} />
        </fieldset>
      )}
      {/* Keyed by provider: a result says nothing about another provider's settings. */}
      <ConnectionTest
        key={provider}
        read={(form) => readModelFields(new FormData(form), provider, props.savedKey).settings}
        buttonTestId={props.connectionTestIds?.button ?? id("model-test")}
        resultTestId={props.connectionTestIds?.result ?? id("model-test-result")}
      />
    </fieldset>
  );
}

/** The model settings typed into ModelFields, before validation; a price that does not parse is a problem. */
export function readModelFields(f: FormData, provider: Provider, savedKey?: string): { settings: ModelSettings; problems: string[] } {
  const field = (k: string) => String(f.get(k) ?? "");
  const price: ReturnType<typeof readPriceFields> = provider === "proxy" ? { ok: true } : readPriceFields(f);
  const settings: ModelSettings = {
    provider,
    baseURL: provider === "proxy" ? undefined : field("baseURL") || undefined,
    model: field("model"),
    apiKey: provider === "proxy" ? undefined : field("apiKey") || savedKey || undefined,
    ...(price.ok && price.price ? { price: price.price } : {}),
  };
  return { settings, problems: price.ok ? [] : [price.problem] };
}

/** One side of a model's price, USD per million tokens; empty falls back to this browser's table when it knows the model. */
function PriceInput({ side, name, testId, initial, known }: { side: "input" | "output"; name: string; testId: string; initial?: number; known?: number }) {
  return (
    <label className="block text-sm">
      Price, USD per million {side} tokens {known !== undefined ? "(empty: this browser's table)" : ""}
      <input
        name={name}
        type="number"
        min={0}
        step="any"
        data-testid={testId}
        className={inputClass}
        defaultValue={initial}
        placeholder={known !== undefined ? String(known) : "unknown: give one"}
      />
    </label>
  );
}
