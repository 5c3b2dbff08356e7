// Every door of the sync API that writes has a limit: creating minds (per
// client by its signed cookie, else its address; per hour; in all), and what
// a mind and all minds together hold (bytes, steps, blobs). Over one: 429 or
// 413 naming the limit's variable and what to do, and the database exactly
// as it was. On both engines, through the real route handlers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, MIGRATIONS } from "@/lib/server/db/migrations";
import type { Sql } from "@/lib/server/db/sql";
import { DEFAULT_QUOTAS, parseQuotas } from "@/lib/server/sharing/quotas";
import { forgetMind } from "@/lib/server/sync/forget";
import { engines } from "../databases";
import { dump, instance, newLink, newMind, thought, upload, type App } from "./harness";

const create = (app: App, headers: Record<string, string> = {}) => app.call("POST", "/api/sync/minds", { body: { name: "Q" }, headers });
const cookieOf = (res: Response) => (res.headers.get("set-cookie") ?? "").split(";")[0]!;
const bytesOf = (steps: { json: string }[]) => steps.reduce((n, s) => n + Buffer.byteLength(s.json), 0);

async function refusedUnchanged(sql: Sql, run: () => Promise<Response>, status: number, code: string, names: string): Promise<Response> {
  const before = await dump(sql);
  const res = await run();
  expect(res.status).toBe(status);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.message).toContain(names);
  expect(body.error.message).toMatch(/nothing was (written|created)/);
  expect(await dump(sql)).toEqual(before);
  return res;
}

