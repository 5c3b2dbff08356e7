// The cap, proven through the front door: `next start` (as `npm start` serves
// it) in front of a hostile upstream (test/fixtures/hostile-upstream.ts) that
// over-reports usage, ignores max_tokens, omits usage, stalls and cuts streams
// after reasoning. 200 calls at once from four clients against caps that
// allow about fifty: whatever the upstream says, the money recorded never
// exceeds any cap, nothing is left held, and every client sees a 200 or a
// clear 429, 502 or 504. Read back through GET /usage with the admin token
// (the ledger's own figures). On PGlite, and on PostgreSQL when .ci/run
// provides one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHostileUpstream, type HostileUpstream } from "../fixtures/hostile-upstream";
import { engines } from "../unit/server/databases";
import { startProxyApp } from "./proxy-app";

const CALLS = 200;
const CLIENTS = Array.from({ length: 4 }, (_, i) => `hostile-test-client-${i}-${"k".repeat(12)}`);
const ADMIN = "hostile-test-admin-token-0123456789";
const CAPS = { day: 0.2, clientHour: 0.06, clientDay: 0.08, request: 0.01 };
/** About 4 thousandths of a dollar at worst per call (100 tokens in, 2,000 out at $1/$2 per million): ~50 fit the day. */
const PROMPT = "word ".repeat(100);

for (const engine of engines) {
  describe.skipIf(engine.skip)(`the cap through next start, against a hostile upstream, on ${engine.name}`, { timeout: 240_000 }, () => {
    let upstream: HostileUpstream;
    let app: { url: string; close(): Promise<void> };
    let removeDb: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      upstream = await startHostileUpstream();
      const db = engine.name === "postgres" ? await engine.fresh() : undefined;
      removeDb = db?.remove;
      app = await startProxyApp({
        LLM_PROXY_UPSTREAM_URL: upstream.url,
        LLM_PROXY_API_KEY: "fake-key-hostile-upstream-not-real",
        LLM_PROXY_MODELS: "hostile",
        LLM_PROXY_PRICES: JSON.stringify({ hostile: { input: 1, output: 2 } }),
        LLM_PROXY_CAP_DAY_USD: String(CAPS.day),
        LLM_PROXY_CLIENT_CAP_HOUR_USD: String(CAPS.clientHour),
        LLM_PROXY_CLIENT_CAP_DAY_USD: String(CAPS.clientDay),
        LLM_PROXY_REQUEST_CAP_USD: String(CAPS.request),
        LLM_PROXY_TOKENS: CLIENTS.join(","),
        LLM_PROXY_ADMIN_TOKEN: ADMIN,
        LLM_PROXY_UPSTREAM_TIMEOUT_S: "1",
        ...(db?.databaseUrl && { DATABASE_URL: db.databaseUrl }),
      });
    }, 180_000);

    afterAll(async () => {
      await app?.close();
      await upstream?.close();
      await removeDb?.();
    }, 60_000);

    const usage = async (token: string) => {
      const res = await fetch(`${app.url}/api/llm/v1/usage`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      return (await res.json()) as {
        client: { hour_usd: number; day_usd: number; cap_hour_usd: number; cap_day_usd: number };
        global?: { day_usd: number; cap_day_usd: number; pending_usd: number; overruns: number };
      };
    };

    /** One call; its status, and for a 200 whether its body arrived whole. */
    async function call(i: number): Promise<{ status: number; whole: boolean; error?: string }> {
      const res = await fetch(`${app.url}/api/llm/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${CLIENTS[i % CLIENTS.length]}` },
        body: JSON.stringify({ model: "hostile", stream: i % 2 === 0, max_tokens: 2000, messages: [{ role: "user", content: `${i}: ${PROMPT}` }] }),
      });
      const text = await res.text().then(
        (t) => t,
        () => undefined,
      );
      const error = res.status === 200 || text === undefined ? undefined : (JSON.parse(text) as { error: { message: string } }).error.message;
      return { status: res.status, whole: text !== undefined, error };
    }

    it(`${CALLS} calls at once: no cap is ever exceeded, nothing is left held, every answer is 200 or a clear 429/502/504`, async () => {
      const results = await Promise.all(Array.from({ length: CALLS }, (_, i) => call(i)));
      const byStatus = new Map<number, number>();
      for (const r of results) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
      console.log(`${engine.name}: statuses ${JSON.stringify(Object.fromEntries(byStatus))}; upstream saw ${JSON.stringify(upstream.counts)}`);
      expect([...byStatus.keys()].every((s) => [200, 429, 502, 504].includes(s))).toBe(true);
      for (const r of results) if (r.status !== 200) expect(r.error).toMatch(/^(spend cap reached|the model server)/);
      expect(byStatus.get(200)).toBeGreaterThan(10);
      expect(byStatus.get(429)).toBeGreaterThan(10);
      expect(byStatus.get(504)).toBeGreaterThan(0);

      // Settlement runs just after each answer: wait until nothing is held.
      let admin = await usage(ADMIN);
      for (let i = 0; i < 100 && admin.global!.pending_usd > 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        admin = await usage(ADMIN);
      }
      const g = admin.global!;
      console.log(`${engine.name}: recorded ${g.day_usd} of the ${g.cap_day_usd} day cap; ${g.overruns} overruns`);
      expect(g.pending_usd).toBe(0);
      expect(g.day_usd).toBeLessThanOrEqual(CAPS.day);
      expect(g.day_usd).toBeGreaterThan(CAPS.day / 4);
      expect(g.overruns).toBeGreaterThan(0);
      let clientsTotal = 0;
      for (const token of CLIENTS) {
        const { client } = await usage(token);
        expect(client.hour_usd).toBeLessThanOrEqual(CAPS.clientHour);
        expect(client.day_usd).toBeLessThanOrEqual(CAPS.clientDay);
        clientsTotal += client.day_usd;
      }
      expect(clientsTotal).toBeCloseTo(g.day_usd, 6);
    });
  });
}
