// A tab's claim on its kept-alive mind (lib/store/sync/home.ts keepHome)
// against the real routes in process, on PGlite. When the tab cannot reach
// the server it runs the mind here without the lease; once it can, it takes
// the lease from the runner that went on meanwhile, and that loop of its own
// is stopped before the server's steps are pulled: left running, it went on
// writing the run it had begun, whose start the pull sets aside, into the
// mind's line under the new epoch (the e2e runner fault test found steps of
// set-aside runs in the mind's line). Then the tab says the mind lives here.
// And one writer without exception: a mind this browser knows is kept alive
// never runs here without the lease (unreachable, the tab waits and asks
// again; a loop it ran while keep-alive was off stops before it asks; a lease
// it cannot renew stops the loop when it would lapse), and leaving, the tab
// uploads what it wrote before it lets the lease go.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Sql } from "@/lib/server/db/sql";
import { parseProxyConfig } from "@/lib/server/proxy/config";
import { runnerRoutes } from "@/lib/server/runner/routes";
import { sharingServer } from "../../server/sync/harness";
import { acquireLease } from "@/lib/server/state/lease";
import type { ReverieDb } from "@/lib/store/db/db";
import { createMind } from "@/lib/store/minds/minds";
import { appendStep } from "@/lib/store/steps/steps";
import { browserSync, getSync, updateSync } from "@/lib/store/sync/sync";
import { keepHome, type HomeWhere } from "@/lib/store/sync/home";
import { openTestDb } from "../../helpers/db";
import { pglite } from "../../server/databases";

const BASE = "http://reverie.test";
const LEASE_S = 5;

