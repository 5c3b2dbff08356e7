// The routes that sync a mind's state beyond its steps (lib/sync/wire.ts,
// "the mind's state"), through the real handlers on both engines: versions
// that every write bumps (the runner's own saves too), a stale write that
// keeps both copies, summaries sealed once, the record without a key, and
// every write fenced by the lease and counted against the mind's bytes,
// refused whole with the database as it was.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, MIGRATIONS } from "@/lib/server/db/migrations";
import type { Sql } from "@/lib/server/db/sql";
import { acquireLease } from "@/lib/server/state/lease";
import { sqlMindState } from "@/lib/server/state/sql-mind-state";
import { SYNC_LIMITS } from "@/lib/sync/wire";
import { engines } from "../databases";
import { dump, instance, newMind, thought, upload, type App } from "./harness";

type M = { mind: string; token: string };
const b64 = (s: string | Uint8Array) => Buffer.from(s).toString("base64");
const sha = (s: string | Uint8Array) => createHash("sha256").update(s).digest("hex");
const FILE = 0o100644;
const DIR = 0o40755;
const asRecord = (v: unknown) => (v && typeof v === "object" ? (v as Record<string, unknown>) : undefined);
const SETTINGS = { id: "tab-mind", name: "Ada", persona: "curious", model: { provider: "proxy", model: "m" }, created_at: "2025-01-01T00:00:00.000Z", running: true };

/** Everything sync and the server's home of the mind write, to show that a refused request changed nothing. */
async function stateDump(sql: Sql): Promise<unknown> {
  const out = (await dump(sql)) as Record<string, unknown>;
  for (const t of ["mind_files", "mind_tiers", "mind_leases"]) out[t] = await sql.query(`SELECT * FROM ${t} ORDER BY 1, 2`);
  return out;
}

/** What the mind's row says it holds, and what its state's rows (with no steps or blobs) hold. */
async function bytes(sql: Sql, mind: string): Promise<{ counted: number; stored: number }> {
  const [row] = await sql.query<{ counted: number; stored: number }>(
    `SELECT bytes::int AS counted,
       (COALESCE((SELECT sum(COALESCE(octet_length(data), 0) + COALESCE(octet_length(target), 0)) FROM mind_files WHERE mind = $1), 0)
        + COALESCE((SELECT sum(octet_length(json)) FROM mind_tiers WHERE mind = $1), 0)
        + COALESCE(octet_length(settings), 0) + COALESCE(octet_length(shell), 0) + COALESCE(octet_length(pacing), 0))::int AS stored
     FROM sync_minds WHERE id = $1`,
    [mind],
  );
  return row!;
}

