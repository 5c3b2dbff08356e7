// Issue 37's attack from outside: an own-key mind kept alive on the server
// calls its model at the base URL its owner typed, so that URL must not make
// the server dial its own loopback or private network. Over a real database
// (both engines), a canary server on 127.0.0.1 counts connections: every
// provider's calls go through the server's outbound guard
// (lib/server/net/outbound.ts); the runner as `npm start` builds it
// (newRunner) never reaches a port OUTBOUND_ALLOW does not list, and the mind
// records why in an error step (without its key); listed, the same mind
// reaches it and thinks with its reply.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MindSettings } from "@/lib/mind/settings/settings";
import type { Provider } from "@/lib/mind/settings/model";
import type { Sql } from "@/lib/server/db/sql";
import type { ListedPort } from "@/lib/server/net/address-policy";
import { outboundFetch, outboundGuard } from "@/lib/server/net/outbound";
import type { RunnerConfig } from "@/lib/server/runner/config";
import { sealKey } from "@/lib/server/runner/key-vault";
import { serverModel } from "@/lib/server/runner/model";
import type { Runner } from "@/lib/server/runner/runner";
import { newRunner } from "@/lib/server/runner/runtime";
import { engines } from "../databases";
import { keptAlive, keptSettings, until } from "../../helpers/kept-minds";
import { startCanary, type Canary } from "../net/canary";
import { instance, type App } from "../sync/harness";

const SECRET = "a-runner-secret-for-tests-only-0123456789";
const KEY = "fake-key-not-real-0001";
const MARKER = "the canary answered";