for (const engine of engines) {
  describe.skipIf(engine.skip)(`sync quotas on ${engine.name}`, { timeout: 120_000 }, () => {
    let sql: Sql;
    let remove: () => Promise<void>;
    beforeAll(async () => {
      const db = await engine.fresh();
      remove = db.remove;
      sql = await db.open();
    }, 120_000);
    afterAll(async () => {
      await sql?.close();
      await remove?.();
    }, 60_000);
    // Each test starts with no minds: the last test's are forgotten, the one way their steps can go (migration 14).
    const fresh = async () => {
      for (const { id } of await sql.query<{ id: string }>("SELECT id FROM sync_minds")) await forgetMind(sql, id);
    };

    it("creation: a signed cookie per client, minds per client, per hour by address without one, and per hour in all", async () => {
      await fresh();
      const app = instance(sql, { quotas: { mindsPerClient: 2, createsPerHour: 3, createsPerHourTotal: 5 } });
      const first = await create(app, { "x-forwarded-for": "203.0.113.7" });
      expect(first.status).toBe(201);
      expect(first.headers.get("set-cookie")).toMatch(/^reverie_sync_client=[\w-]+\.[\w-]+; Path=\/api\/sync; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
      const cookie = cookieOf(first);
      expect((await create(app, { cookie })).status).toBe(201);
      await refusedUnchanged(sql, () => create(app, { cookie }), 429, "quota", "SYNC_MAX_MINDS_PER_CLIENT");
      // A forged cookie is no client: a new one is issued, and the address counts.
      const forged = await create(app, { cookie: `${cookie.slice(0, -2)}zz`, "x-forwarded-for": "203.0.113.7" });
      expect(forged.status).toBe(201);
      expect(cookieOf(forged)).not.toBe(cookie);

      // Without a cookie, the address: 203.0.113.7 made its first and this one; one more is its third this hour.
      expect((await create(app, { "x-forwarded-for": "203.0.113.7" })).status).toBe(201);
      const limited = await refusedUnchanged(sql, () => create(app, { "x-forwarded-for": "203.0.113.7" }), 429, "rate_limited", "SYNC_MAX_CREATES_PER_HOUR");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(3000);
      // The nearest proxy's entry is the one that counts: a client's claim in front of it does not.
      await refusedUnchanged(sql, () => create(app, { "x-forwarded-for": "10.9.9.9, 203.0.113.7" }), 429, "rate_limited", "SYNC_MAX_CREATES_PER_HOUR");
      // Other addresses may still, until the server's hourly total.
      expect((await create(app, { "x-forwarded-for": "198.51.100.1" })).status).toBe(201);
      await refusedUnchanged(sql, () => create(app, { "x-forwarded-for": "198.51.100.2" }), 429, "rate_limited", "SYNC_MAX_CREATES_PER_HOUR_TOTAL");
    });

    it("a mind's bytes and steps: a batch that would pass either is refused whole; the state and each upload report the use", async () => {
      await fresh();
      const batch = [thought(1), thought(2), thought(3)];
      const app = instance(sql, { quotas: { bytesPerMind: bytesOf(batch) + 10, stepsPerMind: 5 } });
      const m = await newMind(app);
      const ok = await upload(app, m, 0, batch);
      expect(ok.status).toBe(200);
      expect((await ok.json()).quota).toEqual({ bytes: bytesOf(batch), max_bytes: bytesOf(batch) + 10, steps: 3, max_steps: 5, blobs: 0, max_blobs: DEFAULT_QUOTAS.blobsPerMind });
      // The same batch again is skipped, not counted twice.
      expect((await (await upload(app, m, 0, batch)).json()).quota.bytes).toBe(bytesOf(batch));
      await refusedUnchanged(sql, () => upload(app, m, 3, [thought(4)]), 413, "quota", "SYNC_MAX_BYTES_PER_MIND");
      const state = await (await app.call("GET", `/api/sync/minds/${m.mind}`, { token: m.token })).json();
      expect(state).toMatchObject({ last_seq: 3, steps: 3, quota: { bytes: bytesOf(batch), steps: 3 } });

      const few = instance(sql, { quotas: { stepsPerMind: 5 } });
      await refusedUnchanged(sql, () => upload(few, m, 3, [thought(4), thought(5), thought(6)]), 413, "quota", "SYNC_MAX_STEPS_PER_MIND");
      expect((await upload(few, m, 3, [thought(4), thought(5)])).status).toBe(200);
    });

    it("a mind's blobs: by count and by bytes; the same blob again is free", async () => {
      await fresh();
      const app = instance(sql, { quotas: { blobsPerMind: 2, bytesPerMind: 100 } });
      const m = await newMind(app);
      const put = (name: string, text: string) => app.call("PUT", `/api/sync/minds/${m.mind}/blobs/${name}`, { token: m.token, body: text, headers: { "content-type": "text/plain" } });
      expect((await put("a.txt", "x".repeat(60))).status).toBe(204);
      expect((await put("a.txt", "x".repeat(60))).status).toBe(204);
      await refusedUnchanged(sql, () => put("b.txt", "y".repeat(41)), 413, "quota", "SYNC_MAX_BYTES_PER_MIND");
      expect((await put("b.txt", "y".repeat(40))).status).toBe(204);
      await refusedUnchanged(sql, () => put("c.txt", "z"), 413, "quota", "SYNC_MAX_BLOBS_PER_MIND");
      expect(await sql.query("SELECT bytes::int, blob_count::int FROM sync_minds WHERE id = $1", [m.mind])).toEqual([{ bytes: 100, blob_count: 2 }]);
    });

    it("links per mind, and viewers per link: over either, 429", async () => {
      await fresh();
      const app = instance(sql, { quotas: { linksPerMind: 2 }, maxPerLink: 2 });
      const m = await newMind(app);
      const live = await newLink(app, m, "live");
      await newLink(app, m, "snapshot");
      await refusedUnchanged(sql, () => app.call("POST", `/api/sync/minds/${m.mind}/links`, { token: m.token, body: { kind: "invite" } }), 429, "quota", "SYNC_MAX_LINKS_PER_MIND");
      const follow = (signal: AbortSignal) => app.call("GET", `/api/share/${live.token}/events`, { signal });
      const a = new AbortController();
      const b = new AbortController();
      const [s1, s2] = await Promise.all([follow(a.signal), follow(b.signal)]);
      expect([s1.status, s2.status]).toEqual([200, 200]);
      const third = await follow(new AbortController().signal);
      expect(third.status).toBe(429);
      expect((await third.json()).error).toMatchObject({ code: "too_many_viewers" });
      // A viewer that leaves makes room.
      a.abort();
      await s1.body?.cancel().catch(() => undefined);
      const again = await follow(b.signal);
      expect(again.status).toBe(200);
      b.abort();
      await Promise.all([s2.body?.cancel().catch(() => undefined), again.body?.cancel().catch(() => undefined)]);
    });

    it("all minds together: uploads and new minds are refused when the server's space is full", async () => {
      await fresh();
      const batch = [thought(1), thought(2)];
      // Room for two minds' rows and this batch, not a byte more.
      const app = instance(sql, { quotas: { bytesTotal: 2 * 1024 + bytesOf(batch) } });
      const a = await newMind(app);
      const b = await newMind(app);
      expect((await upload(app, a, 0, batch)).status).toBe(200);
      await refusedUnchanged(sql, () => upload(app, b, 0, [thought(1)]), 413, "quota", "SYNC_MAX_BYTES_TOTAL");
      await refusedUnchanged(sql, () => create(app), 413, "quota", "SYNC_MAX_BYTES_TOTAL");
    });
  });
}

describe("the sync limits from the environment", () => {
  it("defaults, whole numbers, and byte units", () => {
    expect(parseQuotas({})).toEqual({ ok: true, quotas: DEFAULT_QUOTAS });
    expect(parseQuotas({ SYNC_MAX_BYTES_PER_MIND: "64MiB", SYNC_MAX_BYTES_TOTAL: "2G", SYNC_MAX_MINDS_PER_CLIENT: "5" })).toEqual({
      ok: true,
      quotas: { ...DEFAULT_QUOTAS, bytesPerMind: 64 * 1024 * 1024, bytesTotal: 2 * 1024 ** 3, mindsPerClient: 5 },
    });
  });

  it.each([
    ["SYNC_MAX_MINDS_PER_CLIENT", "0"],
    ["SYNC_MAX_MINDS_PER_CLIENT", "5k"],
    ["SYNC_MAX_BYTES_TOTAL", "lots"],
    ["SYNC_MAX_BYTES_PER_MIND", "-1"],
  ])("refuses %s=%s, naming it", (name, value) => {
    const r = parseQuotas({ [name]: value });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]).toMatch(new RegExp(`^${name} must be a positive whole number.*\\(got "${value}"\\)$`));
  });
});

