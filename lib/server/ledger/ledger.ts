import "server-only";
// The proxy's spend ledger: hold a call's worst case before it is forwarded,
// replace the hold by the truth after. One counter row per cap and period
// (client hour, client day, global day) carries settled and pending
// micro-dollars; a reservation raises all three rows' pending in one
// conditional upsert that checks every cap on the rows as last committed, so
// two servers (or two requests) can never both squeeze under a cap. The
// statements, and why they lock the way they do, are in statements.ts.
//
// The invariant: money recorded against a client's hour, a client's day or
// the whole day (settled plus still held) never exceeds that cap. A hold is
// only added where it fits, a settle moves at most the hold from pending to
// settled (a report above it is an overrun, recorded, not charged), and an
// expiry charges exactly the hold.
import { randomUUID } from "node:crypto";
import type { TokenUsage } from "../../llm/price";
import { CLOSE, DAY_FIGURES, EXISTS, PRUNE_HOURS, PRUNE_RESERVATIONS, RESERVE, SPENT, STALE, USED } from "./statements";
import { checkUsd, dayStart, hourStart, microsDown, microsUp, nextDay, nextHour, usd } from "./units";
import type { Sql } from "../db/sql";

export type CapName = "global_day" | "client_hour" | "client_day" | "request";
export interface Caps { globalDayUsd: number; clientHourUsd: number; clientDayUsd: number; requestUsd: number }
/**
 * A refusal's spentUsd is what already counts against that cap (settled plus
 * still held); for the "request" cap it is the refused call's own worst case,
 * and resetsAt is now (a smaller request may go at once). headroomUsd, when a
 * period cap refused, is what all three caps could still hold: a call clamped
 * to it may be tried again at once.
 */
export type Reservation =
  | { ok: true; id: string; usd: number }
  | { ok: false; cap: CapName; limitUsd: number; spentUsd: number; resetsAt: Date; headroomUsd?: number };
export interface Ledger {
  /** Atomically: refuse if worstUsd > requestUsd, or if settled + pending (+ worstUsd) would cross a cap; else hold worstUsd. */
  reserve(clientId: string, worstUsd: number, meta?: { model?: string }): Promise<Reservation>;
  /**
   * Replace the hold by what the upstream reported, but never by more than the hold: a report above it is kept as
   * an overrun and settled at the hold. Idempotent: a second settle of the same id does nothing.
   */
  settle(id: string, reportedUsd: number, usage?: TokenUsage): Promise<void>;
  /** A client's settled spend this hour and day, and the whole day's: settled, held, and how many calls overran. */
  report(clientId: string): Promise<SpendReport>;
  /** What was really spent (settled, including expired reservations at their worst case) in the current periods. */
  spent(clientId: string): Promise<{ clientHourUsd: number; clientDayUsd: number; globalDayUsd: number }>;
  /** Reservations older than the TTL (a server died mid-call) are settled at their worst case: unknown spend is assumed spent, so caps stay safe, and they stop being pending. */
  expireStale(): Promise<number>;
  /** Deletes closed reservations of past days and hourly counters of past hours (the daily counters are the totals); returns the rows removed. */
  prune(): Promise<number>;
}

export interface SpendReport {
  client: { hourUsd: number; dayUsd: number };
  global: { dayUsd: number; pendingUsd: number; overruns: number };
  resetsAt: { hour: Date; day: Date };
}