/** The canary as an OpenAI-compatible server: one streamed reply that idles. */
function speakChatCompletions(canary: Canary): void {
  canary.reply = (_seen, res) => {
    const event = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(event({ choices: [{ delta: { content: `Nothing to do: ${MARKER}.\n\`\`\`bash\nFINAL="idle"\n\`\`\`` }, finish_reason: null }] }));
    res.write(event({ choices: [{ delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5 } }));
    res.end("data: [DONE]\n\n");
  };
}

for (const engine of engines) {
  describe.skipIf(engine.skip)(`an own-key mind's base URL on ${engine.name}`, { timeout: 120_000 }, () => {
    let sql: Sql;
    let remove: () => Promise<void>;
    let app: App;

    beforeAll(async () => {
      const db = await engine.fresh();
      remove = db.remove;
      sql = await db.open();
      app = instance(sql);
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      await sql?.close();
      await remove?.();
    }, 60_000);

    /** A kept-alive mind on its own key (sealed as the keep-alive route seals it), its model at `baseURL`. */
    const ownKeyMind = async (name: string, provider: Provider, baseURL: string) => {
      const m = await keptAlive(app, sql, name);
      const settings = MindSettings.parse({ ...keptSettings(m.tabId, name), model: { provider, model: "test-model", baseURL, price: { input: 1, output: 1 } } });
      await sql.query("UPDATE sync_minds SET settings = $2, runner_key = $3 WHERE id = $1", [m.mind, JSON.stringify(settings), sealKey(SECRET, m.mind, KEY)]);
      return { ...m, settings };
    };
    const steps = async (mind: string) => (await sql.query<{ json: string }>("SELECT json FROM sync_steps WHERE mind = $1 ORDER BY seq", [mind])).map((r) => r.json);
    const modelOf = (allow: ListedPort[]) =>
      serverModel({ sql, proxy: () => ({ kind: "off" }), proxyCall: () => Promise.reject(new Error("not on the proxy")), keySecret: SECRET, outboundFetch: outboundFetch(outboundGuard(allow)) });
    const call = { instructions: "Think.", messages: [{ role: "user" as const, content: "hello" }] };

    it("every provider's calls go through the guard: refused unlisted with the reason and no key, reached when listed", async () => {
      const canary = await startCanary();
      try {
        const base = `http://127.0.0.1:${canary.port}/v1`;
        const providers: Provider[] = ["openai-compatible", "openai", "anthropic", "google", "openrouter"];
        for (const provider of providers) {
          const m = await ownKeyMind(`Unlisted ${provider}`, provider, base);
          const port = await modelOf([])(m.mind, m.settings);
          const result = await port.complete({ ...call, signal: new AbortController().signal });
          expect(result.ok, provider).toBe(false);
          const error = result.ok ? "" : result.error;
          expect(error, provider).toMatch(new RegExp(`^refused to connect to http://127\\.0\\.0\\.1:${canary.port}/v1/\\S+: 127\\.0\\.0\\.1 is a loopback address, which this server's host has not listed in OUTBOUND_ALLOW`));
          expect(error).not.toContain(KEY);
        }
        expect(canary.connections()).toBe(0);

        for (const provider of providers) {
          const m = await ownKeyMind(`Listed ${provider}`, provider, base);
          const before = canary.requests.length;
          const port = await modelOf([{ host: "127.0.0.1", port: canary.port }])(m.mind, m.settings);
          // The canary's echo is no provider's reply: what matters is that the call reached it, with its key.
          await port.complete({ ...call, signal: new AbortController().signal });
          const reached = canary.requests.slice(before);
          expect(reached.length, provider).toBeGreaterThanOrEqual(1);
          expect(reached[0]?.method, provider).toBe("POST");
          expect(reached[0]?.url.startsWith("/v1/"), provider).toBe(true);
          expect(JSON.stringify(reached[0]?.headers), provider).toContain(KEY);
        }
        expect(canary.connections()).toBeGreaterThanOrEqual(providers.length);
      } finally {
        await canary.close();
      }
    });

    const runnerWith = (outboundAllow: ListedPort[]): Runner => {
      const config: RunnerConfig = { maxMinds: 5, leaseS: 5, keySecret: SECRET, networkAllow: [], outboundAllow };
      return newRunner(sql, config, { pollMs: 100, wakes: { pollSeconds: 0.5 }, log: () => undefined });
    };

    it("kept alive on the runner at a loopback port OUTBOUND_ALLOW does not list: never reached, and the mind says why", async () => {
      const canary = await startCanary();
      speakChatCompletions(canary);
      const runner = runnerWith([]);
      await runner.start();
      try {
        const m = await ownKeyMind("Mallory", "openai-compatible", `http://127.0.0.1:${canary.port}/v1`);
        await runner.wakes().now(m.mind, "scheduled");
        const refusal = await until("the mind's error step", async () => (await steps(m.mind)).map((j) => JSON.parse(j)).find((s) => s.type === "error" && s.reason === "model"));
        expect(refusal.content).toContain(
          `refused to connect to http://127.0.0.1:${canary.port}/v1/chat/completions: 127.0.0.1 is a loopback address, which this server's host has not listed in OUTBOUND_ALLOW`,
        );
        expect((await steps(m.mind)).join("\n")).not.toContain(KEY);
        expect(canary.connections()).toBe(0);
        await sql.query("UPDATE sync_minds SET keep_alive = false WHERE id = $1", [m.mind]);
      } finally {
        await runner.stop();
        await canary.close();
      }
      expect(canary.connections()).toBe(0);
    });

    it("the same mind, its port listed in OUTBOUND_ALLOW: reached, and it thinks with the reply", async () => {
      const canary = await startCanary();
      speakChatCompletions(canary);
      const runner = runnerWith([{ host: "127.0.0.1", port: canary.port }]);
      await runner.start();
      try {
        const m = await ownKeyMind("Trent", "openai-compatible", `http://127.0.0.1:${canary.port}/v1`);
        await runner.wakes().now(m.mind, "scheduled");
        await until("the reply in the mind's trajectory", async () => (await steps(m.mind)).some((j) => j.includes(MARKER)));
        expect(canary.connections()).toBeGreaterThanOrEqual(1);
        expect(canary.requests[0]).toMatchObject({ method: "POST", url: "/v1/chat/completions", headers: { authorization: `Bearer ${KEY}` } });
        expect((await steps(m.mind)).join("\n")).not.toContain(KEY);
        await sql.query("UPDATE sync_minds SET keep_alive = false WHERE id = $1", [m.mind]);
      } finally {
        await runner.stop();
        await canary.close();
      }
    });
  });
}
