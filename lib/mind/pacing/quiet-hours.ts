// Quiet hours (issue 25): stretches of a mind's local day in which it makes
// no spontaneous wake. Its human declares them with its pacing (a time zone
// and ranges, "22:00-07:00"); a message still wakes it and is answered, or
// waits for the stretch's end when the human chose to hold messages, and
// alarms ring through unless the human said not. Pure: the wall clock's
// instant in, the wait that ends outside the quiet out.
import type { QuietHours } from "../../trajectory/schema";

const MINUTE = 60_000;
const DAY_MIN = 24 * 60;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Minutes since local midnight of the instant in that zone. */
function localMinute(ms: number, tz: string): number {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", { timeZone: tz, hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    formatters.set(tz, f);
  }
  const parts = f.formatToParts(ms);
  const h = Number(parts.find((p) => p.type === "hour")?.value ?? 0);
  const m = Number(parts.find((p) => p.type === "minute")?.value ?? 0);
  return h * 60 + m;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Minutes from `minute` (local) to the end of the range holding it, and that end (local minute); null when no range holds it. */
function rangeEnd(minute: number, ranges: readonly string[]): { left: number; to: number } | null {
  let best: { left: number; to: number } | null = null;
  for (const r of ranges) {
    const from = minutesOf(r.slice(0, 5));
    const to = minutesOf(r.slice(6));
    const inside = from < to ? minute >= from && minute < to : minute >= from || minute < to;
    if (!inside) continue;
    const left = (to - minute + DAY_MIN) % DAY_MIN || DAY_MIN;
    if (best === null || left > best.left) best = { left, to };
  }
  return best;
}

/**
 * The end of the quiet stretch that holds `ms` (ranges that touch or overlap
 * run on into each other), or null when `ms` is not quiet. Read again at each
 * step, so a daylight-saving shift inside the stretch lands where the zone's
 * clock says.
 */
export function quietUntil(ms: number, q: QuietHours): number | null {
  let at = ms;
  let quiet = false;
  // Each step leaves a range; eight ranges and a shift or two are the most a day can chain.
  for (let i = 0; i < 24; i++) {
    const end = rangeEnd(localMinute(at, q.tz), q.ranges);
    if (end === null) return quiet ? at : null;
    quiet = true;
    // To the start of the local minute the range ends at; then by the zone's clock there, which a
    // daylight-saving shift between the two has moved by its hour.
    at = Math.floor(at / MINUTE) * MINUTE + end.left * MINUTE;
    const off = ((end.to - localMinute(at, q.tz) + DAY_MIN + DAY_MIN / 2) % DAY_MIN) - DAY_MIN / 2;
    at += off * MINUTE;
  }
  return at;
}

/**
 * A spontaneous wait of `delayS` from `nowMs`, made to end outside quiet
 * hours: unchanged when the wake it leads to is not quiet, else lengthened to
 * the quiet stretch's end.
 */
export function outsideQuietS(nowMs: number, delayS: number, q: QuietHours): number {
  const wakeAt = nowMs + delayS * 1000;
  const until = quietUntil(wakeAt, q);
  return until === null ? delayS : Math.max(delayS, Math.ceil((until - nowMs) / 1000));
}

/**
 * When a person's message that arrives at `ms` may reach the mind: null for
 * at once (no quiet hours now, or they answer messages), else the end of the
 * quiet stretch, when held messages are let in.
 */
export function heldUntil(ms: number, q: QuietHours | undefined): number | null {
  return q?.messages === "hold" ? quietUntil(ms, q) : null;
}

/** Minutes of a local day inside any range (a day without a daylight-saving shift). */
export function quietMinutesPerDay(q: QuietHours): number {
  const day = new Uint8Array(DAY_MIN);
  for (const r of q.ranges) {
    const from = minutesOf(r.slice(0, 5));
    const to = minutesOf(r.slice(6));
    for (let m = from; m !== to; m = (m + 1) % DAY_MIN) day[m] = 1;
  }
  return day.reduce((a, b) => a + b, 0);
}

/** "22:00–07:00 (Europe/Berlin)": the ranges as a person reads them. */
export function quietWords(q: QuietHours): string {
  return `${q.ranges.map((r) => r.replace("-", "–")).join(", ")} (${q.tz})`;
}

/** What a message in quiet hours does: "a message still wakes it", or "messages wait until 07:00". */
export function quietMessagesWords(q: QuietHours): string {
  if (q.messages === "answer") return "a message still wakes it";
  // Where a stretch ends: a range's end that no other range runs on past.
  const ends = [...new Set(q.ranges.map((r) => r.slice(6)).filter((to) => rangeEnd(minutesOf(to), q.ranges) === null))];
  if (ends.length === 1) return `messages wait until ${ends[0]}`;
  // Ranges that cover the whole day end nowhere.
  return ends.length ? `messages wait until the stretch ends (${ends.join(" or ")})` : "messages wait until the quiet hours end";
}

