import "server-only";
// A mind's model on the server. On the host's proxy, calls go through the
// proxy's own route handler in process (the ledger, the caps, the clamp and
// the settlement all as for a tab), as a client named for the person who
// made the mind, so their minds share one client's caps wherever they run.
// With its own key, kept for keep-alive, the key is opened for the call's
// client and never leaves this module: not in a step, a log or an error; and
// every call goes through the server's outbound guard, for its base URL is
// its owner's to type (lib/server/net/outbound.ts): a refused one fails as
// any model call that cannot connect, with the reason in its error step.
import { modelPort } from "../../llm/complete";
import { createModelSource, modelLabel } from "../../llm/model";
import { BUILT_IN_PRICES, priceFor } from "../../llm/prices";
import type { ModelPort } from "../../mind/ports";
import type { MindSettings } from "../../mind/settings/settings";
import type { Sql } from "../db/sql";
import type { OutboundFetch } from "../net/outbound";
import { priceOf, type ProxyConfigResult } from "../proxy/config";
import { openKey } from "./key-vault";

/** The origin the in-process proxy is addressed by: never dialled, the fetch below answers it. */
const IN_PROCESS = "http://runner.invalid";

export interface ServerModelDeps {
  sql: Sql;
  proxy: () => ProxyConfigResult;
  /** The proxy's route handler, called in process as `clientId`. */
  proxyCall: (request: Request, clientId: string) => Promise<Response>;
  keySecret?: string;
  /** What an own-key mind's calls go through (outboundFetch, under OUTBOUND_ALLOW). */
  outboundFetch: OutboundFetch;
}

/** Why a mind cannot pay for its calls on this server (undefined: it can). */
export function cannotPay(settings: MindSettings, deps: { proxy: ProxyConfigResult; keySecret?: string; hasKey: boolean }): string | undefined {
  if (settings.model.provider === "proxy") {
    if (deps.proxy.kind !== "ok") return "this server has no proxy configured, so a mind on the host's proxy cannot think here";
    if (!deps.proxy.config.models.includes(settings.model.model)) return `the host's proxy does not offer ${settings.model.model}`;
    return undefined;
  }
  if (!deps.keySecret) return `this mind uses its own ${settings.model.provider} key, and this server does not keep keys (RUNNER_KEY_SECRET is not set): switch it to the host's proxy to keep it alive`;
  if (!deps.hasKey) return "this mind uses its own key: to keep it alive, opt in to keep that key on the server";
  return undefined;
}

export function serverModel(deps: ServerModelDeps): (mindId: string, settings: MindSettings) => Promise<ModelPort> {
  return async (mindId, settings) => {
    const s = settings.model;
    const [row] = await deps.sql.query<{ client_id: string | null; runner_key: Uint8Array | null }>("SELECT client_id, runner_key FROM sync_minds WHERE id = $1", [mindId]);
    const proxy = deps.proxy();
    const why = cannotPay(settings, { proxy, keySecret: deps.keySecret, hasKey: !!row?.runner_key });
    if (why) throw new Error(why);
    if (s.provider === "proxy" && proxy.kind === "ok") {
      const price = priceOf(proxy.config, s.model);
      if (!price) throw new Error(`the host's proxy has no price for ${s.model}`);
      const clientId = `sync:${row?.client_id ?? mindId}`;
      const fetch: typeof globalThis.fetch = (input, init) => deps.proxyCall(new Request(input, init), clientId);
      return modelPort(await createModelSource(s, { origin: IN_PROCESS, fetch }), modelLabel(s), { price });
    }
    const apiKey = openKey(deps.keySecret ?? "", mindId, row?.runner_key ?? new Uint8Array());
    const withKey = { ...s, apiKey };
    const price = priceFor(withKey, BUILT_IN_PRICES) ?? (s.provider === "openai-compatible" ? { input: 0, output: 0 } : undefined);
    if (!price) throw new Error(`no price is known for ${modelLabel(s)}, so its spend caps could not be kept: give its price in Settings`);
    return modelPort(await createModelSource(withKey, { fetch: deps.outboundFetch }), modelLabel(s), { price });
  };
}
