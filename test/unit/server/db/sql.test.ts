// The SQL store on both engines: migrations once, data kept across re-opens,
// transactions that roll back and never interleave, secrets, unreachable servers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS, migrate } from "@/lib/server/db/migrations";
import { serverSecret } from "@/lib/server/db/secrets";
import { openSql, SqlUnavailableError, type Sql } from "@/lib/server/db/sql";
import { engines } from "../databases";

for (const engine of engines) {
  describe.skipIf(engine.skip)(`sql on ${engine.name}`, { timeout: 120_000 }, () => {
    // A fresh PGlite costs an initdb (seconds on a busy machine): one shared
    // database for the tests that only need their own table, a fresh one where the schema itself is tested.
    let shared: Sql;
    let removeShared: () => Promise<void>;
    beforeAll(async () => {
      const db = await engine.fresh();
      removeShared = db.remove;
      shared = await db.open();
    }, 120_000);
    afterAll(async () => {
      await shared?.close();
      await removeShared?.();
    }, 60_000);

    it("applies each migration once, keeps data and secrets across re-opens, applies a new one, refuses a newer schema", async () => {
      const db = await engine.fresh();
      try {
        const first = await db.open();
        expect(first.dialect).toBe(engine.name);
        expect(await first.query("SELECT version, name FROM schema_migrations ORDER BY version")).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
        expect(await migrate(first)).toEqual([]);
        const secret = await serverSecret(first, "cookie");
        await first.close();
        await expect(first.query("SELECT 1")).rejects.toThrow(/closed|end/i);

        const again = await db.open();
        expect(await again.query("SELECT count(*)::int AS n FROM schema_migrations")).toEqual([{ n: MIGRATIONS.length }]);
        expect(await serverSecret(again, "cookie")).toEqual(secret);

        const next = { version: MIGRATIONS.length + 1, name: "test table", statements: ["CREATE TABLE later (x INT)"] };
        expect(await migrate(again, [...MIGRATIONS, next])).toEqual([next.version]);
        expect(await migrate(again, [...MIGRATIONS, next])).toEqual([]);
        await expect(migrate(again)).rejects.toThrow(`schema version ${next.version}, newer than this code knows (${MIGRATIONS.length})`);
        await again.close();
      } finally {
        await db.remove();
      }
    });

    it.skipIf(engine.name === "pglite")("two processes' openers at once migrate once", async () => {
      const db = await engine.fresh();
      const [a, b] = await Promise.all([db.open(), db.open()]);
      try {
        expect(await a.query("SELECT version FROM schema_migrations")).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
        expect(await b.query("SELECT count(*)::int AS n FROM spend_counters")).toEqual([{ n: 0 }]);
      } finally {
        await Promise.all([a.close(), b.close()]);
        await db.remove();
      }
    });

    it("rolls a transaction back when its function throws, and a savepoint undoes only the inner part", async () => {
      const sql = shared;
      await sql.query("CREATE TABLE t (x INT)");
      await expect(
        sql.transaction(async (tx) => {
          await tx.query("INSERT INTO t VALUES (1)");
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      await sql.transaction(async (tx) => {
        await tx.query("INSERT INTO t VALUES (2)");
        await tx.transaction(async (inner) => {
          await inner.query("INSERT INTO t VALUES (3)");
          throw new Error("inner");
        }).catch(() => {});
      });
      expect(await sql.query("SELECT x FROM t")).toEqual([{ x: 2 }]);
    });

    it("concurrent transactions never interleave: 50 read-then-write increments all count", async () => {
      const sql = shared;
      await sql.query("CREATE TABLE c (n INT NOT NULL)");
      await sql.query("INSERT INTO c VALUES (0)");
      await Promise.all(
        Array.from({ length: 50 }, () =>
          sql.transaction(async (tx) => {
            // A row lock on pg; PGlite's queue on one connection. Either way no lost update.
            const [row] = await tx.query<{ n: number }>("SELECT n FROM c FOR UPDATE");
            await tx.query("UPDATE c SET n = $1", [row!.n + 1]);
          }),
        ),
      );
      expect(await sql.query("SELECT n FROM c")).toEqual([{ n: 50 }]);
    });

    it("serverSecret makes 32 random bytes once per name, the same for concurrent first callers", async () => {
      const [a, again, other] = await Promise.all([serverSecret(shared, "s1"), serverSecret(shared, "s1"), serverSecret(shared, "s2")]);
      expect(a).toHaveLength(32);
      expect(again).toEqual(a);
      expect(other).not.toEqual(a);
      expect(await shared.query("SELECT count(*)::int AS n FROM server_secrets WHERE name IN ('s1', 's2')")).toEqual([{ n: 2 }]);
      expect(() => serverSecret(shared, "")).toThrow("needs a name");
    });
  });
}

describe("sql unreachable", () => {
  it("openSql on a closed port rejects with SqlUnavailableError that names no address", async () => {
    const opening = openSql({ databaseUrl: "postgres://reverie:hunter2@127.0.0.1:1/nowhere" });
    await expect(opening).rejects.toBeInstanceOf(SqlUnavailableError);
    await expect(opening).rejects.toThrow(/could not open the PostgreSQL database \(DATABASE_URL\)/);
    await expect(opening).rejects.not.toThrow(/hunter2/);
  });
});
