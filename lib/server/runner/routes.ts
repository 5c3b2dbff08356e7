import "server-only";
// The runner's HTTP edges: whether this server keeps minds alive (GET
// /api/runner), a mind's keep-alive switch and its halt (a Stop or panic
// stop from a tab reaches the server runner too), under the mind's write token.
import { Halt, KeepAlive, type RunnerInfo, type ServerHome } from "@/lib/sync/wire";
import { parseMindSettings } from "../../mind/settings/settings";
import type { Sql } from "../db/sql";
import type { ProxyConfigResult } from "../proxy/config";
import { apiError, HttpError, json, readJson, route } from "../http/route";
import { authorizeMind, syncState } from "../sync/store";
import { bearerToken } from "../sharing/tokens";
import { DEFAULT_QUOTAS } from "../sharing/quotas";
import type { RunnerConfigResult } from "./config";
import { sealKey } from "./key-vault";
import { cannotPay } from "./model";

export interface RunnerRouteDeps {
  sql: () => Promise<Sql>;
  config: () => RunnerConfigResult;
  proxy: () => ProxyConfigResult;
  /** Keep-alive turned on or off: queue the mind's wake, or drop it. */
  keepAliveChanged: (sql: Sql, mind: string, on: boolean, leaseExpiresAt: Date | undefined) => Promise<void>;
}

const SMALL_BODY = 16 * 1024;

const home = async (sql: Sql, mind: string): Promise<ServerHome> => {
  const state = await syncState(sql, mind, DEFAULT_QUOTAS);
  return state.home ?? { keep_alive: false, halted: false, lease: null };
};

export function runnerRoutes(deps: RunnerRouteDeps) {
  const running = () => {
    const cfg = deps.config();
    if (cfg.kind === "invalid") throw new HttpError(503, "invalid_config", cfg.message);
    if (cfg.kind === "off") throw new HttpError(404, "not_configured", `this server does not run minds while no tab is open (${cfg.why})`);
    return cfg.config;
  };
  const asMind = (fn: (sql: Sql, mind: string, request: Request) => Promise<Response>) => async (request: Request, params: Record<string, string | string[] | undefined>) => {
    const sql = await deps.sql();
    const mind = String(params.mind ?? "");
    await authorizeMind(sql, mind, bearerToken(request));
    return fn(sql, mind, request);
  };

  return {
    info: route({
      GET: async () => {
        const cfg = running();
        const info: RunnerInfo = { max_minds: cfg.maxMinds, lease_s: cfg.leaseS, keeps_keys: cfg.keySecret !== undefined };
        return json(info);
      },
    }),
    keepAlive: route({
      PUT: asMind(async (sql, mind, request) => {
        const cfg = running();
        const body = await readJson(request, KeepAlive, SMALL_BODY);
        if (!body.on) {
          // Off: the kept key goes at once (the runner sees keep_alive off within its poll and lets the mind be).
          await sql.query("UPDATE sync_minds SET keep_alive = false, runner_key = NULL WHERE id = $1", [mind]);
          await deps.keepAliveChanged(sql, mind, false, undefined);
          return json(await home(sql, mind));
        }
        const [row] = await sql.query<{ settings: string | null; runner_key: Uint8Array | null }>("SELECT settings, runner_key FROM sync_minds WHERE id = $1", [mind]);
        const settings = row?.settings ? parseMindSettings(JSON.parse(row.settings)) : undefined;
        if (!settings) throw new HttpError(409, "cannot_keep_alive", "the server does not have this mind's settings yet: let its tab sync once, then try again");
        if (body.api_key !== undefined && !cfg.keySecret) throw new HttpError(409, "cannot_keep_alive", "this server does not keep model keys (RUNNER_KEY_SECRET is not set): switch the mind to the host's proxy to keep it alive");
        const why = cannotPay(settings, { proxy: deps.proxy(), keySecret: cfg.keySecret, hasKey: body.api_key !== undefined || row?.runner_key != null });
        if (why) throw new HttpError(409, "cannot_keep_alive", why);
        const sealed = body.api_key !== undefined && cfg.keySecret ? sealKey(cfg.keySecret, mind, body.api_key) : null;
        await sql.query("UPDATE sync_minds SET keep_alive = true, runner_key = COALESCE($2, runner_key) WHERE id = $1", [mind, sealed]);
        const now = await home(sql, mind);
        // Held by nobody: the tab that switched it on runs it and takes the lease at once, so the runner looks a lease's
        // life from now (as after a lease that lapsed), not now: a runner taking it first would write beside that tab.
        const until = now.lease?.live ? new Date(now.lease.expires_at) : new Date(Date.now() + cfg.leaseS * 1000);
        await deps.keepAliveChanged(sql, mind, true, until);
        return json(now);
      }),
    }),
    halt: route({
      POST: asMind(async (sql, mind, request) => {
        const body = await readJson(request, Halt, SMALL_BODY);
        // An operator's pause (paused_by) outlives the tab's own halt that carries it out; a Start from the owner ends it.
        await sql.query("UPDATE sync_minds SET halted_at = CASE WHEN $2 THEN COALESCE(halted_at, now()) ELSE NULL END, paused_by = CASE WHEN $2 THEN paused_by ELSE NULL END WHERE id = $1", [mind, body.halted]);
        const now = await home(sql, mind);
        // Started again with no tab holding it: the runner may take it at once.
        if (!body.halted && now.keep_alive && deps.config().kind === "ok") await deps.keepAliveChanged(sql, mind, true, now.lease?.live ? new Date(now.lease.expires_at) : undefined);
        return json(now);
      }),
    }),
  };
}

export const runnerNotFound = () => apiError(404, "not_found", "no such runner endpoint");