/** The ledger's database failed: the proxy answers 503 and forwards nothing. */
export class LedgerUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`spend ledger unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "LedgerUnavailableError";
  }
}

/** Longer than any call the proxy lets run, so only a call whose server died is expired. */
export const DEFAULT_RESERVATION_TTL_MS = 15 * 60_000;
const SWEEP_EVERY_MS = 60_000;
const PRUNE_EVERY_MS = 3_600_000;

type PeriodCap = Exclude<CapName, "request">;
// Most binding first: when several caps refuse, name the one that resets last.
const REPORT_ORDER: PeriodCap[] = ["global_day", "client_day", "client_hour"];

export function openLedger(sql: Sql, caps: Caps, opts: { now?: () => Date; reservationTtlMs?: number } = {}): Ledger {
  const limits: Record<CapName, number> = {
    global_day: microsDown(checkUsd(caps.globalDayUsd, "caps.globalDayUsd")),
    client_hour: microsDown(checkUsd(caps.clientHourUsd, "caps.clientHourUsd")),
    client_day: microsDown(checkUsd(caps.clientDayUsd, "caps.clientDayUsd")),
    request: microsDown(checkUsd(caps.requestUsd, "caps.requestUsd")),
  };
  const now = opts.now ?? (() => new Date());
  const ttlMs = opts.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError(`reservationTtlMs must be a positive number, got ${ttlMs}`);
  let lastSweep = -Infinity;
  let lastPrune = -Infinity;

  const periodOf = (clientId: string, at: Date) => [clientId, dayStart(at).toISOString(), hourStart(at).toISOString()];

  /** Settle or expire one reservation (one statement); false when there was nothing to do. */
  async function close(id: string, how: { actualMicros: number; usage?: TokenUsage } | "expire", at: Date): Promise<boolean | "unknown"> {
    const params = [
      id,
      how === "expire" ? "expired" : "settled",
      how === "expire" ? null : how.actualMicros,
      how !== "expire" && how.usage ? JSON.stringify(how.usage) : null,
      at.toISOString(),
    ];
    const moved = await retrying(() =>
      sql.dialect === "postgres"
        ? sql.transaction(async (tx) => {
            // A close lost to a database crash leaves its reservation pending, to expire at its worst case: safe
            // for the caps, so it need not wait for the disk (a reservation does: a lost hold is unbudgeted spend).
            await tx.query("SET LOCAL synchronous_commit = off");
            return tx.query(CLOSE, params);
          })
        : sql.query(CLOSE, params),
    );
    if (moved.length > 0) return true;
    return (await sql.query(EXISTS, [id])).length > 0 ? false : "unknown";
  }

  async function expireStale(): Promise<number> {
    const at = now();
    try {
      const stale = await sql.query<{ id: string }>(STALE, [new Date(at.getTime() - ttlMs).toISOString()]);
      let expired = 0;
      for (const { id } of stale) if ((await close(id, "expire", at)) === true) expired++;
      return expired;
    } catch (e) {
      throw unavailable(e);
    }
  }

  async function prune(): Promise<number> {
    const at = now();
    try {
      const reservations = await sql.query(PRUNE_RESERVATIONS, [dayStart(at).toISOString()]);
      const hours = await sql.query(PRUNE_HOURS, [hourStart(at).toISOString()]);
      return reservations.length + hours.length;
    } catch (e) {
      throw unavailable(e);
    }
  }

  async function used(clientId: string, at: Date): Promise<(cap: PeriodCap) => number> {
    const rows = await sql.query<{ cap: PeriodCap; used: string }>(USED, periodOf(clientId, at));
    return (cap) => Number(rows.find((r) => r.cap === cap)?.used ?? 0);
  }

  async function hold(clientId: string, worst: number, at: Date, model: string | null): Promise<Reservation> {
    // A period's first row is inserted without the upsert's check, so a hold over a cap on its own is refused here.
    let refused = REPORT_ORDER.filter((cap) => worst > limits[cap]);
    if (refused.length === 0) {
      const id = randomUUID();
      const took = await retrying(() =>
        sql.transaction(async (tx) => {
          const rows = await tx.query<{ cap: PeriodCap }>(RESERVE, [...periodOf(clientId, at), worst, limits.global_day, limits.client_day, limits.client_hour, id, model, at.toISOString()]);
          const passed = new Set(rows.map((r) => r.cap));
          // Throwing rolls back the reservation and the hold on the caps that did pass.
          if (passed.size < 3) throw new Refusal(REPORT_ORDER.filter((cap) => !passed.has(cap)));
        }),
      ).catch((e: unknown) => {
        if (e instanceof Refusal) return e;
        throw e;
      });
      if (!(took instanceof Refusal)) return { ok: true, id, usd: usd(worst) };
      refused = took.caps;
    }
    const of = await used(clientId, at);
    // Most binding first; the check itself said which caps refused, in case the counters moved since.
    const cap = REPORT_ORDER.find((c) => of(c) + worst > limits[c]) ?? refused[0] ?? "global_day";
    const headroomUsd = usd(Math.max(0, Math.min(...REPORT_ORDER.map((c) => limits[c] - of(c)))));
    return { ok: false, cap, limitUsd: usd(limits[cap]), spentUsd: usd(of(cap)), resetsAt: cap === "client_hour" ? nextHour(at) : nextDay(at), headroomUsd };
  }

  return {
    async reserve(clientId, worstUsd, meta) {
      checkClient(clientId);
      const worst = microsUp(checkUsd(worstUsd, "worstUsd"));
      const at = now();
      if (worst > limits.request) return { ok: false, cap: "request", limitUsd: usd(limits.request), spentUsd: worstUsd, resetsAt: at };
      try {
        // No reservation stays pending for ever, even if nobody else sweeps.
        if (at.getTime() - lastSweep >= Math.min(ttlMs, SWEEP_EVERY_MS)) {
          lastSweep = at.getTime();
          await expireStale();
        }
        if (at.getTime() - lastPrune >= PRUNE_EVERY_MS) {
          lastPrune = at.getTime();
          await prune();
        }
        return await hold(clientId, worst, at, meta?.model ?? null);
      } catch (e) {
        throw unavailable(e);
      }
    },

    async settle(id, reportedUsd, usage) {
      if (typeof id !== "string" || !id) throw new RangeError("settle needs a reservation id");
      const actualMicros = microsUp(checkUsd(reportedUsd, "reportedUsd"));
      let result: boolean | "unknown";
      try {
        result = await close(id, { actualMicros, usage }, now());
      } catch (e) {
        throw unavailable(e);
      }
      if (result === "unknown") throw new RangeError(`no reservation '${id}' to settle`);
    },

    async spent(clientId) {
      checkClient(clientId);
      try {
        const rows = await sql.query<{ cap: PeriodCap; settled: string }>(SPENT, periodOf(clientId, now()));
        const settled = (cap: PeriodCap) => usd(rows.find((r) => r.cap === cap)?.settled ?? 0);
        return { clientHourUsd: settled("client_hour"), clientDayUsd: settled("client_day"), globalDayUsd: settled("global_day") };
      } catch (e) {
        throw unavailable(e);
      }
    },

    async report(clientId) {
      checkClient(clientId);
      const at = now();
      try {
        const rows = await sql.query<{ cap: PeriodCap; settled: string }>(SPENT, periodOf(clientId, at));
        const settled = (cap: PeriodCap) => usd(rows.find((r) => r.cap === cap)?.settled ?? 0);
        const [day] = await sql.query<{ overruns: number; pending: string | null }>(DAY_FIGURES, [dayStart(at).toISOString()]);
        return {
          client: { hourUsd: settled("client_hour"), dayUsd: settled("client_day") },
          global: { dayUsd: settled("global_day"), pendingUsd: usd(day?.pending ?? 0), overruns: Number(day?.overruns ?? 0) },
          resetsAt: { hour: nextHour(at), day: nextDay(at) },
        };
      } catch (e) {
        throw unavailable(e);
      }
    },

    expireStale,
    prune,
  };
}

class Refusal {
  constructor(readonly caps: PeriodCap[]) {}
}

function unavailable(e: unknown): LedgerUnavailableError {
  return e instanceof LedgerUnavailableError ? e : new LedgerUnavailableError(e);
}

function checkClient(clientId: unknown): asserts clientId is string {
  if (typeof clientId !== "string" || !clientId) throw new RangeError("a client id must be a non-empty string");
}

/** PostgreSQL may abort a transaction it cannot serialise (deadlock, serialization failure); it is safe to run again. */
async function retrying<R>(run: () => Promise<R>, attempts = 3): Promise<R> {
  for (let i = 1; ; i++) {
    try {
      return await run();
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (i >= attempts || (code !== "40P01" && code !== "40001")) throw e;
    }
  }
}
