// Stored steps are append-only in the database itself (migration 14), on both
// engines: an UPDATE, a DELETE or a TRUNCATE of sync_steps is refused with a
// message that says so, and the rows read back unchanged; what is not a step
// is still changed and pruned as before; and forgetting a whole mind, the one
// way past the trigger, removes every row of that mind and nothing of another.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "@/lib/server/db/sql";
import { forgetMind, MIND_TABLES } from "@/lib/server/sync/forget";
import { writeFiles } from "@/lib/server/sync/state-files";
import { DEFAULT_QUOTAS } from "@/lib/server/sharing/quotas";
import { openLedger } from "@/lib/server/ledger/ledger";
import { runnerMain } from "@/lib/server/runner/main";
import { engines } from "../databases";
import { instance, newLink, newMind, thought, upload, type App } from "./harness";

const REFUSED = (op: string) => new RegExp(`sync_steps is append-only: ${op} of step [0-9a-f-]{36} \\(mind [0-9a-f-]{36}, seq \\d+\\) refused \\(a stored step is never changed or deleted; only forgetting its whole mind removes it\\)`);

for (const engine of engines) {
  describe.skipIf(engine.skip)(`stored steps are append-only on ${engine.name}`, { timeout: 120_000 }, () => {
    let sql: Sql;
    let remove: () => Promise<void>;
    let app: App;
    let databaseUrl: string | undefined;
    beforeAll(async () => {
      const db = await engine.fresh();
      remove = db.remove;
      databaseUrl = db.databaseUrl;
      sql = await db.open();
      app = instance(sql);
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      await sql?.close();
      await remove?.();
    }, 60_000);

    const rows = (mind: string) => sql.query<{ seq: string | number; step_id: string; traj: string; type: string; json: string }>("SELECT seq, step_id, traj, type, json FROM sync_steps WHERE mind = $1 ORDER BY seq", [mind]);

    /** A mind with three steps, a blob, a file, a link with a guest's message, a lease and a usage row: something in every table that holds a mind's rows. */
    async function fullMind(name: string) {
      const m = await newMind(app, name);
      expect((await upload(app, m, 0, [thought(1), thought(2), thought(3)])).status).toBe(200);
      expect((await app.call("PUT", `/api/sync/minds/${m.mind}/blobs/blobs%2Fa.stdout`, { token: m.token, body: "a long output" })).status).toBe(204);
      const link = await newLink(app, m, "invite", { role: "member" });
      expect((await app.call("POST", `/api/share/${link.token}/messages`, { body: { from: "Bo", content: "hello" } })).status).toBe(202);
      await sql.query("INSERT INTO mind_usage (mind, step_id, ts_ms, usd) VALUES ($1, $2, 0, 0.01)", [m.mind, (await rows(m.mind))[0]!.step_id]);
      await writeFiles(sql, m.mind, { put: [{ path: "notes.md", kind: "file", mode: 0o644, mtime: 0, data_b64: Buffer.from("n").toString("base64"), base_version: null }], remove: [] }, DEFAULT_QUOTAS);
      const lease = await app.call("POST", `/api/sync/minds/${m.mind}/lease`, { token: m.token, body: { holder: "tab:a" } });
      expect(lease.status).toBe(200);
      return { ...m, epoch: ((await lease.json()) as { epoch: number }).epoch };
    }

    it("refuses an UPDATE of any column of a stored step, and the row reads back unchanged", async () => {
      const m = await fullMind("Ada");
      const before = await rows(m.mind);
      const first = before[0]!;
      await expect(sql.query("UPDATE sync_steps SET json = $3 WHERE mind = $1 AND seq = $2", [m.mind, first.seq, '{"type":"thought","content":"rewritten"}'])).rejects.toThrow(REFUSED("UPDATE"));
      await expect(sql.query("UPDATE sync_steps SET traj = 'elsewhere' WHERE mind = $1", [m.mind])).rejects.toThrow(REFUSED("UPDATE"));
      // Not even a no-op: a stored row is never written again.
      await expect(sql.query("UPDATE sync_steps SET json = json WHERE mind = $1 AND seq = $2", [m.mind, first.seq])).rejects.toThrow(REFUSED("UPDATE"));
      expect(await rows(m.mind)).toEqual(before);
    });

    it("refuses a DELETE and a TRUNCATE, and every row is still there", async () => {
      const m = await fullMind("Bo");
      const before = await rows(m.mind);
      await expect(sql.query("DELETE FROM sync_steps WHERE mind = $1 AND seq = $2", [m.mind, before[1]!.seq])).rejects.toThrow(REFUSED("DELETE"));
      await expect(sql.query("DELETE FROM sync_steps")).rejects.toThrow(REFUSED("DELETE"));
      await expect(sql.query("TRUNCATE sync_steps")).rejects.toThrow("sync_steps is append-only: TRUNCATE refused (a stored step is never deleted; forget a mind to remove its steps)");
      expect(await rows(m.mind)).toEqual(before);
    });

    it("lets no other transaction past: not one that names another mind, nor a setting made for the session or by an earlier transaction", async () => {
      const [a, b] = [await fullMind("Cy"), await fullMind("Di")];
      const [beforeA, beforeB] = [await rows(a.mind), await rows(b.mind)];
      // Named for mind a, in this transaction: mind b's steps are still refused (and the whole transaction with them).
      await expect(
        sql.transaction(async (tx) => {
          await tx.query("SELECT set_config('reverie.forget_mind', $1::text || ':' || txid_current()::text, true)", [a.mind]);
          await tx.query("DELETE FROM sync_steps WHERE mind = $1", [b.mind]);
        }),
      ).rejects.toThrow(REFUSED("DELETE"));
      // Named for the session (or a transaction gone by): its txid is not this statement's.
      await expect(
        sql.transaction(async (tx) => {
          const [set] = await tx.query<{ v: string }>("SELECT set_config('reverie.forget_mind', $1::text || ':' || txid_current()::text, false) AS v", [a.mind]);
          expect(set?.v.startsWith(`${a.mind}:`)).toBe(true);
        }),
      ).resolves.toBeUndefined();
      await expect(sql.transaction((tx) => tx.query("DELETE FROM sync_steps WHERE mind = $1", [a.mind]))).rejects.toThrow(REFUSED("DELETE"));
      // The mind's id alone, as the setting once was: refused too.
      await expect(
        sql.transaction(async (tx) => {
          await tx.query("SELECT set_config('reverie.forget_mind', $1, true)", [a.mind]);
          await tx.query("DELETE FROM sync_steps WHERE mind = $1", [a.mind]);
        }),
      ).rejects.toThrow(REFUSED("DELETE"));
      await sql.query("SELECT set_config('reverie.forget_mind', '', false)");
      expect([await rows(a.mind), await rows(b.mind)]).toEqual([beforeA, beforeB]);
    });

    it("still changes and prunes what is not a step: counters, leases, links, files, the spend ledger", async () => {
      const m = await fullMind("Eve");
      const before = await rows(m.mind);
      // A new step moves the mind's counters (an UPDATE of sync_minds) and adds a row; none of the old ones changes.
      expect((await upload(app, m, 3, [thought(4)], { epoch: m.epoch })).status).toBe(200);
      expect((await rows(m.mind)).slice(0, 3)).toEqual(before);
      expect(await sql.query("SELECT last_seq::int AS n FROM sync_minds WHERE id = $1", [m.mind])).toEqual([{ n: 4 }]);
      // A link revoked, a file removed, a lease let go: their rows change or go.
      const [link] = await sql.query<{ id: string }>("SELECT id FROM share_links WHERE mind = $1", [m.mind]);
      expect((await app.call("DELETE", `/api/sync/minds/${m.mind}/links/${link!.id}`, { token: m.token })).status).toBe(204);
      const [file] = await sql.query<{ version: string | number }>("SELECT version FROM mind_files WHERE mind = $1 AND path = 'notes.md'", [m.mind]);
      await writeFiles(sql, m.mind, { put: [], remove: [{ path: "notes.md", base_version: Number(file!.version) }], epoch: m.epoch }, DEFAULT_QUOTAS);
      expect(await sql.query("SELECT count(*)::int AS n FROM mind_files WHERE mind = $1", [m.mind])).toEqual([{ n: 0 }]);
      expect((await app.call("DELETE", `/api/sync/minds/${m.mind}/lease`, { token: m.token, body: { holder: "tab:a", epoch: m.epoch } })).status).toBe(204);
      // The ledger prunes closed reservations of past days (its DELETE), as every hour.
      await sql.query(
        `INSERT INTO spend_reservations (id, client_id, hour_starts_at, day_starts_at, worst_micros, status, created_at)
         VALUES ('old', 'c', '2020-01-01T00:00:00Z', '2020-01-01T00:00:00Z', 5, 'settled', '2020-01-01T00:00:00Z')`,
      );
      expect(await openLedger(sql, { globalDayUsd: 1, clientHourUsd: 1, clientDayUsd: 1, requestUsd: 1 }).prune()).toBeGreaterThanOrEqual(1);
      expect(await sql.query("SELECT count(*)::int AS n FROM spend_reservations WHERE id = 'old'")).toEqual([{ n: 0 }]);
    });

    it("forgets a whole mind through its one way: every row of every table of it, nothing of another mind", async () => {
      const [keep, gone] = [await fullMind("Fay"), await fullMind("Gus")];
      const count = async (mind: string) =>
        Object.fromEntries(await Promise.all([...MIND_TABLES, "sync_minds"].map(async (t) => [t, (await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t} WHERE ${t === "sync_minds" ? "id" : "mind"} = $1`, [mind]))[0]!.n])));
      const kept = await count(keep.mind);
      const keptRows = await rows(keep.mind);
      expect((await count(gone.mind)).sync_steps).toBe(3);
      expect(await forgetMind(sql, gone.mind)).toBe(true);
      expect(Object.values(await count(gone.mind)).every((n) => n === 0)).toBe(true);
      expect(await count(keep.mind)).toEqual(kept);
      expect(await rows(keep.mind)).toEqual(keptRows);
      // Gone is gone: a second time finds nothing, and the setting did not outlive the transaction.
      expect(await forgetMind(sql, gone.mind)).toBe(false);
      await expect(sql.query("DELETE FROM sync_steps WHERE mind = $1", [keep.mind])).rejects.toThrow(REFUSED("DELETE"));
    });

    it("forgets at its owner's request (DELETE /api/sync/minds/<mind>, its write token), and its token opens nothing after", async () => {
      const m = await fullMind("Hal");
      expect((await app.call("DELETE", `/api/sync/minds/${m.mind}`)).status).toBe(401);
      expect((await app.call("DELETE", `/api/sync/minds/${m.mind}`, { token: "not-its-token" })).status).toBe(401);
      expect(await rows(m.mind)).toHaveLength(3);
      expect((await app.call("DELETE", `/api/sync/minds/${m.mind}`, { token: m.token })).status).toBe(204);
      expect(await rows(m.mind)).toEqual([]);
      expect((await app.call("GET", `/api/sync/minds/${m.mind}`, { token: m.token })).status).toBe(401);
    });

    // PGlite is one process's database: `reverie minds` opens its own, so the host's command is run against PostgreSQL.
    it.skipIf(engine.name === "pglite")("forgets at the host's request (reverie minds --forget <mind>), and says so; an unknown mind is an error", async () => {
      const m = await fullMind("Ivy");
      let out = "";
      let err = "";
      const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t) };
      const was = process.env.DATABASE_URL;
      process.env.DATABASE_URL = databaseUrl;
      try {
        expect(await runnerMain(["minds", "--forget", m.mind], io)).toBe(0);
        expect(out).toBe(`forgot mind ${m.mind}: nothing of it is kept on this server any more, its steps included\n`);
        expect(await rows(m.mind)).toEqual([]);
        expect(await runnerMain(["minds", "--forget", m.mind, "--json"], io)).toBe(1);
        expect(err).toBe(`reverie minds: there is no mind ${m.mind} on this server (reverie minds --json prints the full ids)\n`);
        expect(await runnerMain(["minds", "--forget"], io)).toBe(2);
      } finally {
        if (was === undefined) delete process.env.DATABASE_URL;
        else process.env.DATABASE_URL = was;
      }
    });

    it("MIND_TABLES is every table whose rows reference a mind", async () => {
      const referencing = await sql.query<{ t: string }>(
        "SELECT DISTINCT conrelid::regclass::text AS t FROM pg_constraint WHERE contype = 'f' AND confrelid = 'sync_minds'::regclass ORDER BY 1",
      );
      expect(referencing.map((r) => r.t)).toEqual([...MIND_TABLES].sort());
    });
  });
}