for (const engine of engines) {
  describe.skipIf(engine.skip)(`the mind's state routes on ${engine.name}`, { timeout: 120_000 }, () => {
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

    const files = (a: App, m: M, body: unknown) => a.call("POST", `/api/sync/minds/${m.mind}/files`, { token: m.token, body });
    const tiers = (a: App, m: M, body: unknown) => a.call("POST", `/api/sync/minds/${m.mind}/tiers`, { token: m.token, body });
    const record = (a: App, m: M, body: unknown) => a.call("PUT", `/api/sync/minds/${m.mind}/record`, { token: m.token, body });
    const summary = async (m: M) => (await app.call("GET", `/api/sync/minds/${m.mind}/state`, { token: m.token })).json();
    const read = async (m: M, paths: string[]) => (await app.call("POST", `/api/sync/minds/${m.mind}/files/read`, { token: m.token, body: { paths } })).json();
    const file = (path: string, text: string, base_version: number | null, mtime = 1000) => ({ path, kind: "file", data_b64: b64(text), mode: FILE, mtime, base_version });
    const ok = async (res: Response | Promise<Response>) => {
      const r = await res;
      if (r.status !== 200) throw new Error(`${r.status} ${await r.text()}`);
      return r.json();
    };
    const refused = async (run: () => Promise<Response>, status: number, code: string) => {
      const before = await stateDump(sql);
      const res = await run();
      expect(res.status).toBe(status);
      expect((await res.json()).error.code).toBe(code);
      expect(await stateDump(sql)).toEqual(before);
    };

    it("files: new at version 1; a write at the server's version bumps it, and so does the runner's own save; listed with size and digest, read whole", async () => {
      const m = await newMind(app);
      const put = [
        { path: "/w", kind: "dir", mode: DIR, mtime: 900, base_version: null },
        file("/w/a.txt", "hello", null),
        { path: "/w/l", kind: "symlink", target: "a.txt", mode: 0o120777, mtime: 901, base_version: null },
      ];
      expect(await ok(files(app, m, { put, remove: [] }))).toMatchObject({
        results: [
          { path: "/w", status: "written", version: 1 },
          { path: "/w/a.txt", status: "written", version: 1 },
          { path: "/w/l", status: "written", version: 1 },
        ],
        quota: { bytes: 10 },
      });
      expect((await ok(files(app, m, { put: [file("/w/a.txt", "hello world", 1, 1001)], remove: [] }))).results).toEqual([{ path: "/w/a.txt", status: "written", version: 2 }]);
      await sqlMindState(sql, m.mind, asRecord).files.save([{ path: "/w/a.txt", kind: "file", data: new TextEncoder().encode("from the runner"), mode: FILE, mtime: 1002 }], []);

      expect(await summary(m)).toEqual({
        settings: null,
        shell: null,
        pacing: null,
        tiers: [],
        files: [
          { path: "/w", kind: "dir", mode: DIR, mtime: 900, version: 1, size: 0, sha256: null },
          { path: "/w/a.txt", kind: "file", mode: FILE, mtime: 1002, version: 3, size: 15, sha256: sha("from the runner") },
          { path: "/w/l", kind: "symlink", mode: 0o120777, mtime: 901, version: 1, size: 5, sha256: sha("a.txt") },
        ],
      });
      expect(await read(m, ["/w/l", "/nope", "/w/a.txt", "/w"])).toEqual({
        files: [
          { path: "/w/l", kind: "symlink", mode: 0o120777, mtime: 901, version: 1, target: "a.txt" },
          { path: "/w/a.txt", kind: "file", mode: FILE, mtime: 1002, version: 3, data_b64: b64("from the runner") },
          { path: "/w", kind: "dir", mode: DIR, mtime: 900, version: 1 },
        ],
        missing: ["/nope"],
        left: [],
      });
      expect(await bytes(sql, m.mind)).toEqual({ counted: 20, stored: 20 });
      expect((await app.call("GET", `/api/sync/minds/${m.mind}/state`, { token: "wrong" })).status).toBe(401);
    });

    it("a write against a stale version keeps both: the server's copy at its path, the incoming one beside it, named for the time; a stale removal removes nothing", async () => {
      const m = await newMind(app);
      await ok(files(app, m, { put: [file("/w/a.txt", "v1", null)], remove: [] }));
      await ok(files(app, m, { put: [file("/w/a.txt", "v2", 1)], remove: [] }));
      // The tab edited its v1 copy meanwhile.
      const stale = await ok(files(app, m, { put: [file("/w/a.txt", "the tab's edit", 1)], remove: [] }));
      const [outcome] = stale.results;
      expect(outcome).toEqual({ path: "/w/a.txt", status: "conflict", kept_as: expect.stringMatching(/^\/w\/a\.txt\.conflict-\d{8}-\d{6}$/), version: 1, current: 2 });
      const stamp = new Date().toISOString().slice(0, 10).replace(/-/g, "");
      expect(outcome.kept_as).toContain(`.conflict-${stamp}-`);
      // Another in the same second gets a name of its own; a new path that exists already is stale too.
      const again = (await ok(files(app, m, { put: [file("/w/a.txt", "another edit", null)], remove: [] }))).results[0];
      expect(again).toMatchObject({ status: "conflict", current: 2 });
      expect(again.kept_as).not.toBe(outcome.kept_as);
      const read1 = await read(m, ["/w/a.txt", outcome.kept_as, again.kept_as]);
      expect(read1.files.map((f: { path: string; data_b64: string; version: number }) => [f.path, Buffer.from(f.data_b64, "base64").toString(), f.version])).toEqual([
        ["/w/a.txt", "v2", 2],
        [outcome.kept_as, "the tab's edit", 1],
        [again.kept_as, "another edit", 1],
      ]);
      // The same content as the server's, from any version: no conflict and no new version.
      expect((await ok(files(app, m, { put: [file("/w/a.txt", "v2", 1, 5000)], remove: [] }))).results).toEqual([{ path: "/w/a.txt", status: "written", version: 2 }]);

      const before = await stateDump(sql);
      expect((await ok(files(app, m, { put: [], remove: [{ path: "/w/a.txt", base_version: 1 }] }))).results).toEqual([{ path: "/w/a.txt", status: "stale", current: 2 }]);
      expect(await stateDump(sql)).toEqual(before);
      expect((await ok(files(app, m, { put: [], remove: [{ path: "/w/a.txt", base_version: 2 }, { path: "/never", base_version: 4 }] }))).results).toEqual([
        { path: "/w/a.txt", status: "removed" },
        { path: "/never", status: "removed" },
      ]);
      expect((await summary(m)).files.map((f: { path: string }) => f.path)).toEqual([outcome.kept_as, again.kept_as].sort());
      expect(await bytes(sql, m.mind)).toEqual({ counted: "the tab's edit".length + "another edit".length, stored: "the tab's edit".length + "another edit".length });
    });

    it("summaries: each sealed once, with this server's seqs of its steps; one whose steps it lacks waits; read back by key without seqs", async () => {
      const m = await newMind(app);
      const steps = [thought(1, "a", m.mind), thought(2, "b", m.mind), thought(3, "c", m.mind)];
      expect((await upload(app, m, 0, steps)).status).toBe(200);
      const tier = { tier: 0, index: 0, content: "three thoughts", cites: [steps[1]!.id], first_step: steps[0]!.id, last_step: steps[2]!.id, steps: 3, first_seq: 70, last_seq: 72, model: "openai/m", created: "2025-01-01T00:00:00Z" };
      expect(await ok(tiers(app, m, { traj: m.mind, tiers: [tier] }))).toMatchObject({ sealed: 1, already: 0 });
      const rewrite = { ...tier, content: "a rewrite" };
      // Index 1's steps are not here (not uploaded yet, or never taken): not sealed, it waits; then its steps come, and it is.
      const later = [thought(4, "d", m.mind), thought(5, "e", m.mind)];
      const next = { ...tier, index: 1, content: "two more", cites: [], first_step: later[0]!.id, last_step: later[1]!.id, steps: 2 };
      expect(await ok(tiers(app, m, { traj: m.mind, tiers: [rewrite, next, { ...next, index: 2, last_step: "never-here" }] }))).toMatchObject({ sealed: 0, already: 1, waiting: [{ tier: 0, index: 1 }, { tier: 0, index: 2 }] });
      expect((await summary(m)).tiers).toEqual([{ traj: m.mind, tier: 0, index: 0 }]);
      expect((await upload(app, m, 3, later)).status).toBe(200);
      expect(await ok(tiers(app, m, { traj: m.mind, tiers: [next] }))).toMatchObject({ sealed: 1, already: 0, waiting: [] });
      const { first_seq: _f, last_seq: _l, ...wire } = tier;
      const { first_seq: _f2, last_seq: _l2, ...wireNext } = next;
      expect(await sqlMindState(sql, m.mind, asRecord).tiers(m.mind).list()).toEqual([
        { ...wire, first_seq: 1, last_seq: 3 },
        { ...wireNext, first_seq: 4, last_seq: 5 },
      ].map(({ model: _m, created: _c, ...t }) => t));
      expect((await summary(m)).tiers).toEqual([
        { traj: m.mind, tier: 0, index: 0 },
        { traj: m.mind, tier: 0, index: 1 },
      ]);
      const back = await ok(app.call("POST", `/api/sync/minds/${m.mind}/tiers/read`, { token: m.token, body: { traj: m.mind, keys: [{ tier: 0, index: 0 }, { tier: 3, index: 3 }] } }));
      expect(back).toEqual({ tiers: [wire] });
      const b = await bytes(sql, m.mind);
      const steps_ = [...steps, ...later].reduce((n, s) => n + Buffer.byteLength(s.json), 0);
      expect(b.counted).toBe(b.stored + steps_);
    });

    it("the record: settings (never with a key), shell and pacing, each part replaced alone; the runner's home reads them", async () => {
      const m = await newMind(app);
      const shell = { env: { A: "1" }, cwd: "/workspace" };
      await ok(record(app, m, { settings: SETTINGS, shell, pacing: { level: 2, ticks: 1, failures: 0 } }));
      await ok(record(app, m, { pacing: { level: 3, ticks: 0, failures: 1 } }));
      expect(await summary(m)).toMatchObject({ settings: SETTINGS, shell, pacing: { level: 3, ticks: 0, failures: 1 } });
      expect(await sqlMindState(sql, m.mind, asRecord).record()).toEqual({ settings: SETTINGS, shell, pacing: { level: 3, ticks: 0, failures: 1 } });
      await refused(() => record(app, m, { settings: { ...SETTINGS, model: { ...SETTINGS.model, apiKey: "a-key-that-must-stay-home" } } }), 400, "invalid");
      await refused(() => record(app, m, {}), 400, "invalid");
      const b = await bytes(sql, m.mind);
      expect(b.stored).toBe(JSON.stringify(SETTINGS).length + JSON.stringify(shell).length + JSON.stringify({ level: 3, ticks: 0, failures: 1 }).length);
      expect(b.counted).toBe(b.stored);
    });

    it("every write route: refused as fenced, writing nothing, unless it carries the lease's epoch", async () => {
      const m = await newMind(app);
      const tier = { tier: 0, index: 0, content: "c", first_step: "a", last_step: "b", steps: 1 };
      const writes = (epoch?: number) => {
        const e = epoch === undefined ? {} : { epoch };
        return [
          () => files(app, m, { ...e, put: [file("/f", "x", null)], remove: [] }),
          () => files(app, m, { ...e, put: [], remove: [{ path: "/g", base_version: 1 }] }),
          () => tiers(app, m, { ...e, traj: m.mind, tiers: [tier] }),
          () => record(app, m, { ...e, shell: { env: {}, cwd: "/" } }),
        ];
      };
      // Never leased: no epoch is the writer's.
      for (const w of writes(1)) await refused(w, 409, "fenced");
      await acquireLease(sql, m.mind, "tab-1");
      await sql.query("UPDATE mind_leases SET expires_at = now() - interval '1 second' WHERE mind = $1", [m.mind]);
      expect(await acquireLease(sql, m.mind, "runner-a")).toMatchObject({ ok: true, lease: { epoch: 2 } });
      for (const w of [...writes(1), ...writes(undefined)]) await refused(w, 409, "fenced");
      for (const w of writes(2)) expect((await w()).status).toBe(200);
    });

    it("the mind's bytes: a write that would pass them is refused whole (413), a replacement counts its difference, a removal frees", async () => {
      const small = instance(sql, { quotas: { bytesPerMind: 100 } });
      try {
        const m = await newMind(small);
        await ok(files(small, m, { put: [file("/a", "x".repeat(60), null)], remove: [] }));
        await refused(() => files(small, m, { put: [file("/b", "y".repeat(41), null)], remove: [] }), 413, "quota");
        await ok(files(small, m, { put: [file("/a", "x".repeat(90), 1)], remove: [] }));
        // The incoming copy of a stale write is kept, so it counts.
        await refused(() => files(small, m, { put: [file("/a", "z".repeat(11), 1)], remove: [] }), 413, "quota");
        await refused(() => tiers(small, m, { traj: m.mind, tiers: [{ tier: 0, index: 0, content: "s".repeat(20), first_step: "a", last_step: "b", steps: 1 }] }), 413, "quota");
        await refused(() => record(small, m, { shell: { env: { LONG: "v".repeat(20) }, cwd: "/" } }), 413, "quota");
        await ok(files(small, m, { put: [file("/b", "y".repeat(50), null)], remove: [{ path: "/a", base_version: 2 }] }));
        expect(await bytes(sql, m.mind)).toEqual({ counted: 50, stored: 50 });
      } finally {
        await small.close();
      }
    });

    it("limits: a file over the limit is refused (413, nothing written); a read answers what fits and leaves the rest", async () => {
      const m = await newMind(app);
      const big = new Uint8Array(SYNC_LIMITS.fileBytes + 1).fill(7);
      await refused(() => files(app, m, { put: [{ path: "/big", kind: "file", data_b64: b64(big), mode: FILE, mtime: 1, base_version: null }], remove: [] }), 413, "too_large");
      const seven = new Uint8Array(7 * 1024 * 1024).fill(1);
      await ok(files(app, m, { put: [{ path: "/one", kind: "file", data_b64: b64(seven), mode: FILE, mtime: 1, base_version: null }], remove: [] }));
      await ok(files(app, m, { put: [{ path: "/two", kind: "file", data_b64: b64(seven), mode: FILE, mtime: 1, base_version: null }], remove: [] }));
      const first = await read(m, ["/one", "/two"]);
      expect(first.files.map((f: { path: string; data_b64: string }) => [f.path, Buffer.from(f.data_b64, "base64").length])).toEqual([["/one", seven.length]]);
      expect(first).toMatchObject({ missing: [], left: ["/two"] });
      expect((await read(m, first.left)).files.map((f: { path: string }) => f.path)).toEqual(["/two"]);
    });
  });
}

