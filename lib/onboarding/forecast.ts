// What a mind would cost if nothing ever happened to it again: every wake an
// idle wake at the pacing cap, forever. That is the floor of its spend while
// it runs, and what its caps must at least allow. Pure.
import { LEAN_BUDGET } from "../context/lean";
import type { RunSpan, Timeline } from "../trajectory/timeline";
import type { BudgetConfig, PacingConfig } from "../trajectory/schema";
import { quietMinutesPerDay } from "../mind/pacing/quiet-hours";

/**
 * A typical idle wake when the mind has none on record yet: one call, its
 * lean first look (a LEAN_BUDGET context plus ~200 tokens of lean
 * instructions; bench/results/context.json measures the whole call at ~790
 * tokens), answered with a short block that sets FINAL to idle.
 */
export const TYPICAL_IDLE_WAKE = { inputTokens: LEAN_BUDGET + 250, outputTokens: 80 } as const;

/**
 * `history`: the average of the mind's own idle wakes; `price`: a typical idle
 * wake at its model's price; `unknown`: neither is there (no idle wake yet and no price).
 */
export type ForecastBasis = "history" | "price" | "unknown";

export interface Forecast {
  basis: ForecastBasis;
  /** Idle wakes the average was taken over (0 unless basis is history). */
  samples: number;
  /** What one idle wake costs, USD (null when unknown). */
  wakeUsd: number | null;
  wakesPerHour: number;
  /** Hours of its day the mind makes no wake of its own (its quiet hours); 0 without them. */
  quietHoursPerDay: number;
  hourUsd: number | null;
  dayUsd: number | null;
  /** Whether the caps would stop the mind before the hour or day is out at this rate. */
  overHourCap: boolean;
  overDayCap: boolean;
}

export interface ForecastInput {
  pacing: PacingConfig;
  /** What each of the mind's recorded idle wakes cost, USD (idleWakeCosts). */
  idleWakes: readonly number[];
  /** What a TYPICAL_IDLE_WAKE costs at the mind's model's price, when it has one. */
  typicalWakeUsd?: number;
  budget?: BudgetConfig;
}

export function forecast(input: ForecastInput): Forecast {
  const wakesPerHour = 3600 / input.pacing.cap_s;
  const n = input.idleWakes.length;
  const basis: ForecastBasis = n > 0 ? "history" : input.typicalWakeUsd !== undefined ? "price" : "unknown";
  const wakeUsd = basis === "history" ? input.idleWakes.reduce((t, u) => t + u, 0) / n : basis === "price" ? (input.typicalWakeUsd ?? null) : null;
  const hourUsd = wakeUsd === null ? null : wakeUsd * wakesPerHour;
  // Quiet hours have no idle wakes: a day costs only its waking hours.
  const quietHoursPerDay = input.pacing.quiet ? quietMinutesPerDay(input.pacing.quiet) / 60 : 0;
  const dayUsd = hourUsd === null ? null : hourUsd * (24 - quietHoursPerDay);
  return {
    basis,
    samples: basis === "history" ? n : 0,
    wakeUsd,
    wakesPerHour,
    quietHoursPerDay,
    hourUsd,
    dayUsd,
    overHourCap: hourUsd !== null && input.budget !== undefined && hourUsd > input.budget.hour_usd,
    overDayCap: dayUsd !== null && input.budget !== undefined && dayUsd > input.budget.day_usd,
  };
}

/** A run that is an idle wake: the inner life woke on schedule and chose to idle. */
function isIdleWake(run: RunSpan, scheduled: ReadonlySet<string>): boolean {
  return run.outcome === "idle" && run.start !== null && run.wake !== undefined && scheduled.has(run.wake);
}

/**
 * What each idle wake in `timeline` cost, from the usage table's rows (keyed
 * by the step that carries each call). A wake whose calls have no row read is
 * left out rather than counted as free.
 */
export function idleWakeCosts(timeline: Timeline, rows: readonly { step_id: string; usd: number }[]): number[] {
  const usdOf = new Map(rows.map((r) => [r.step_id, r.usd]));
  const scheduled = new Set(timeline.wakes.filter((w) => w.cause === "scheduled").map((w) => w.id));
  const out: number[] = [];
  for (const run of timeline.runs) {
    if (!isIdleWake(run, scheduled) || run.calls.length === 0) continue;
    let total = 0;
    let known = true;
    for (const id of run.calls) {
      const u = usdOf.get(id);
      if (u === undefined) known = false;
      else total += u;
    }
    if (known) out.push(total);
  }
  return out;
}
