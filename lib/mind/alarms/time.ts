// When an alarm is due, from what the agent types: `alarm at <time>` (an ISO
// 8601 time, or HH:MM) and `alarm in <duration>`. Pure: `now` is handed in.
// Every time is UTC unless it names its own offset, so an alarm means the
// same instant in the tab and on the server.
import { alarmTime } from "../../trajectory/summary";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How far ahead an alarm may be set. */
export const MAX_AHEAD_DAYS = 365;
export const MAX_AHEAD_MS = MAX_AHEAD_DAYS * DAY;

export type TimeResult = { ok: true; at: number } | { ok: false; error: string };

/** The ISO 8601 shapes accepted: a date, then optionally a time (minutes, seconds, fractions) and then optionally a zone. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const CLOCK = /^(\d{1,2}):(\d{2})$/;
const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

const num = (s: string | undefined) => (s === undefined ? 0 : Number(s));

/** An ISO 8601 time (no zone: UTC), or HH:MM: its next occurrence in UTC (today if still ahead, else tomorrow). */
export function parseAt(spec: string, now: number): TimeResult {
  const clock = CLOCK.exec(spec);
  if (clock) {
    const [h, m] = [num(clock[1]), num(clock[2])];
    if (h > 23 || m > 59) return { ok: false, error: `'${spec}' is not a time of day (HH:MM, 00:00 to 23:59, UTC)` };
    const day = new Date(now);
    let at = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), h, m);
    if (at <= now) at += DAY;
    return { ok: true, at };
  }
  const iso = ISO.exec(spec);
  if (!iso) return { ok: false, error: `'${spec}' is not a time: give HH:MM (UTC) or an ISO 8601 time such as 2026-12-01T09:30Z` };
  const [year, month, date, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => num(iso[i]));
  const ms = Math.floor(Number(`0.${iso[7] ?? "0"}`) * 1000);
  const local = Date.UTC(year!, month! - 1, date!, hour, minute, second, ms);
  const back = new Date(local);
  // Date.UTC rolls 2026-02-30 over into March: a date that does not come back as written does not exist.
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month! - 1 || back.getUTCDate() !== date || hour! > 23 || minute! > 59 || second! > 59) {
    return { ok: false, error: `'${spec}' is not a real date and time` };
  }
  const offset = zoneOffset(iso[8]);
  if (offset === null) return { ok: false, error: `'${spec}' has an offset out of range (at most ±23:59)` };
  return checkAhead(local - offset, now);
}

/** Milliseconds east of UTC, for `Z`, `+02`, `+0200`, `-05:30` (none: UTC); null when out of range. */
function zoneOffset(zone: string | undefined): number | null {
  if (zone === undefined || zone.toUpperCase() === "Z") return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  const [h, min] = [num(m?.[2]), num(m?.[3])];
  if (!m || h > 23 || min > 59) return null;
  return (m[1] === "-" ? -1 : 1) * (h * HOUR + min * MINUTE);
}

/** A duration such as 90s, 10m, 2h, 1h30m, 1d (units in the order d, h, m, s, each once), in ms. */
export function parseDuration(spec: string): { ok: true; ms: number } | { ok: false; error: string } {
  const m = spec === "" ? null : DURATION.exec(spec);
  if (!m) return { ok: false, error: `'${spec}' is not a duration: give whole numbers with units d, h, m, s in that order, such as 90s, 10m, 2h, 1h30m or 1d` };
  const ms = num(m[1]) * DAY + num(m[2]) * HOUR + num(m[3]) * MINUTE + num(m[4]) * SECOND;
  if (ms === 0) return { ok: false, error: `'${spec}' is no time at all: an alarm needs a duration above 0` };
  if (ms > MAX_AHEAD_MS) return { ok: false, error: `'${spec}' is more than ${MAX_AHEAD_DAYS} days ahead` };
  return { ok: true, ms };
}

/** `in <duration>` from now. */
export function parseIn(spec: string, now: number): TimeResult {
  const d = parseDuration(spec);
  return d.ok ? { ok: true, at: now + d.ms } : d;
}

/** An alarm's time must be ahead of now, and at most MAX_AHEAD_DAYS ahead. */
export function checkAhead(at: number, now: number): TimeResult {
  if (!Number.isFinite(at)) return { ok: false, error: "not a time" };
  if (at <= now) return { ok: false, error: `${alarmTime(at)} is in the past (it is now ${alarmTime(now)})` };
  if (at - now > MAX_AHEAD_MS) return { ok: false, error: `${alarmTime(at)} is more than ${MAX_AHEAD_DAYS} days ahead` };
  return { ok: true, at };
}

/** How long until a time, written the way durations are typed, to the second: 1h30m, 1m30s, 2d4h. */
export function formatIn(ms: number): string {
  let s = Math.max(0, Math.round(ms / SECOND));
  const parts: string[] = [];
  for (const [unit, size] of [
    ["d", 86400],
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    const n = Math.floor(s / size);
    s -= n * size;
    if (n > 0) parts.push(`${n}${unit}`);
  }
  return parts.join("") || "0s";
}