describe("the bytes of minds that held state before it synced", { timeout: 60_000 }, () => {
  it("are counted by migration 8, and every workspace row starts at version 1", async () => {
    const db = await engines[0]!.fresh();
    const sql = await db.open();
    try {
      await sql.query("DROP SCHEMA public CASCADE");
      await sql.query("CREATE SCHEMA public");
      await migrate(sql, MIGRATIONS.filter((m) => m.version < 8));
      await sql.query("INSERT INTO sync_minds (id, name, write_token_hash, settings, shell, pacing, bytes) VALUES ('m1', 'old', '\\x00'::bytea, '{\"a\":1}', '{}', NULL, 5)");
      await sql.query("INSERT INTO mind_files (mind, path, kind, data, target, mode, mtime) VALUES ('m1', '/a', 'file', '\\x010203'::bytea, NULL, 420, 1), ('m1', '/l', 'symlink', NULL, 'ab', 511, 1), ('m1', '/d', 'dir', NULL, NULL, 493, 1)");
      await sql.query("INSERT INTO mind_tiers (mind, traj, tier, idx, json) VALUES ('m1', 't', 0, 0, '1234')");
      expect(await migrate(sql, MIGRATIONS.filter((m) => m.version <= 8))).toEqual([8]);
      expect(await sql.query("SELECT bytes::int FROM sync_minds")).toEqual([{ bytes: 5 + 3 + 2 + 4 + 7 + 2 }]);
      expect(await sql.query("SELECT path, version::int FROM mind_files ORDER BY path")).toEqual([
        { path: "/a", version: 1 },
        { path: "/d", version: 1 },
        { path: "/l", version: 1 },
      ]);
    } finally {
      await sql.close();
      await db.remove();
    }
  });
});
