import "server-only";
// The proxy's configuration, from the environment (names fixed by issue 9).
// No LLM_PROXY_UPSTREAM_URL means no proxy, which is not an error. With one,
// every other setting must be present and sane, or the proxy refuses to start:
// an unbounded bill is a start-up failure, not a runtime surprise.
import { parsePriceTable } from "../../llm/price";
import { type Price, type PriceTable } from "../../mind/settings/model";
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
  /** The bearer token that may also read the whole proxy's figures from /usage (none: no admin view). */
  adminToken?: string;
  /** How long the upstream may stay silent (before answering, or between two reads of its answer) before the call ends with 504. */
  upstreamTimeoutMs: number;
  /** Models that may reason without saying so; "*" for all. A cut call of such a model is settled at its hold. */
  reasoningModels: readonly string[];
  /** Whether an upstream's error message is relayed to clients (the host's choice; off: only its status). */
  showUpstreamErrors: boolean;
}

export const DEFAULT_UPSTREAM_TIMEOUT_S = 120;

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

  const cap = (name: string): number => {
    const raw = env[name]?.trim();
    const n = raw ? Number(raw) : NaN;
    if (!raw) problems.push(`${name} is missing (a spend cap in USD; the proxy does not run uncapped)`);
    else if (!Number.isFinite(n) || n <= 0) problems.push(`${name} must be a positive number of USD (got "${raw}")`);
    return n;
  };
  // In CAP_VARS' order, so the problems are listed as ever.
  const caps: Caps = {
    globalDayUsd: cap(CAP_VARS.globalDayUsd),
    clientHourUsd: cap(CAP_VARS.clientHourUsd),
    clientDayUsd: cap(CAP_VARS.clientDayUsd),
    requestUsd: cap(CAP_VARS.requestUsd),
  };

  const tokens = list(env.LLM_PROXY_TOKENS);
  const adminToken = env.LLM_PROXY_ADMIN_TOKEN?.trim() || undefined;
  if (adminToken && tokens.includes(adminToken)) problems.push("LLM_PROXY_ADMIN_TOKEN must not also be in LLM_PROXY_TOKENS (the admin view is not a client that spends)");
  const timeoutRaw = env.LLM_PROXY_UPSTREAM_TIMEOUT_S?.trim();
  const timeoutS = timeoutRaw ? Number(timeoutRaw) : DEFAULT_UPSTREAM_TIMEOUT_S;
  if (!Number.isFinite(timeoutS) || timeoutS <= 0 || timeoutS > 3600) problems.push(`LLM_PROXY_UPSTREAM_TIMEOUT_S must be a number of seconds between 0 and 3600 (got "${timeoutRaw}")`);
  const showRaw = env.LLM_PROXY_SHOW_UPSTREAM_ERRORS?.trim() ?? "";
  if (!["", "0", "1"].includes(showRaw)) problems.push(`LLM_PROXY_SHOW_UPSTREAM_ERRORS must be 1 or 0 (got "${showRaw}")`);
  if (problems.length) {
    return { kind: "invalid", problems, message: `The LLM proxy is not configured correctly, so it will not serve:\n  - ${problems.join("\n  - ")}` };
  }
  return {
    kind: "ok",
    config: {
      upstreamUrl,
      apiKey,
      models,
      prices,
      caps,
      tokens,
      adminToken,
      upstreamTimeoutMs: timeoutS * 1000,
      reasoningModels: list(env.LLM_PROXY_REASONING_MODELS),
      showUpstreamErrors: showRaw === "1",
    },
  };
}

/** The price of a model the proxy offers (undefined for one it does not). */
export function priceOf(config: ProxyConfig, model: string): Price | undefined {
  return config.models.includes(model) ? config.prices[model] : undefined;
}

/** Whether a model may spend reasoning tokens that its stream does not show (the host says so in LLM_PROXY_REASONING_MODELS). */
export function mayReasonUnseen(config: ProxyConfig, model: string): boolean {
  return config.reasoningModels.includes("*") || config.reasoningModels.includes(model);
}
