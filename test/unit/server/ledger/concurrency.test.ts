// The concurrency check: 200 simultaneous reserve -> settle cycles
// against caps that allow about 50 of them. Whatever the interleaving, the
// settled total stays within the cap and no reservation is left pending.
// On PostgreSQL the cycles really run in parallel over the pool's connections.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLedger, type Caps, type Ledger } from "@/lib/server/ledger/ledger";
import type { Sql } from "@/lib/server/db/sql";
import { engines } from "../databases";

const CYCLES = 200;
const WORST_USD = 0.1;

/** One proxy call: hold the worst case, "call upstream" for a few ms, settle at most the hold. */
async function cycle(ledger: Ledger, clientId: string, i: number): Promise<number | undefined> {
  const r = await ledger.reserve(clientId, WORST_USD, { model: "m" });
  if (!r.ok) return undefined;
  await new Promise((done) => setTimeout(done, i % 7));
  // max_tokens bounds the call, so the truth is at most the hold (here 60-100 % of it).
  const actual = Math.round(WORST_USD * (0.6 + 0.4 * ((i * 37) % 11) / 10) * 1e6) / 1e6;
  await ledger.settle(r.id, actual, { inputTokens: 10, outputTokens: i });
  return actual;
}

for (const engine of engines) {
  describe.skipIf(engine.skip)(`ledger under concurrency on ${engine.name}`, { timeout: 120_000 }, () => {
    let sql: Sql;
    let removeDb: () => Promise<void>;
    beforeAll(async () => {
      const db = await engine.fresh();
      removeDb = db.remove;
      sql = await db.open();
    }, 120_000);
    afterAll(async () => {
      await sql?.close();
      await removeDb?.();
    }, 60_000);

    async function check(caps: Caps, day: string, clientOf: (i: number) => string, capUsd: (l: Ledger) => Promise<number>, limitUsd: number) {
      const ledger = openLedger(sql, caps, { now: () => new Date(`${day}T12:00:00Z`) });
      const settled = await Promise.all(Array.from({ length: CYCLES }, (_, i) => cycle(ledger, clientOf(i), i)));
      const granted = settled.filter((s) => s !== undefined);
      const total = await capUsd(ledger);
      // At least cap / worst calls fit even if every one had spent its whole hold; fewer than all 200 do.
      expect(granted.length).toBeGreaterThanOrEqual(Math.floor(limitUsd / WORST_USD));
      expect(granted.length).toBeLessThan(CYCLES);
      expect(total).toBeLessThanOrEqual(limitUsd);
      expect(total).toBeCloseTo(granted.reduce((a, b) => a + b, 0), 6);
      const [left] = await sql.query<{ pending: number; held: string | null }>(
        `SELECT (SELECT count(*)::int FROM spend_reservations WHERE status <> 'settled') AS pending,
                (SELECT sum(pending_micros)::text FROM spend_counters) AS held`,
      );
      expect(left).toEqual({ pending: 0, held: "0" });
      return granted.length;
    }

    it(`${CYCLES} simultaneous cycles from one client against a 5 USD hourly cap`, async () => {
      const caps = { globalDayUsd: 100, clientHourUsd: 5, clientDayUsd: 100, requestUsd: 1 };
      const n = await check(caps, "2032-02-01", () => "one", async (l) => (await l.spent("one")).clientHourUsd, 5);
      console.log(`${engine.name}: one client, hourly cap 5 USD: ${n} of ${CYCLES} granted`);
    });

    it(`${CYCLES} simultaneous cycles from 40 clients against a 5 USD global daily cap`, async () => {
      const caps = { globalDayUsd: 5, clientHourUsd: 100, clientDayUsd: 100, requestUsd: 1 };
      const n = await check(caps, "2032-02-02", (i) => `c${i % 40}`, async (l) => (await l.spent("c0")).globalDayUsd, 5);
      console.log(`${engine.name}: 40 clients, global daily cap 5 USD: ${n} of ${CYCLES} granted`);
    });
  });
}
