import "server-only";
// The proxy as the running server sees it: configuration from process.env,
// the process-wide database and ledger, and what each /api/llm route answers
// when the proxy is off (404 not_configured, which the page reads to decide
// whether to offer it) or misconfigured (503 naming what is wrong).
import { openLedger, type Ledger } from "../ledger/ledger";
import { handleChatCompletions, handleModels, type ProxyDeps } from "./routes";
import { parseProxyConfig, type ProxyConfig, type ProxyConfigResult } from "./config";
import { errorResponse } from "./http";
import { Margins } from "./settlement";
import { handleUsage } from "./usage";
import { serverSecret } from "../db/secrets";
import { serverSql, type Sql } from "../db/sql";

let parsed: ProxyConfigResult | undefined;
const ledgers = new WeakMap<Sql, Ledger>();
const margins = new Margins();

/** The environment is read once per process: a change needs a restart, as `npm start`'s check does. */
function config(): ProxyConfigResult {
  return (parsed ??= parseProxyConfig(process.env));
}

const notConfigured = () =>
  errorResponse(404, "not_configured", "no proxy configured on this server (LLM_PROXY_UPSTREAM_URL is not set); use a model with your own key");

type Ready = { ok: true; deps: ProxyDeps } | { ok: false; response: Response };

async function ready(cfg: ProxyConfig): Promise<Ready> {
  let sql: Sql;
  try {
    sql = await serverSql();
  } catch (e) {
    console.error(`llm proxy: the ledger's database is unavailable: ${e instanceof Error ? e.message : String(e)}`);
    return { ok: false, response: errorResponse(503, "ledger_unavailable", "the spend ledger is unavailable (its database could not be opened), so no call is made; try again shortly") };
  }
  let ledger = ledgers.get(sql);
  if (!ledger) ledgers.set(sql, (ledger = openLedger(sql, cfg.caps)));
  // Stale reservations (a server that died mid-call) are swept by the ledger itself, from reserve.
  return { ok: true, deps: { config: cfg, ledger, margins, cookieSecret: () => serverSecret(sql, "client-cookie") } };
}

async function withProxy(handle: (deps: ProxyDeps) => Promise<Response>): Promise<Response> {
  const cfg = config();
  if (cfg.kind === "off") return notConfigured();
  if (cfg.kind === "invalid") return errorResponse(503, "invalid_config", cfg.message);
  const r = await ready(cfg.config);
  return r.ok ? handle(r.deps) : r.response;
}

export const chatCompletionsRoute = (request: Request) => withProxy((deps) => handleChatCompletions(request, deps));

/** The proxy as this server's runner calls it, in process, for a mind it hosts: client `clientId`, under the same caps as any client. */
export const runnerChatCompletions = (request: Request, clientId: string) => withProxy((deps) => handleChatCompletions(request, deps, { clientId }));

/** The proxy's configuration as this process read it (the runner offers keep-alive on the proxy only when it is ok). */
export const proxyConfig = (): ProxyConfigResult => config();
export const modelsRoute = (request: Request) => withProxy((deps) => handleModels(request, deps));
export const usageRoute = (request: Request) => withProxy((deps) => handleUsage(request, deps));

/** Any other path under /api/llm. */
export function otherLlmRoute(): Response {
  const cfg = config();
  return cfg.kind === "off" ? notConfigured() : errorResponse(404, "not_found", "no such endpoint (the proxy serves POST /api/llm/v1/chat/completions, GET /api/llm/v1/models and GET /api/llm/v1/usage)");
}
