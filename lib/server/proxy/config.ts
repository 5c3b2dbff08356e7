import "server-only";
// The proxy's configuration, from the environment (names fixed by issue 9).
// No LLM_PROXY_UPSTREAM_URL means no proxy, which is not an error. With one,
// every other setting must be present and sane, or the proxy refuses to start:
// an unbounded bill is a start-up failure, not a runtime surprise.
import { parsePriceTable, type Price, type PriceTable } from "../../llm/price";
import type { Caps } from "../ledger/ledger";

export interface ProxyConfig {
  /** The upstream's OpenAI-compatible base URL (ending in /v1), without a trailing slash. */
  upstreamUrl: string;
  /** The host's key. Never leaves the server: not in a response, a log line or an error. */
  apiKey: string;
  models: readonly string[];
  prices: PriceTable;
  caps: Caps;
  /** Bearer tokens the host hands out; each is a client of its own. */
  tokens: readonly string[];
}

export type ProxyConfigResult =
  | { kind: "off" }
  | { kind: "ok"; config: ProxyConfig }
  | { kind: "invalid"; problems: string[]; message: string };

type Env = Record<string, string | undefined>;

const CAP_VARS = {
  globalDayUsd: "LLM_PROXY_CAP_DAY_USD",
  clientHourUsd: "LLM_PROXY_CLIENT_CAP_HOUR_USD",
  clientDayUsd: "LLM_PROXY_CLIENT_CAP_DAY_USD",
  requestUsd: "LLM_PROXY_REQUEST_CAP_USD",
} as const satisfies Record<keyof Caps, string>;

const list = (v: string | undefined) =>
  (v ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export function parseProxyConfig(env: Env): ProxyConfigResult {
  const upstream = env.LLM_PROXY_UPSTREAM_URL?.trim();
  if (!upstream) return { kind: "off" };
  const problems: string[] = [];

  let upstreamUrl = upstream.replace(/\/+$/, "");
  try {
    const u = new URL(upstreamUrl);
    if (u.protocol !== "http:" && u.protocol !== "https:") problems.push(`LLM_PROXY_UPSTREAM_URL must be an http(s) URL (got ${u.protocol})`);
  } catch {
    problems.push("LLM_PROXY_UPSTREAM_URL is not a URL (expected an OpenAI-compatible base URL ending in /v1)");
    upstreamUrl = "";
  }

  const apiKey = env.LLM_PROXY_API_KEY?.trim() ?? "";
  // Only say whether the key is there; its value never goes into a message.
  if (!apiKey) problems.push("LLM_PROXY_API_KEY is missing (the upstream key the proxy spends)");

  const models = list(env.LLM_PROXY_MODELS);
  if (models.length === 0) problems.push("LLM_PROXY_MODELS is missing (a comma list of the models the proxy offers)");

  let prices: PriceTable = {};
  const pricesText = env.LLM_PROXY_PRICES?.trim();
  if (!pricesText) {
    problems.push('LLM_PROXY_PRICES is missing (JSON: {"model": {"input": USD per million tokens, "output": USD per million tokens}})');
  } else {
    const parsed = parsePriceTable(pricesText);
    if (!parsed.ok) problems.push(`LLM_PROXY_PRICES is invalid: ${parsed.error}`);
    else {
      prices = parsed.table;
      const unpriced = models.filter((m) => !Object.hasOwn(prices, m));
      if (unpriced.length) problems.push(`LLM_PROXY_PRICES has no price for ${unpriced.join(", ")} (every model in LLM_PROXY_MODELS needs one)`);
    }
  }

  const caps = {} as Caps;
  for (const [field, name] of Object.entries(CAP_VARS) as [keyof Caps, string][]) {
    const raw = env[name]?.trim();
    const n = raw ? Number(raw) : NaN;
    if (!raw) problems.push(`${name} is missing (a spend cap in USD; the proxy does not run uncapped)`);
    else if (!Number.isFinite(n) || n <= 0) problems.push(`${name} must be a positive number of USD (got "${raw}")`);
    caps[field] = n;
  }

  const tokens = list(env.LLM_PROXY_TOKENS);
  if (problems.length) {
    return { kind: "invalid", problems, message: `The LLM proxy is not configured correctly, so it will not serve:\n  - ${problems.join("\n  - ")}` };
  }
  return { kind: "ok", config: { upstreamUrl, apiKey, models, prices, caps, tokens } };
}

/** The price of a model the proxy offers (undefined for one it does not). */
export function priceOf(config: ProxyConfig, model: string): Price | undefined {
  return config.models.includes(model) ? config.prices[model] : undefined;
}
