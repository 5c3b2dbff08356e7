// The server runner under the faults the e2e runner-faults test found
// (test/e2e/runner-faults.test.ts), over a real database on both engines:
// - a tab asking for a mind the runner hosts gets it, asking about once a
//   second as a tab does (lib/store/sync/home.ts looks at the mind's state on
//   the server, asks, and waits half a second: the e2e saw an ask a second);
//   the runner that handed it over does not take it straight back (it used
//   to queue the mind's wake at once and win the lease again before the
//   tab's next ask, over and over);
// - a runner that stops renewing while it hosts a mind (a process killed, or
//   hung) loses it to another runner once its lease lapses: while a mind is
//   hosted its wake stays queued for when that lease would lapse.
// The model is a fake at the model port, named FAKE below.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelPort, ModelRequest, ModelResult } from "@/lib/mind/ports";
import type { Sql } from "@/lib/server/db/sql";
import { hostBoundNetwork } from "@/lib/server/runner/network";
import { Runner, type RunnerOptions } from "@/lib/server/runner/runner";
import { openWakeQueue } from "@/lib/server/runner/wakes";
import { engines } from "../databases";
import { keptAlive as keptMind, until } from "../../helpers/kept-minds";
import { instance, type App } from "../sync/harness";

const LEASE_S = 5;


/** FAKE model: every inner-life call waits until it is aborted (a run that is always under way when a fault lands). */
const longRuns: ModelPort = {
  name: "fake/long-runs",
  async complete(req: ModelRequest): Promise<ModelResult> {
    await new Promise<void>((resolve) => req.signal.addEventListener("abort", () => resolve(), { once: true }));
    return { ok: false, error: "aborted", aborted: true };
  },
};


for (const engine of engines) {
  describe.skipIf(engine.skip)(`the server runner under faults on ${engine.name}`, { timeout: 120_000 }, () => {
    let sql: Sql;
    let remove: () => Promise<void>;
    let app: App;
    const runners: Runner[] = [];
    /** A runner as `npx reverie runner` starts one (its poll and the queue's as in production), with overrides. */
    const runner = async (over: Partial<RunnerOptions> = {}) => {
      const r = new Runner({ sql, maxMinds: 5, leaseS: LEASE_S, model: async () => longRuns, network: (s) => hostBoundNetwork(s.permissions, []), log: () => undefined, ...over });
      runners.push(r);
      await r.start();
      return r;
    };

    beforeAll(async () => {
      const db = await engine.fresh();
      remove = db.remove;
      sql = await db.open();
      app = instance(sql);
    }, 120_000);
    afterAll(async () => {
      await Promise.all(runners.map((r) => r.stop()));
      await app?.close();
      await sql?.close();
      await remove?.();
    }, 60_000);

    const keptAlive = (name: string) => keptMind(app, sql, name);
    const wakes = async (mind: string) =>
      (await sql.query<{ json: string }>("SELECT json FROM sync_steps WHERE mind = $1 AND type = 'wake' ORDER BY seq", [mind])).map((r) => JSON.parse(r.json) as { home?: string; epoch?: number });
    const lease = async (mind: string) => {
      const [row] = await sql.query<{ holder: string; epoch: string | number }>("SELECT holder, epoch FROM mind_leases WHERE mind = $1", [mind]);
      return row && { holder: row.holder, epoch: Number(row.epoch) };
    };

    it("a tab asking once a second gets a mind the runner hosts, and the runner does not take it straight back", async () => {
      const r = await runner();
      const m = await keptAlive("Ivy");
      await r.wakes().now(m.mind, "scheduled");
      await until("the mind hosted on the server", async () => r.hostedMinds().some((h) => h.mind === m.mind), 20_000);
      const asked = Date.now();
      const got = await until(
        "the lease for the tab",
        async () => {
          const res = await app.call("POST", `/api/sync/minds/${m.mind}/lease`, { token: m.token, body: { holder: "tab:asking", ttl_s: LEASE_S } });
          if (res.status === 200) return (await res.json()) as { epoch: number };
          await new Promise((done) => setTimeout(done, 1000));
          return undefined;
        },
        15_000,
      );
      expect(Date.now() - asked).toBeLessThan(5_000);
      // While the tab holds it (it renews as a tab does), no runner takes it back.
      for (let i = 0; i < 4; i++) {
        await new Promise((done) => setTimeout(done, (LEASE_S * 1000) / 3));
        const renewed = await app.call("POST", `/api/sync/minds/${m.mind}/lease`, { token: m.token, body: { holder: "tab:asking", epoch: got.epoch, ttl_s: LEASE_S } });
        expect(renewed.status).toBe(200);
      }
      expect(await lease(m.mind)).toMatchObject({ holder: "tab:asking", epoch: got.epoch });
      expect(r.hostedMinds()).toEqual([]);
    });

    it("a runner that stops renewing while it hosts a mind loses it to another runner once the lease lapses", async () => {
      const m = await keptAlive("Jo");
      // The runner that will stop: it takes the waiting wake as it starts, then neither looks for wakes again nor renews (as if killed).
      for (const r of runners.splice(0)) await r.stop();
      const sender = await openWakeQueue(sql);
      await sender.now(m.mind, "scheduled");
      await sender.stop();
      const dying = await runner({ pollMs: 3_600_000, wakes: { pollSeconds: 3600 } });
      const first = await until("the mind hosted by the runner that will stop", async () => dying.hostedMinds().find((h) => h.mind === m.mind), 20_000);
      const stopsAt = Date.now();
      const other = await runner();
      const next = await until("the mind hosted by the other runner", async () => other.hostedMinds().find((h) => h.mind === m.mind), 20_000);
      expect(next.epoch).toBeGreaterThan(first.epoch);
      // Within the lease, a second for the wake, and the queue's poll: well inside the lease + 5 s.
      expect(Date.now() - stopsAt).toBeLessThan((LEASE_S + 5) * 1000);
      expect(await lease(m.mind)).toMatchObject({ holder: other.holder, epoch: next.epoch });
      await until("the other runner's wake, under its epoch", async () => (await wakes(m.mind)).some((w) => w.home === "server" && w.epoch === next.epoch), 10_000);
    });
  });
}
