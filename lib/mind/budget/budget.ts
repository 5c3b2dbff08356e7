// A mind's spend caps, checked before every model call of every thinker (the
// inner life, the responder, nested shellm runs): at a cap the call is not
// made and the thinker is told to pause until the period rolls over. Periods
// are UTC calendar hours and days, as the host proxy counts them. Pure: what
// was spent comes through a port, the time through the clock.
import type { BudgetPause } from "../../protocol";
import type { BudgetConfig } from "../../trajectory/schema";
import type { Clock, ModelPort, ModelRequest, ModelResult } from "../ports";

export type { BudgetPause };

/** What the mind has spent, in USD, from `sinceMs` (epoch ms) until now. */
export interface SpendPort {
  spentSince(sinceMs: number): Promise<number>;
  /** A call through budgetedModel just spent `usd` (a port that reads the store may ignore it: the step's usage row has it). */
  record?(ts: number, usd: number): void;
}

interface Spent {
  ts: number;
  usd: number;
}

/**
 * Spend kept in memory: the store's last day is read once, then every call
 * through budgetedModel adds to it, so the check before each model call reads
 * no storage (only this mind's own worker spends for it).
 */
export function spendTally(load: (sinceMs: number) => Promise<Spent[]>, clock: Pick<Clock, "now">): SpendPort {
  let stored: Promise<Spent[]> | null = null;
  let recorded: Spent[] = [];
  const sum = (list: readonly Spent[], since: number) => list.reduce((t, e) => (e.ts >= since ? t + e.usd : t), 0);
  return {
    async spentSince(sinceMs) {
      // A day back covers the day's start, the earliest a cap asks about.
      stored ??= load(clock.now() - DAY_MS);
      return sum(await stored, sinceMs) + sum(recorded, sinceMs);
    },
    record(ts, usd) {
      if (!(usd > 0)) return;
      recorded.push({ ts, usd });
      if (recorded.length > 1000 && (recorded[0]?.ts ?? ts) < ts - DAY_MS) recorded = recorded.filter((e) => e.ts >= ts - DAY_MS);
    },
  };
}

/** Offered in the new-mind form: a mind that thinks around the clock at Headlong's pace costs about 1–2 USD an hour. */
export const DEFAULT_BUDGET: BudgetConfig = { hour_usd: 1, day_usd: 5 };

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Start and end of the UTC hour and day that hold `now` (epoch ms). */
export function periods(now: number): { hourStart: number; hourEnd: number; dayStart: number; dayEnd: number } {
  const hourStart = Math.floor(now / HOUR_MS) * HOUR_MS;
  const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
  return { hourStart, hourEnd: hourStart + HOUR_MS, dayStart, dayEnd: dayStart + DAY_MS };
}

/** Why a budget cannot be used, one message per problem (none: it can). A mind without caps must not start. */
export function budgetProblems(budget: Partial<BudgetConfig> | undefined): string[] {
  const problems: string[] = [];
  const check = (v: number | undefined, what: string) => {
    if (v === undefined || Number.isNaN(v)) problems.push(`The ${what} spend cap is missing: give one in USD (e.g. ${what === "hourly" ? DEFAULT_BUDGET.hour_usd : DEFAULT_BUDGET.day_usd}).`);
    else if (!Number.isFinite(v) || v <= 0) problems.push(`The ${what} spend cap must be a positive number of USD (it is ${v}).`);
  };
  check(budget?.hour_usd, "hourly");
  check(budget?.day_usd, "daily");
  return problems;
}

/** The cap that is reached at `now`, if any (the daily one first: it lasts longer). */
export async function reachedCap(budget: BudgetConfig, spend: SpendPort, now: number): Promise<BudgetPause | null> {
  const p = periods(now);
  const day = await spend.spentSince(p.dayStart);
  if (day >= budget.day_usd) return { scope: "mind", cap: "day", limitUsd: budget.day_usd, spentUsd: day, resetsAt: p.dayEnd };
  const hour = await spend.spentSince(p.hourStart);
  if (hour >= budget.hour_usd) return { scope: "mind", cap: "hour", limitUsd: budget.hour_usd, spentUsd: hour, resetsAt: p.hourEnd };
  return null;
}

const usd = (n: number) => `$${n < 0.01 && n > 0 ? n.toPrecision(2) : n.toFixed(2)}`;
const CAP_NAMES: Record<string, string> = {
  hour: "hourly",
  day: "daily",
  client_hour: "hourly (this browser's, at the host's proxy)",
  client_day: "daily (this browser's, at the host's proxy)",
  global_day: "daily (all of the host's proxy)",
  request: "per-request (the host's proxy)",
};

/** One line for the stream and the status: which cap, and when it resets. */
export function pauseText(p: BudgetPause): string {
  const who = p.scope === "mind" ? "The mind's" : "The host proxy's";
  const spent = p.spentUsd !== undefined ? ` (${usd(p.spentUsd)} spent)` : "";
  return `${who} ${CAP_NAMES[p.cap] ?? p.cap} spend cap of ${usd(p.limitUsd)} is reached${spent}: no model calls until it resets at ${new Date(p.resetsAt).toISOString()}, or its human raises the cap.`;
}

/**
 * The model behind the mind's caps: a call at a cap is not made and comes
 * back as a pause. Every thinker gets its model through this.
 */
export function budgetedModel(model: ModelPort, budget: BudgetConfig, spend: SpendPort, clock: Pick<Clock, "now">): ModelPort {
  return {
    name: model.name,
    async complete(req: ModelRequest): Promise<ModelResult> {
      const pause = await reachedCap(budget, spend, clock.now());
      if (pause) return { ok: false, error: pauseText(pause), aborted: false, paused: pause };
      const result = await model.complete(req);
      if (result.usage?.usd) spend.record?.(clock.now(), result.usage.usd);
      return result;
    },
  };
}
