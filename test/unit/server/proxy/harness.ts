// The proxy's handlers against real neighbours: the scripted model server
// (test/fixtures/model-server.ts, a real HTTP upstream) and a real ledger on
// PGlite in a temp folder. Every response the handlers give passes through
// `seen`, so a test can check the key appears in none of them.
import type { Caps } from "@/lib/server/ledger/ledger";
import { openLedger, type Ledger } from "@/lib/server/ledger/ledger";
import { Margins } from "@/lib/server/proxy/settlement";
import { handleChatCompletions, handleModels, type ProxyDeps, type Settlement } from "@/lib/server/proxy/routes";
import type { ProxyConfig } from "@/lib/server/proxy/config";
import { serverSecret } from "@/lib/server/db/secrets";
import type { Sql } from "@/lib/server/db/sql";
import { startModelServer, type ModelServer } from "../../../fixtures/model-server";
import { pglite } from "../databases";

/** Not a real key: the upstream is the scripted server. */
export const HOST_KEY = "fake-key-host-key-under-test-1f0e9d8c7b6a";
export const TOKENS = Array.from({ length: 40 }, (_, i) => `client-token-${i}-${"x".repeat(12)}`);
/** USD per million tokens: large enough that one call is many micro-dollars. */
export const PRICE = { input: 10, output: 30 };
export const CAPS: Caps = { globalDayUsd: 100, clientHourUsd: 0.05, clientDayUsd: 1, requestUsd: 0.04 };
/** A fixed clock for the ledger and the proxy, so resets_at and Retry-After are exact. */
export const NOW = new Date("2031-05-06T07:40:00.000Z");

export interface Harness {
  upstream: ModelServer;
  sql: Sql;
  ledger: Ledger;
  deps: ProxyDeps;
  logs: string[];
  /** Every response seen so far, as text (status, headers, body). */
  seen: string[];
  /** A client of its own for each test. */
  token(): string;
  post(body: unknown, init?: { token?: string | null; headers?: Record<string, string>; signal?: AbortSignal; raw?: string }): Promise<Response>;
  models(init?: { token?: string | null; headers?: Record<string, string> }): Promise<Response>;
  /** The body of a response, recorded in `seen`. */
  text(res: Response): Promise<string>;
  /** The next settlement (or one already made and not yet taken). */
  settlement(): Promise<Settlement>;
  /** Rows in spend_reservations for a client (the ledger's table), to show a refusal held nothing. */
  reservations(clientId: string): Promise<number>;
  close(): Promise<void>;
}

export async function startHarness(caps: Caps = CAPS, overrides: Partial<ProxyConfig> = {}): Promise<Harness> {
  const db = await pglite.fresh();
  const sql = await db.open();
  const upstream = await startModelServer();
  const ledger = openLedger(sql, caps, { now: () => NOW });
  const config: ProxyConfig = {
    upstreamUrl: upstream.url,
    apiKey: HOST_KEY,
    models: ["scripted", "free"],
    prices: { scripted: PRICE, free: { input: 0, output: 0 } },
    caps,
    tokens: TOKENS,
    upstreamTimeoutMs: 30_000,
    reasoningModels: [],
    showUpstreamErrors: true,
    ...overrides,
  };
  const logs: string[] = [];
  const seen: string[] = [];
  const done: Settlement[] = [];
  const waiting: ((s: Settlement) => void)[] = [];
  const deps: ProxyDeps = {
    config,
    ledger,
    margins: new Margins(),
    cookieSecret: () => serverSecret(sql, "client-cookie"),
    log: (line) => logs.push(line),
    now: () => NOW,
    onSettled: (s) => {
      const w = waiting.shift();
      if (w) w(s);
      else done.push(s);
    },
  };
  let next = 0;
  const record = (res: Response) => {
    seen.push(`${res.status} ${JSON.stringify([...res.headers])}`);
    return res;
  };
  const headersFor = (init: { token?: string | null; headers?: Record<string, string> } | undefined) => {
    const h: Record<string, string> = { ...init?.headers };
    if (init?.token) h.authorization = `Bearer ${init.token}`;
    return h;
  };
  return {
    upstream,
    sql,
    ledger,
    deps,
    logs,
    seen,
    token: () => TOKENS[next++]!,
    async post(body, init) {
      const req = new Request("http://proxy.test/api/llm/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json", ...headersFor(init) },
        body: init?.raw ?? JSON.stringify(body),
        signal: init?.signal,
      });
      return record(await handleChatCompletions(req, deps));
    },
    async models(init) {
      return record(await handleModels(new Request("http://proxy.test/api/llm/v1/models", { headers: headersFor(init) }), deps));
    },
    async text(res) {
      const t = await res.text();
      seen.push(t);
      return t;
    },
    settlement: () => new Promise((resolve) => {
      const s = done.shift();
      if (s) resolve(s);
      else waiting.push(resolve);
    }),
    async reservations(clientId) {
      const rows = await sql.query<{ n: unknown }>("SELECT count(*) AS n FROM spend_reservations WHERE client_id = $1", [clientId]);
      return Number(rows[0]?.n ?? 0);
    },
    async close() {
      await upstream.close();
      await sql.close();
      await db.remove();
    },
  };
}

export const chat = (content: string, extra: Record<string, unknown> = {}) => ({ model: "scripted", messages: [{ role: "user", content }], ...extra });