describe("the counters of minds synced before the quotas", () => {
  it("are filled in by the migration from what the minds already hold", async () => {
    const db = await engines[0]!.fresh();
    const sql = await db.open();
    try {
      // The database as it was at version 3 (openSql migrated it fully: start again from the older tables).
      await sql.query("DROP SCHEMA public CASCADE");
      await sql.query("CREATE SCHEMA public");
      await migrate(sql, MIGRATIONS.slice(0, 3));
      await sql.query("INSERT INTO sync_minds (id, name, write_token_hash) VALUES ('m1', 'old', '\\x00'::bytea)");
      await sql.query(`INSERT INTO sync_steps (mind, seq, step_id, traj, type, json) VALUES ('m1', 1, 's1', 'root', 'thought', '{"ab":"é"}'), ('m1', 2, 's2', 'root', 'thought', '{}')`);
      await sql.query("INSERT INTO sync_blobs (mind, name, content) VALUES ('m1', 'blobs/x', 'hello')");
      expect(await migrate(sql, MIGRATIONS.slice(0, 4))).toEqual([4]);
      expect(await sql.query("SELECT bytes::int, step_count::int, blob_count::int FROM sync_minds")).toEqual([{ bytes: 11 + 2 + 5, step_count: 2, blob_count: 1 }]);
    } finally {
      await sql.close();
      await db.remove();
    }
    // A fresh PGlite migrated twice over (nine migrations, then three, then the fourth): seconds on a busy machine.
  }, 60_000);
});
