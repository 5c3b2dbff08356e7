// Keep-alive's edges: the runner's settings (parseRunnerConfig), the kept key
// (sealed under RUNNER_KEY_SECRET, bound to its mind), and the routes over a
// real database: GET /api/runner, a mind's keep-alive switch (refused with
// the reason when it could not pay on the server; a kept key stored sealed
// and deleted when turned off) and its halt.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "@/lib/server/db/sql";
import { parseProxyConfig, type ProxyConfigResult } from "@/lib/server/proxy/config";
import { parseRunnerConfig, type RunnerConfigResult } from "@/lib/server/runner/config";
import { openKey, sealKey } from "@/lib/server/runner/key-vault";
import { parseNetworkAllow } from "@/lib/server/runner/network";
import { runnerRoutes } from "@/lib/server/runner/routes";
import { DEFAULT_PERMISSIONS } from "@/lib/trajectory/permissions";
import { engines } from "../databases";
import { instance, newMind, type App } from "../sync/harness";

const SECRET = "a-runner-secret-for-tests-only-0123456789";
const MIND_KEY = "fake-own-model-key-for-tests-0001";

describe("the runner's settings", () => {
  const parse = (env: Record<string, string>) => parseRunnerConfig(env, parseNetworkAllow);
  it("is on with the proxy or a key secret, off without either or at RUNNER_MAX_MINDS=0", () => {
    expect(parse({ LLM_PROXY_UPSTREAM_URL: "http://127.0.0.1:9/v1" })).toEqual({ kind: "ok", config: { maxMinds: 20, leaseS: 30, networkAllow: [], outboundAllow: [] } });
    expect(parse({ RUNNER_KEY_SECRET: SECRET, RUNNER_MAX_MINDS: "3", RUNNER_LEASE_S: "10" })).toEqual({ kind: "ok", config: { maxMinds: 3, leaseS: 10, keySecret: SECRET, networkAllow: [], outboundAllow: [] } });
    expect(parse({ RUNNER_KEY_SECRET: SECRET, OUTBOUND_ALLOW: "127.0.0.1:11434" })).toMatchObject({ kind: "ok", config: { outboundAllow: [{ host: "127.0.0.1", port: 11434 }] } });
    expect(parse({})).toMatchObject({ kind: "off", why: expect.stringContaining("no proxy is configured") });
    expect(parse({ LLM_PROXY_UPSTREAM_URL: "http://127.0.0.1:9/v1", RUNNER_MAX_MINDS: "0" })).toEqual({ kind: "off", why: "RUNNER_MAX_MINDS is 0" });
  });
  it("names every bad value, and never the secret", () => {
    const r = parse({ RUNNER_MAX_MINDS: "-1", RUNNER_LEASE_S: "2", RUNNER_KEY_SECRET: "short-secret", RUNNER_NETWORK_ALLOW: "ftp://x/", OUTBOUND_ALLOW: "127.0.0.1:11434 models.internal:443" });
    expect(r.kind).toBe("invalid");
    const problems = (r as Extract<RunnerConfigResult, { kind: "invalid" }>).problems;
    expect(problems).toEqual([
      'RUNNER_MAX_MINDS must be a whole number from 0 to 100000, not "-1"',
      'RUNNER_LEASE_S must be a whole number from 5 to 3600, not "2"',
      "RUNNER_KEY_SECRET must be at least 32 characters (e.g. openssl rand -base64 32)",
      'RUNNER_NETWORK_ALLOW: "ftp://x/" is not an http or https URL (it is ftp:)',
      "OUTBOUND_ALLOW: \"models.internal:443\" names a host (models.internal); list its IP address with the port instead, or localhost: a name's addresses can change, the host's word cannot",
    ]);
    expect(JSON.stringify(r)).not.toContain("short-secret");
  });
});

