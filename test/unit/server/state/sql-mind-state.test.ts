// lib/server/state/sql-mind-state.ts: the server's home of a mind's state
// (sqlMindState) keeps what every home keeps (helpers/mind-state-contract.ts),
// as the memory and IndexedDB homes do, on PGlite and on PostgreSQL. One
// database per engine: the contract's minds have ids never used before, and
// each is made as the server holds a synced mind (its sync_minds row, with its
// settings, and its root trajectory).
import { afterAll, beforeAll, describe } from "vitest";
import type { Sql } from "@/lib/server/db/sql";
import { sqlMindState } from "@/lib/server/state/sql-mind-state";
import { mindStateContract } from "../../helpers/mind-state-contract";
import { engines } from "../databases";

const SETTINGS = { name: "Reverie", persona: "", model: { provider: "openai", model: "gpt-test" } };
const asSettings = (v: unknown) => (v && typeof v === "object" ? (v as typeof SETTINGS) : undefined);

for (const engine of engines) {
  describe.skipIf(engine.skip)(`on ${engine.name}`, { timeout: 60_000 }, () => {
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

    mindStateContract(`sqlMindState (${engine.name})`, async (mindId) => {
      await sql.query("INSERT INTO sync_minds (id, name, write_token_hash, settings) VALUES ($1, $2, '\\x00'::bytea, $3)", [mindId, SETTINGS.name, JSON.stringify(SETTINGS)]);
      await sql.query("INSERT INTO sync_trajectories (mind, traj, name, dir) VALUES ($1, $1, $2, '')", [mindId, SETTINGS.name]);
      return sqlMindState(sql, mindId, asSettings);
    });
  });
}
