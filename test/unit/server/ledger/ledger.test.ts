// The spend ledger on both engines: holds, settlement, refusals per cap,
// period boundaries, idempotence, expiry, bad input and a dead database.
// One database per engine; each test lives on its own UTC day (an injected
// clock), so its global_day counter is its own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LedgerUnavailableError, openLedger, type Caps } from "@/lib/server/ledger/ledger";
import type { Sql } from "@/lib/server/db/sql";
import { engines } from "../databases";

const CAPS: Caps = { globalDayUsd: 10, clientHourUsd: 1, clientDayUsd: 3, requestUsd: 0.5 };

/** A clock a test moves by hand. */
function clockAt(iso: string) {
  let t = new Date(iso).getTime();
  return { now: () => new Date(t), set: (when: string) => void (t = new Date(when).getTime()), add: (ms: number) => void (t += ms) };
}

for (const engine of engines) {
  describe.skipIf(engine.skip)(`ledger on ${engine.name}`, { timeout: 60_000 }, () => {
    let sql: Sql;
    let removeDb: () => Promise<void>;
    beforeAll(async () => {
      const db = await engine.fresh();
      removeDb = db.remove;
      sql = await db.open();
    }, 120_000);
    afterAll(async () => {
      await sql?.close().catch(() => {});
      await removeDb?.();
    }, 60_000);

    const pendingMicros = async () =>
      (await sql.query<{ pending: string | null; n: number }>(
        "SELECT (SELECT sum(pending_micros)::text FROM spend_counters) AS pending, (SELECT count(*)::int FROM spend_reservations WHERE status = 'pending') AS n",
      ))[0];

    it("holds the worst case; a settle below or at the hold records it, one above is settled at the hold and kept as an overrun", async () => {
      const clock = clockAt("2031-01-01T10:15:00Z");
      const ledger = openLedger(sql, CAPS, { now: clock.now });
      const a = await ledger.reserve("alice", 0.4, { model: "m1" });
      expect(a).toEqual({ ok: true, id: expect.any(String), usd: 0.4 });
      expect(await ledger.spent("alice")).toEqual({ clientHourUsd: 0, clientDayUsd: 0, globalDayUsd: 0 });
      if (!a.ok) return;
      await ledger.settle(a.id, 0.1, { inputTokens: 100, outputTokens: 20 });
      expect(await ledger.spent("alice")).toEqual({ clientHourUsd: 0.1, clientDayUsd: 0.1, globalDayUsd: 0.1 });

      const b = await ledger.reserve("alice", 0.4);
      if (!b.ok) throw new Error("refused");
      await ledger.settle(b.id, 0.4);
      // Upstream may report more than was held: the caps hold whatever it says, so the hold is what is charged.
      const c = await ledger.reserve("alice", 0.3);
      if (!c.ok) throw new Error("refused");
      await ledger.settle(c.id, 0.35);
      expect(await ledger.spent("alice")).toEqual({ clientHourUsd: 0.8, clientDayUsd: 0.8, globalDayUsd: 0.8 });
      expect(await ledger.spent("bob")).toEqual({ clientHourUsd: 0, clientDayUsd: 0, globalDayUsd: 0.8 });
      expect(await sql.query("SELECT actual_micros::int AS actual, reported_micros::int AS reported FROM spend_reservations WHERE id = $1", [c.id])).toEqual([
        { actual: 300_000, reported: 350_000 },
      ]);
      expect(await ledger.report("alice")).toEqual({
        client: { hourUsd: 0.8, dayUsd: 0.8 },
        global: { dayUsd: 0.8, pendingUsd: 0, overruns: 1 },
        resetsAt: { hour: new Date("2031-01-01T11:00:00Z"), day: new Date("2031-01-02T00:00:00Z") },
      });

      const rows = await sql.query("SELECT model, worst_micros::int AS worst, actual_micros::int AS actual, usage, status FROM spend_reservations WHERE id = $1", [a.id]);
      expect(rows).toEqual([{ model: "m1", worst: 400_000, actual: 100_000, usage: { inputTokens: 100, outputTokens: 20 }, status: "settled" }]);
      expect(await pendingMicros()).toEqual({ pending: "0", n: 0 });
    });

    it("refuses at each cap with its name, limit, what counts against it, and when it resets; a refusal holds nothing", async () => {
      const clock = clockAt("2031-01-02T10:15:00Z");
      const ledger = openLedger(sql, CAPS, { now: clock.now });
      expect(await ledger.reserve("carol", 0.6)).toEqual({ ok: false, cap: "request", limitUsd: 0.5, spentUsd: 0.6, resetsAt: new Date("2031-01-02T10:15:00Z") });

      // Pending holds count: two open calls fill most of the hour.
      const h1 = await ledger.reserve("carol", 0.5);
      const h2 = await ledger.reserve("carol", 0.4);
      expect([h1.ok, h2.ok]).toEqual([true, true]);
      expect(await ledger.reserve("carol", 0.2)).toEqual({ ok: false, cap: "client_hour", limitUsd: 1, spentUsd: 0.9, resetsAt: new Date("2031-01-02T11:00:00Z"), headroomUsd: 0.1 });
      // Exactly up to the cap is allowed.
      const fill = await ledger.reserve("carol", 0.1);
      expect(fill.ok).toBe(true);
      for (const r of [h1, h2, fill]) if (r.ok) await ledger.settle(r.id, r.usd);

      // The day: two more hours of 1 USD each reach its 3 USD.
      for (const hour of ["11", "12"]) {
        clock.set(`2031-01-02T${hour}:30:00Z`);
        for (const amount of [0.5, 0.5]) {
          const r = await ledger.reserve("carol", amount);
          if (!r.ok) throw new Error(`refused at ${hour}: ${r.cap}`);
          await ledger.settle(r.id, amount);
        }
      }
      clock.set("2031-01-02T13:05:00Z");
      expect(await ledger.reserve("carol", 0.01)).toEqual({ ok: false, cap: "client_day", limitUsd: 3, spentUsd: 3, resetsAt: new Date("2031-01-03T00:00:00Z"), headroomUsd: 0 });
      expect(await ledger.spent("carol")).toEqual({ clientHourUsd: 0, clientDayUsd: 3, globalDayUsd: 3 });

      // The whole server's day, across clients.
      const tight = openLedger(sql, { ...CAPS, globalDayUsd: 3.2 }, { now: clock.now });
      const d1 = await tight.reserve("dave", 0.15);
      expect(d1.ok).toBe(true);
      expect(await tight.reserve("erin", 0.1)).toEqual({ ok: false, cap: "global_day", limitUsd: 3.2, spentUsd: 3.15, resetsAt: new Date("2031-01-03T00:00:00Z"), headroomUsd: 0.05 });
      if (d1.ok) await tight.settle(d1.id, 0.15);
      expect(await pendingMicros()).toEqual({ pending: "0", n: 0 });
    });

    it("a cap resets at the next full UTC hour and at UTC midnight; a late settle counts in the period of its reservation", async () => {
      const clock = clockAt("2031-01-03T10:59:59.999Z");
      const ledger = openLedger(sql, { ...CAPS, clientDayUsd: 1.5, requestUsd: 1 }, { now: clock.now });
      const open = await ledger.reserve("frank", 1);
      if (!open.ok) throw new Error("refused");
      expect(await ledger.reserve("frank", 0.01)).toMatchObject({ ok: false, cap: "client_hour", resetsAt: new Date("2031-01-03T11:00:00Z") });
      clock.set("2031-01-03T11:00:00Z");
      const next = await ledger.reserve("frank", 0.5);
      expect(next.ok).toBe(true);
      await ledger.settle(open.id, 0.9);
      expect(await ledger.spent("frank")).toEqual({ clientHourUsd: 0, clientDayUsd: 0.9, globalDayUsd: 0.9 });
      if (next.ok) await ledger.settle(next.id, 0.5);

      clock.set("2031-01-03T23:59:59.999Z");
      expect(await ledger.reserve("frank", 0.2)).toMatchObject({ ok: false, cap: "client_day", spentUsd: 1.4, resetsAt: new Date("2031-01-04T00:00:00Z") });
      clock.set("2031-01-04T00:00:00Z");
      expect(await ledger.spent("frank")).toEqual({ clientHourUsd: 0, clientDayUsd: 0, globalDayUsd: 0 });
      const fresh = await ledger.reserve("frank", 0.2);
      expect(fresh.ok).toBe(true);
      if (fresh.ok) await ledger.settle(fresh.id, 0.2);
    });

    it("settle is idempotent, and an unknown id is a clear error", async () => {
      const clock = clockAt("2031-01-05T08:00:00Z");
      const ledger = openLedger(sql, CAPS, { now: clock.now });
      const r = await ledger.reserve("gina", 0.3);
      if (!r.ok) throw new Error("refused");
      await Promise.all([ledger.settle(r.id, 0.2), ledger.settle(r.id, 0.2)]);
      await ledger.settle(r.id, 0.25);
      expect(await ledger.spent("gina")).toEqual({ clientHourUsd: 0.2, clientDayUsd: 0.2, globalDayUsd: 0.2 });
      await expect(ledger.settle("no-such-id", 0.1)).rejects.toThrow("no reservation 'no-such-id' to settle");
      await expect(ledger.settle("no-such-id", 0.1)).rejects.toBeInstanceOf(RangeError);
    });

    it("expires reservations older than the TTL at their worst case; a late settle then records the truth", async () => {
      const clock = clockAt("2031-01-06T09:00:00Z");
      const ledger = openLedger(sql, CAPS, { now: clock.now, reservationTtlMs: 60_000 });
      const stale = await ledger.reserve("hank", 0.4);
      clock.add(30_000);
      const young = await ledger.reserve("hank", 0.2);
      if (!stale.ok || !young.ok) throw new Error("refused");
      clock.add(31_000);
      expect(await ledger.expireStale()).toBe(1);
      expect(await ledger.expireStale()).toBe(0);
      // Unknown spend is assumed spent: the hold became a charge, and stopped being pending.
      expect(await ledger.spent("hank")).toEqual({ clientHourUsd: 0.4, clientDayUsd: 0.4, globalDayUsd: 0.4 });
      expect(await sql.query("SELECT status FROM spend_reservations WHERE id = $1", [stale.id])).toEqual([{ status: "expired" }]);
      await ledger.settle(stale.id, 0.1);
      expect(await ledger.spent("hank")).toEqual({ clientHourUsd: 0.1, clientDayUsd: 0.1, globalDayUsd: 0.1 });
      await ledger.settle(stale.id, 0.3);
      expect((await ledger.spent("hank")).clientHourUsd).toBe(0.1);

      // Nobody calls expireStale: a later reserve sweeps on its own.
      clock.add(61_000);
      const after = await ledger.reserve("hank", 0.1);
      expect(after.ok).toBe(true);
      expect(await sql.query("SELECT status FROM spend_reservations WHERE id = $1", [young.id])).toEqual([{ status: "expired" }]);
      expect(await ledger.spent("hank")).toEqual({ clientHourUsd: 0.3, clientDayUsd: 0.3, globalDayUsd: 0.3 });
      if (after.ok) await ledger.settle(after.id, 0);
      expect(await pendingMicros()).toEqual({ pending: "0", n: 0 });
    });

    it("bad input is a clear error and changes nothing", async () => {
      const ledger = openLedger(sql, CAPS, { now: () => new Date("2031-01-07T00:00:00Z") });
      await expect(ledger.reserve("ivan", -1)).rejects.toThrow("worstUsd must be a number of US dollars between 0 and 1000000000, got -1");
      await expect(ledger.reserve("ivan", Number.NaN)).rejects.toThrow(RangeError);
      await expect(ledger.reserve("", 0.1)).rejects.toThrow("a client id must be a non-empty string");
      await expect(ledger.settle("x", Number.POSITIVE_INFINITY)).rejects.toThrow("reportedUsd must be");
      expect(() => openLedger(sql, { ...CAPS, clientHourUsd: Number.NaN })).toThrow("caps.clientHourUsd must be");
      expect(() => openLedger(sql, CAPS, { reservationTtlMs: 0 })).toThrow("reservationTtlMs must be a positive number");
      expect(await ledger.spent("ivan")).toEqual({ clientHourUsd: 0, clientDayUsd: 0, globalDayUsd: 0 });
    });

    it("prunes closed reservations of past days and hourly counters of past hours, keeping the days' totals and anything still held", async () => {
      const clock = clockAt("2031-01-07T23:30:00Z");
      const ledger = openLedger(sql, CAPS, { now: clock.now });
      const done = await ledger.reserve("kim", 0.2);
      if (!done.ok) throw new Error("refused");
      await ledger.settle(done.id, 0.1);
      clock.set("2031-01-07T23:40:00Z");
      const open = await ledger.reserve("kim", 0.3);
      if (!open.ok) throw new Error("refused");
      const rowsOf = async () => ({
        reservations: (await sql.query<{ id: string }>("SELECT id FROM spend_reservations WHERE client_id = 'kim' ORDER BY created_at")).map((r) => r.id),
        counters: (await sql.query<{ cap: string; starts: string }>("SELECT cap, to_char(starts_at AT TIME ZONE 'UTC', 'DD HH24') AS starts FROM spend_counters WHERE client_id = 'kim' ORDER BY cap")).map((r) => `${r.cap} ${r.starts}`),
      });
      clock.set("2031-01-08T01:10:00Z");
      await ledger.prune();
      // The settled call of yesterday is gone; the open one and its hour (something is held there) stay, as does the day.
      expect(await rowsOf()).toEqual({ reservations: [open.id], counters: ["client_day 07 00", "client_hour 07 23"] });
      await ledger.settle(open.id, 0.3);
      expect(await ledger.prune()).toBeGreaterThanOrEqual(2);
      expect(await rowsOf()).toEqual({ reservations: [], counters: ["client_day 07 00"] });
      clock.set("2031-01-07T23:59:00Z");
      expect((await ledger.spent("kim")).clientDayUsd).toBe(0.4);
    });

    // Last: it closes this engine's database.
    it("a database that is gone surfaces as LedgerUnavailableError from every call", async () => {
      const ledger = openLedger(sql, CAPS, { now: () => new Date("2031-01-08T00:00:00Z") });
      const held = await ledger.reserve("judy", 0.1);
      if (!held.ok) throw new Error("refused");
      await sql.close();
      await expect(ledger.reserve("judy", 0.1)).rejects.toBeInstanceOf(LedgerUnavailableError);
      await expect(ledger.reserve("judy", 0.1)).rejects.toThrow(/^spend ledger unavailable: /);
      await expect(ledger.settle(held.id, 0.1)).rejects.toBeInstanceOf(LedgerUnavailableError);
      await expect(ledger.spent("judy")).rejects.toBeInstanceOf(LedgerUnavailableError);
      await expect(ledger.expireStale()).rejects.toBeInstanceOf(LedgerUnavailableError);
      await expect(ledger.report("judy")).rejects.toBeInstanceOf(LedgerUnavailableError);
      await expect(ledger.prune()).rejects.toBeInstanceOf(LedgerUnavailableError);
    });
  });
}