describe("a kept key", () => {
  it("opens with the same secret for the same mind only, and its ciphertext does not hold it", () => {
    const sealed = sealKey(SECRET, "mind-1", MIND_KEY);
    expect(sealed.toString("latin1")).not.toContain(MIND_KEY);
    expect(openKey(SECRET, "mind-1", sealed)).toBe(MIND_KEY);
    expect(() => openKey(`${SECRET}x`, "mind-1", sealed)).toThrow(/does not open with this server's RUNNER_KEY_SECRET/);
    expect(() => openKey(SECRET, "mind-2", sealed)).toThrow(/does not open/);
    expect(() => openKey(SECRET, "mind-1", sealed.subarray(0, 10))).toThrow(/damaged/);
    // Two seals of one key differ (a fresh IV each time).
    expect(sealKey(SECRET, "mind-1", MIND_KEY).equals(sealed)).toBe(false);
  });
});

for (const engine of engines) {
  describe.skipIf(engine.skip)(`keep-alive routes on ${engine.name}`, { timeout: 60_000 }, () => {
    let sql: Sql;
    let remove: () => Promise<void>;
    let app: App;
    let config: RunnerConfigResult = { kind: "ok", config: { maxMinds: 5, leaseS: 30, keySecret: SECRET, networkAllow: [], outboundAllow: [] } };
    let proxy: ProxyConfigResult = { kind: "off" };
    const changes: { mind: string; on: boolean }[] = [];
    let routes: ReturnType<typeof runnerRoutes>;

    beforeAll(async () => {
      const db = await engine.fresh();
      remove = db.remove;
      sql = await db.open();
      app = instance(sql);
      routes = runnerRoutes({ sql: async () => sql, config: () => config, proxy: () => proxy, keepAliveChanged: async (_sql, mind, on) => void changes.push({ mind, on }) });
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      await sql?.close();
      await remove?.();
    });

    const call = (r: ReturnType<typeof runnerRoutes>[keyof ReturnType<typeof runnerRoutes>], method: string, m: { mind: string; token: string } | null, body?: unknown) =>
      r(new Request("http://app.test/x", { method, headers: { "content-type": "application/json", ...(m ? { authorization: `Bearer ${m.token}` } : {}) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }), {
        params: Promise.resolve(m ? { mind: m.mind } : {}),
      });
    const withSettings = async (provider: "proxy" | "openai") => {
      const m = await newMind(app, "Kay");
      const settings = { id: m.mind, name: "Kay", persona: "", model: { provider, model: provider === "proxy" ? "scripted" : "gpt-4o-mini" }, created_at: "2026-12-01T00:00:00.000Z", running: true, permissions: DEFAULT_PERMISSIONS, budget: { hour_usd: 1, day_usd: 2 } };
      await sql.query("UPDATE sync_minds SET settings = $2 WHERE id = $1", [m.mind, JSON.stringify(settings)]);
      return m;
    };

    it("GET /api/runner says whether minds are kept alive here", async () => {
      expect(await (await call(routes.info, "GET", null)).json()).toEqual({ max_minds: 5, lease_s: 30, keeps_keys: true });
      const saved = config;
      config = { kind: "off", why: "RUNNER_MAX_MINDS is 0" };
      const off = await call(routes.info, "GET", null);
      expect(off.status).toBe(404);
      expect(await off.json()).toEqual({ error: { code: "not_configured", message: "this server does not run minds while no tab is open (RUNNER_MAX_MINDS is 0)" } });
      config = saved;
    });

    it("refuses keep-alive, with the reason, when the mind could not pay here; nothing changes", async () => {
      const bare = await newMind(app, "Nobody");
      const noSettings = await call(routes.keepAlive, "PUT", bare, { on: true });
      expect(noSettings.status).toBe(409);
      expect((await noSettings.json()).error).toMatchObject({ code: "cannot_keep_alive", message: expect.stringContaining("does not have this mind's settings yet") });

      const onProxy = await withSettings("proxy");
      const noProxy = await call(routes.keepAlive, "PUT", onProxy, { on: true });
      expect((await noProxy.json()).error.message).toBe("this server has no proxy configured, so a mind on the host's proxy cannot think here");

      const ownKey = await withSettings("openai");
      const noOptIn = await call(routes.keepAlive, "PUT", ownKey, { on: true });
      expect((await noOptIn.json()).error.message).toBe("this mind uses its own key: to keep it alive, opt in to keep that key on the server");
      const [row] = await sql.query<{ keep_alive: boolean; runner_key: unknown }>("SELECT keep_alive, runner_key FROM sync_minds WHERE id = $1", [ownKey.mind]);
      expect(row).toEqual({ keep_alive: false, runner_key: null });
      expect(changes).toEqual([]);
    });

    it("keeps an opted-in key sealed, and deletes it when keep-alive goes off", async () => {
      const m = await withSettings("openai");
      const on = await call(routes.keepAlive, "PUT", m, { on: true, api_key: MIND_KEY });
      expect(on.status).toBe(200);
      expect(await on.json()).toMatchObject({ keep_alive: true, halted: false });
      const [row] = await sql.query<{ runner_key: Uint8Array }>("SELECT runner_key FROM sync_minds WHERE id = $1", [m.mind]);
      expect(Buffer.from(row!.runner_key).toString("latin1")).not.toContain(MIND_KEY);
      expect(openKey(SECRET, m.mind, row!.runner_key)).toBe(MIND_KEY);
      const off = await call(routes.keepAlive, "PUT", m, { on: false });
      expect(await off.json()).toMatchObject({ keep_alive: false });
      const [after] = await sql.query<{ runner_key: unknown }>("SELECT runner_key FROM sync_minds WHERE id = $1", [m.mind]);
      expect(after?.runner_key).toBeNull();
      expect(changes.filter((c) => c.mind === m.mind)).toEqual([{ mind: m.mind, on: true }, { mind: m.mind, on: false }]);
    });

    it("a mind on the proxy is kept alive when the proxy offers its model; halt and start again", async () => {
      proxy = parseProxyConfig({
        LLM_PROXY_UPSTREAM_URL: "http://127.0.0.1:9/v1",
        LLM_PROXY_API_KEY: "fake-upstream-key-not-real",
        LLM_PROXY_MODELS: "scripted",
        LLM_PROXY_PRICES: JSON.stringify({ scripted: { input: 1, output: 1 } }),
        LLM_PROXY_CAP_DAY_USD: "1",
        LLM_PROXY_CLIENT_CAP_HOUR_USD: "1",
        LLM_PROXY_CLIENT_CAP_DAY_USD: "1",
        LLM_PROXY_REQUEST_CAP_USD: "0.1",
      });
      const m = await withSettings("proxy");
      expect(await (await call(routes.keepAlive, "PUT", m, { on: true })).json()).toMatchObject({ keep_alive: true, halted: false, lease: null });
      expect(await (await call(routes.halt, "POST", m, { halted: true })).json()).toMatchObject({ keep_alive: true, halted: true });
      expect(await (await call(routes.halt, "POST", m, { halted: false })).json()).toMatchObject({ halted: false });
      const stranger = { mind: m.mind, token: "x".repeat(43) };
      expect((await call(routes.halt, "POST", stranger, { halted: true })).status).toBe(401);
    });
  });
}
