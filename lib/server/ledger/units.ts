import "server-only";
// The ledger's units: money in integer micro-dollars, periods as UTC calendar
// hours and days. Rounding always favours the cap: holds and spends round up,
// limits round down.

const MAX_USD = 1e9;

/** USD -> micro-dollars, rounding up (what is held or spent is never understated). */
export function microsUp(usd: number): number {
  return Math.ceil(Math.round(usd * 1e9) / 1e3);
}

/** USD -> micro-dollars, rounding down (a limit is never overstated). */
export function microsDown(usd: number): number {
  return Math.floor(Math.round(usd * 1e9) / 1e3);
}

export function usd(micros: unknown): number {
  return Number(micros) / 1e6;
}

/** A clear error for an amount that is not a finite, non-negative number of dollars. */
export function checkUsd(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > MAX_USD) {
    throw new RangeError(`${what} must be a number of US dollars between 0 and ${MAX_USD}, got ${String(value)}`);
  }
  return value;
}

export function hourStart(at: Date): Date {
  const d = new Date(at.getTime());
  d.setUTCMinutes(0, 0, 0);
  return d;
}

export function dayStart(at: Date): Date {
  const d = new Date(at.getTime());
  d.setUTCHours(0, 0, 0, 0);
  return d;
}

export function nextHour(at: Date): Date {
  return new Date(hourStart(at).getTime() + 3_600_000);
}

export function nextDay(at: Date): Date {
  const d = dayStart(at);
  d.setUTCDate(d.getUTCDate() + 1);
  return d;
}
