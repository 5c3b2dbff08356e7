import "server-only";
// The runner's configuration, from the environment. RUNNER_MAX_MINDS=0 turns
// it off; otherwise every value must be sane or `npm start` refuses to start,
// naming what is wrong (as the proxy's settings are checked).
import type { ListedPort } from "../net/address-policy";
import { parseOutboundAllow } from "../net/outbound-allow";

export interface RunnerConfig {
  /** Minds one process hosts at once. */
  maxMinds: number;
  /** A lease's life without renewal: how long a closed tab keeps its mind before a runner takes it. */
  leaseS: number;
  /** Encrypts minds' own keys kept for keep-alive; absent: that opt-in is not offered. */
  keySecret?: string;
  /** URL prefixes a mind on the server may reach at most (whatever its own allow-list says). */
  networkAllow: string[];
  /** Loopback, private and link-local addresses an own-key mind's model may be at (OUTBOUND_ALLOW). */
  outboundAllow: ListedPort[];
}

export type RunnerConfigResult = { kind: "off"; why: string } | { kind: "ok"; config: RunnerConfig } | { kind: "invalid"; problems: string[]; message: string };

export const DEFAULT_MAX_MINDS = 20;
export const DEFAULT_RUNNER_LEASE_S = 30;
const MIN_SECRET_CHARS = 32;

type Env = Record<string, string | undefined>;

function whole(env: Env, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    problems.push(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
    return fallback;
  }
  return n;
}

/** `parseAllow` reads RUNNER_NETWORK_ALLOW (the network guard's parser): its problems are the runner's. */
export function parseRunnerConfig(env: Env, parseAllow: (raw: string | undefined) => { ok: true; prefixes: string[] } | { ok: false; problems: string[] }): RunnerConfigResult {
  const problems: string[] = [];
  const maxMinds = whole(env, "RUNNER_MAX_MINDS", DEFAULT_MAX_MINDS, 0, 100_000, problems);
  const leaseS = whole(env, "RUNNER_LEASE_S", DEFAULT_RUNNER_LEASE_S, 5, 3600, problems);
  const secret = env.RUNNER_KEY_SECRET?.trim();
  // Only whether it is long enough is said; its value never goes into a message.
  if (secret !== undefined && secret !== "" && secret.length < MIN_SECRET_CHARS) problems.push(`RUNNER_KEY_SECRET must be at least ${MIN_SECRET_CHARS} characters (e.g. openssl rand -base64 32)`);
  const allow = parseAllow(env.RUNNER_NETWORK_ALLOW);
  if (!allow.ok) problems.push(...allow.problems);
  const outbound = parseOutboundAllow(env.OUTBOUND_ALLOW);
  if (!outbound.ok) problems.push(...outbound.problems);
  if (problems.length) return { kind: "invalid", problems, message: `the runner's settings are invalid: ${problems.join("; ")}` };
  if (maxMinds === 0) return { kind: "off", why: "RUNNER_MAX_MINDS is 0" };
  // Nothing could pay for a mind's calls here: no host proxy (LLM_PROXY_UPSTREAM_URL), and no way to keep a mind's own key.
  if (!env.LLM_PROXY_UPSTREAM_URL?.trim() && !secret) return { kind: "off", why: "no proxy is configured (LLM_PROXY_UPSTREAM_URL) and RUNNER_KEY_SECRET is not set, so no mind could pay for its calls here" };
  return { kind: "ok", config: { maxMinds, leaseS, ...(secret ? { keySecret: secret } : {}), networkAllow: allow.ok ? allow.prefixes : [], outboundAllow: outbound.ok ? outbound.entries : [] } };
}
