// A tab's claim on its kept-alive mind (lib/store/sync/home.ts keepHome)
// against the real routes in process, on PGlite. When the tab cannot reach
// the server it runs the mind here without the lease; once it can, it takes
// the lease from the runner that went on meanwhile, and that loop of its own
// is stopped before the server's steps are pulled: left running, it went on
// writing the run it had begun, whose start the pull sets aside, into the
// mind's line under the new epoch (the e2e runner fault test found steps of
// set-aside runs in the mind's line). Then the tab says the mind lives here.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Sql } from "@/lib/server/db/sql";
import { parseProxyConfig } from "@/lib/server/proxy/config";
import { runnerRoutes } from "@/lib/server/runner/routes";
import { sharingServer } from "./server-sync-harness";
import { acquireLease } from "@/lib/server/state/lease";
import type { ReverieDb } from "@/lib/store/db/db";
import { createMind } from "@/lib/store/minds/minds";
import { browserSync, getSync } from "@/lib/store/sync/sync";
import { keepHome, type HomeWhere } from "@/lib/store/sync/home";
import { openTestDb } from "./helpers/db";
import { pglite } from "./server-databases";

const BASE = "http://reverie.test";
const LEASE_S = 5;

describe("a tab's claim on its kept-alive mind", () => {
  let db: ReverieDb;
  let sql: Sql;
  let remove: () => Promise<void>;
  /** Whether this browser reaches the server. */
  let online = true;

  beforeEach(async () => {
    const server = await sharingServer(pglite);
    ({ sql, remove } = server);
    const sharing = server.fetch;
    const runner = runnerRoutes({
      sql: async () => sql,
      config: () => ({ kind: "ok", config: { maxMinds: 5, leaseS: LEASE_S, networkAllow: [] } }),
      proxy: () => parseProxyConfig({}),
      keepAliveChanged: async () => undefined,
    });
    // The page's own origin, in process: the browser's sync (which fetches relative URLs) and the keeper both go through it.
    vi.stubGlobal("fetch", async (input: string | URL | Request, init?: RequestInit) => {
      if (!online) throw new TypeError("Failed to fetch");
      const request = new Request(new URL(String(input instanceof Request ? input.url : input), BASE), init);
      return new URL(request.url).pathname === "/api/runner" ? runner.info(request, { params: Promise.resolve({}) }) : sharing(request);
    });
    db = await openTestDb("home-keeper");
  }, 60_000);
  afterEach(async () => {
    vi.unstubAllGlobals();
    db?.close();
    await remove?.();
  }, 60_000);

  it("stops the loop it ran without the lease before it pulls what the server wrote, then runs here", async () => {
    const mindId = (await createMind(db, { name: "Kit", persona: "", model: { provider: "proxy", model: "m" } })).id;
    await browserSync(db, mindId).engine.enable();
    const rec = await getSync(db, mindId);
    const mind = rec?.server_mind as string;
    await sql.query("UPDATE sync_minds SET keep_alive = true WHERE id = $1", [mind]);

    const told: string[] = [];
    const whereOf = (w: HomeWhere) => w.where;
    const abort = new AbortController();
    online = false;
    const keeper = keepHome(
      { db, mindId, fetch: (i, init) => fetch(i, init), clock: { now: () => Date.now(), sleep: (ms, signal) => new Promise((r) => (signal.aborted ? r() : setTimeout(r, Math.min(ms, 50)))) }, ids: { uuid: () => crypto.randomUUID() }, holder: "tab:kit" },
      { onWhere: (w) => told.push(whereOf(w)), onDigest: () => told.push("digest"), onLost: () => told.push("lost"), onError: () => undefined },
      abort.signal,
    );
    try {
      // Offline: it runs here, without a lease (its loop starts).
      await keeper.ready();
      expect(told).toEqual(["local"]);
      // Meanwhile a runner went on with the mind; the tab is back online and looks again.
      const runner = await acquireLease(sql, mind, "runner:elsewhere", LEASE_S);
      if (!runner.ok) throw new Error("the runner could not take the lease");
      await sql.query("UPDATE mind_leases SET expires_at = now() WHERE mind = $1", [mind]);
      online = true;
      keeper.recheck();
      await expect.poll(() => told.at(-1), { timeout: 10_000 }).toBe("this-tab");
      // The loop it ran without the lease was stopped before anything was pulled, and it runs here under the next epoch.
      expect(told).toEqual(["local", "lost", "this-tab"]);
      expect((await getSync(db, mindId))?.epoch).toBe(runner.lease.epoch + 1);
      await keeper.ready();
    } finally {
      // Gone offline first, so the lease it lets go on leaving is not sent to a database being closed.
      online = false;
      abort.abort();
    }
    // Five seconds or so on a busy machine (the sync's first push, a pull, PGlite): room for it.
  }, 30_000);
});
