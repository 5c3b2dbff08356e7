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
import { inboundContract } from "../../helpers/mind-state-inbound";
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

    // Its way in: a guest's message and an operator's change wait in the inbox until the runner pulls them.
    inboundContract(`sqlMindState (${engine.name})`, async (mindId) => {
      await sql.query("INSERT INTO sync_minds (id, name, write_token_hash, settings) VALUES ($1, $2, '\\x00'::bytea, $3)", [mindId, SETTINGS.name, JSON.stringify(SETTINGS)]);
      await sql.query("INSERT INTO sync_trajectories (mind, traj, name, dir) VALUES ($1, $1, $2, '')", [mindId, SETTINGS.name]);
      const link = `link-${mindId}`;
      await sql.query("INSERT INTO share_links (id, mind, kind, token_hash, role) VALUES ($1, $2, 'invite', $3, 'operator')", [link, mindId, new TextEncoder().encode(link)]);
      const state = sqlMindState(sql, mindId, asSettings);
      let n = 0;
      // Each a little later than the one before (the inbox is read oldest first).
      const later = () => new Date(Date.parse("2025-02-01T00:00:00.000Z") + ++n * 1000).toISOString();
      return Object.assign(state, {
        outside: {
          message: async (from: string, content: string) => void (await sql.query("INSERT INTO guest_messages (id, mind, link, from_name, content, created_at) VALUES ($1, $2, $3, $4, $5, $6)", [crypto.randomUUID(), mindId, link, from, content, later()])),
          change: async ({ id, text }: { id: string; text: string }) =>
            void (await sql.query("INSERT INTO mind_curations (id, mind, link, from_name, request, created_at) VALUES ($1, $2, $3, 'Ada', $4, $5)", [id, mindId, link, JSON.stringify({ what: "memory", op: "add", text }), later()])),
          settle: () => state.inbound.pull(),
        },
      });
    });
  });
}