describe("a tab's claim on its kept-alive mind", () => {
  let db: ReverieDb;
  let sql: Sql;
  let remove: () => Promise<void>;
  /** Whether this browser reaches the server. */
  let online = true;
  /** What the page asked and when its answers came, in order ("→ POST lease", "← GET runner"). */
  let heard: string[] = [];
  /** How long the server takes to say whether it has a runner. */
  let runnerDelayMs = 0;

  beforeEach(async () => {
    const server = await sharingServer(pglite);
    ({ sql, remove } = server);
    const sharing = server.fetch;
    const runner = runnerRoutes({
      sql: async () => sql,
      config: () => ({ kind: "ok", config: { maxMinds: 5, leaseS: LEASE_S, networkAllow: [], outboundAllow: [] } }),
      proxy: () => parseProxyConfig({}),
      keepAliveChanged: async () => undefined,
    });
    // The page's own origin, in process: the browser's sync (which fetches relative URLs) and the keeper both go through it.
    vi.stubGlobal("fetch", async (input: string | URL | Request, init?: RequestInit) => {
      if (!online) throw new TypeError("Failed to fetch");
      const request = new Request(new URL(String(input instanceof Request ? input.url : input), BASE), init);
      const path = new URL(request.url).pathname;
      const name = `${request.method} ${path.split("/").at(-1)}`;
      heard.push(`→ ${name}`);
      if (path === "/api/runner") await new Promise((r) => setTimeout(r, runnerDelayMs));
      const answer = await (path === "/api/runner" ? runner.info(request, { params: Promise.resolve({}) }) : sharing(request));
      heard.push(`← ${name}`);
      return answer;
    });
    db = await openTestDb("home-keeper");
    heard = [];
    runnerDelayMs = 0;
    online = true;
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
  /** A synced mind; `server`: keep-alive as the server has it; `known`: what this browser last knew of it (keep-alive and the lease length). */
  async function keptMind(server: { keepAlive: boolean }, known: { keepAlive: boolean; leaseS?: number }) {
    const mindId = (await createMind(db, { name: "Kit", persona: "", model: { provider: "proxy", model: "m" } })).id;
    await browserSync(db, mindId).engine.enable();
    const mind = (await getSync(db, mindId))?.server_mind as string;
    await sql.query("UPDATE sync_minds SET keep_alive = $2 WHERE id = $1", [mind, server.keepAlive]);
    await updateSync(db, mindId, (r) => ({ ...r, keep_alive: known.keepAlive, ...(known.leaseS ? { lease_s: known.leaseS } : {}) }));
    return { mindId, mind };
  }

  function keep(mindId: string, told: string[], abort: AbortController) {
    const clock = { now: () => Date.now(), sleep: (ms: number, signal: AbortSignal) => new Promise<void>((r) => (signal.aborted ? r() : setTimeout(r, Math.min(ms, 50)))) };
    return keepHome(
      { db, mindId, fetch: (i, init) => fetch(i, init), clock, ids: { uuid: () => crypto.randomUUID() }, holder: "tab:kit" },
      { onWhere: (w) => told.push(w.where), onDigest: () => told.push("digest"), onLost: () => told.push("lost"), onError: (m) => told.push(`error: ${m}`) },
      abort.signal,
    );
  }

  /** Keep the mind's home until `check` is done (it runs once the keeper says the mind may run), then go away offline. */
  async function whileKept(mindId: string, check: (told: string[]) => Promise<void>) {
    const told: string[] = [];
    const abort = new AbortController();
    const keeper = keep(mindId, told, abort);
    try {
      await keeper.ready();
      await check(told);
    } finally {
      // Gone offline first, so the lease it lets go on leaving is not sent to a database being closed.
      online = false;
      abort.abort();
    }
  }

  const leaseRow = async (mind: string) => (await sql.query<{ holder: string; expires_at: Date }>("SELECT holder, expires_at FROM mind_leases WHERE mind = $1", [mind]))[0];

  it("asks for the lease at once when this browser knows its mind is kept alive, without waiting to hear whether the server has a runner", async () => {
    const { mindId, mind } = await keptMind({ keepAlive: true }, { keepAlive: true, leaseS: LEASE_S });
    runnerDelayMs = 300;
    await whileKept(mindId, async (told) => {
      expect(told).toEqual(["this-tab"]);
      // The lease went out before the runner's answer came back; one lease request, not two.
      expect(heard.indexOf("→ POST lease")).toBeGreaterThanOrEqual(0);
      expect(heard.indexOf("→ POST lease")).toBeLessThan(heard.indexOf("← GET runner"));
      expect(heard.filter((h) => h === "→ POST lease")).toHaveLength(1);
      expect((await leaseRow(mind))?.holder).toBe("tab:kit");
    });
  }, 30_000);

  it("lets that lease go when keep-alive was turned off elsewhere, and runs the mind here without one", async () => {
    const { mindId, mind } = await keptMind({ keepAlive: false }, { keepAlive: true, leaseS: LEASE_S });
    await whileKept(mindId, async (told) => {
      expect(told).toEqual(["local"]);
      expect(heard).toContain("→ POST lease");
      expect(heard).toContain("→ DELETE lease");
      // Let go: no home holds it, and this browser now knows keep-alive is off (so it does not ask early again).
      const row = await leaseRow(mind);
      expect(!row || row.expires_at.getTime() <= Date.now()).toBe(true);
      const rec = await getSync(db, mindId);
      expect(rec?.keep_alive).toBe(false);
      expect(rec?.lease_s).toBeUndefined();
    });
  }, 30_000);

  it("waits for the server's word when keep-alive was just switched on here (no lease length heard yet), and learns the lease length", async () => {
    // Switching keep-alive on clears the lease length (hooks-home useKeepAlive): asking early then raced the switch's own sync.
    const { mindId } = await keptMind({ keepAlive: true }, { keepAlive: true });
    runnerDelayMs = 100;
    await whileKept(mindId, async (told) => {
      expect(told).toEqual(["this-tab"]);
      expect(heard.indexOf("→ POST lease")).toBeGreaterThan(heard.indexOf("← GET runner"));
      expect((await getSync(db, mindId))?.lease_s).toBe(LEASE_S);
    });
  }, 30_000);
  it("never runs a mind this browser knows is kept alive without the lease: unreachable, it waits and asks again", async () => {
    const { mindId, mind } = await keptMind({ keepAlive: true }, { keepAlive: true, leaseS: LEASE_S });
    online = false;
    const told: string[] = [];
    const abort = new AbortController();
    const keeper = keep(mindId, told, abort);
    let ready = false;
    void keeper.ready().then(() => (ready = true));
    try {
      await expect.poll(() => told.filter((t) => t === "unreachable").length, { timeout: 10_000 }).toBeGreaterThan(1);
      expect(ready).toBe(false);
      expect(told.filter((t) => !t.startsWith("error"))).toEqual(told.filter((t) => t === "unreachable"));
      online = true;
      await keeper.ready();
      expect(told.at(-1)).toBe("this-tab");
      expect(told).not.toContain("local");
      expect((await leaseRow(mind))?.holder).toBe("tab:kit");
    } finally {
      online = false;
      abort.abort();
    }
  }, 30_000);

  it("stops the loop when its lease would lapse unrenewed, and runs it again when a renewal finds the lease still its own", async () => {
    const { mindId, mind } = await keptMind({ keepAlive: true }, { keepAlive: true, leaseS: LEASE_S });
    await whileKept(mindId, async (told) => {
      const epoch = (await getSync(db, mindId))?.epoch;
      online = false;
      await expect.poll(() => told.at(-1), { timeout: (LEASE_S + 5) * 1000 }).toBe("unreachable");
      // Nobody took it meanwhile: the next renewal that gets through finds it this tab's, at the same epoch, and the loop runs again.
      expect((await leaseRow(mind))?.holder).toBe("tab:kit");
      online = true;
      await expect.poll(() => told.at(-1), { timeout: 10_000 }).toBe("this-tab");
      expect(told).toEqual(["this-tab", "lost", "unreachable", "this-tab"]);
      expect((await getSync(db, mindId))?.epoch).toBe(epoch);
    });
  }, 30_000);

  it("stops a loop it ran while keep-alive was off the moment keep-alive is on, before it asks for the lease", async () => {
    const { mindId, mind } = await keptMind({ keepAlive: false }, { keepAlive: false });
    const log: string[] = [];
    const abort = new AbortController();
    const clock = { now: () => Date.now(), sleep: (ms: number, signal: AbortSignal) => new Promise<void>((r) => (signal.aborted ? r() : setTimeout(r, Math.min(ms, 50)))) };
    const keeper = keepHome(
      { db, mindId, fetch: (i, init) => fetch(i, init), clock, ids: { uuid: () => crypto.randomUUID() }, holder: "tab:kit" },
      { onWhere: (w) => log.push(w.where), onDigest: () => undefined, onLost: () => log.push(`lost (${heard.filter((h) => h === "→ POST lease").length} lease asks so far)`), onError: () => undefined },
      abort.signal,
    );
    try {
      await keeper.ready();
      expect(log).toEqual(["local"]);
      // Switched on: the server says so, then this browser records it (hooks-home's useKeepAlive), which the keeper watches.
      await sql.query("UPDATE sync_minds SET keep_alive = true WHERE id = $1", [mind]);
      await updateSync(db, mindId, (r) => ({ ...r, keep_alive: true }));
      await expect.poll(() => log.at(-1), { timeout: 10_000 }).toBe("this-tab");
      expect(log).toEqual(["local", "lost (0 lease asks so far)", "this-tab"]);
      expect((await leaseRow(mind))?.holder).toBe("tab:kit");
    } finally {
      online = false;
      abort.abort();
    }
  }, 30_000);

  it("leaving, uploads what it wrote, then lets the lease go once the server holds its newest step", async () => {
    const { mindId, mind } = await keptMind({ keepAlive: true }, { keepAlive: true, leaseS: LEASE_S });
    const told: string[] = [];
    const abort = new AbortController();
    const keeper = keep(mindId, told, abort);
    await keeper.ready();
    const last = { type: "thought" as const, step_id: crypto.randomUUID(), ts: new Date().toISOString(), source: "inner", content: "the last thing it thought here" };
    await appendStep(db, mindId, last);
    heard = [];
    abort.abort();
    await expect.poll(async () => (await leaseRow(mind))!.expires_at.getTime() <= Date.now(), { timeout: 10_000 }).toBe(true);
    const stored = await sql.query<{ step_id: string }>("SELECT step_id FROM sync_steps WHERE mind = $1 AND step_id = $2", [mind, last.step_id]);
    expect(stored).toHaveLength(1);
    expect(heard.indexOf("← POST steps")).toBeGreaterThanOrEqual(0);
    expect(heard.indexOf("← POST steps")).toBeLessThan(heard.indexOf("→ DELETE lease"));
    await expect.poll(() => heard.includes("← DELETE lease"), { timeout: 10_000 }).toBe(true);
    online = false;
  }, 30_000);
});
