// lib/mind/alarms/time.ts: when an alarm typed as `alarm at <time>` or
// `alarm in <duration>` is due. Every time is UTC unless it names an offset.
import { describe, expect, it } from "vitest";
import { checkAhead, formatIn, MAX_AHEAD_MS, parseAt, parseDuration, parseIn } from "@/lib/mind/alarms/time";

const NOW = Date.parse("2026-11-30T17:44:36.123Z");
const at = (iso: string) => ({ ok: true, at: Date.parse(iso) });
const no = (error: string) => ({ ok: false, error });

describe("parseAt: HH:MM", () => {
  it("is today's when it is still ahead, else tomorrow's, in UTC", () => {
    expect(parseAt("18:00", NOW)).toEqual(at("2026-11-30T18:00:00.000Z"));
    expect(parseAt("17:45", NOW)).toEqual(at("2026-11-30T17:45:00.000Z"));
    expect(parseAt("17:44", NOW)).toEqual(at("2026-12-01T17:44:00.000Z"));
    expect(parseAt("9:05", NOW)).toEqual(at("2026-12-01T09:05:00.000Z"));
    expect(parseAt("00:00", NOW)).toEqual(at("2026-12-01T00:00:00.000Z"));
    // Across a month's and a year's end.
    expect(parseAt("23:59", Date.parse("2026-12-31T23:59:30Z"))).toEqual(at("2027-01-01T23:59:00.000Z"));
  });

  it("exactly now is tomorrow's", () => {
    expect(parseAt("17:44", Date.parse("2026-11-30T17:44:00.000Z"))).toEqual(at("2026-12-01T17:44:00.000Z"));
  });

  it("refuses a time of day that does not exist", () => {
    expect(parseAt("24:00", NOW)).toEqual(no("'24:00' is not a time of day (HH:MM, 00:00 to 23:59, UTC)"));
    expect(parseAt("12:60", NOW)).toEqual(no("'12:60' is not a time of day (HH:MM, 00:00 to 23:59, UTC)"));
  });
});

describe("parseAt: ISO 8601", () => {
  it("without a zone means UTC", () => {
    expect(parseAt("2026-12-01T09:30", NOW)).toEqual(at("2026-12-01T09:30:00.000Z"));
    expect(parseAt("2026-12-01T09:30:15", NOW)).toEqual(at("2026-12-01T09:30:15.000Z"));
    expect(parseAt("2026-12-01 09:30", NOW)).toEqual(at("2026-12-01T09:30:00.000Z"));
    expect(parseAt("2026-12-01", NOW)).toEqual(at("2026-12-01T00:00:00.000Z"));
    expect(parseAt("2026-12-01T09:30:15.5", NOW)).toEqual(at("2026-12-01T09:30:15.500Z"));
  });

  it("with a zone or an offset, means that instant", () => {
    expect(parseAt("2026-12-01T09:30Z", NOW)).toEqual(at("2026-12-01T09:30:00.000Z"));
    expect(parseAt("2026-12-01t09:30z", NOW)).toEqual(at("2026-12-01T09:30:00.000Z"));
    expect(parseAt("2026-12-01T09:30:00+02:00", NOW)).toEqual(at("2026-12-01T07:30:00.000Z"));
    expect(parseAt("2026-12-01T09:30-0530", NOW)).toEqual(at("2026-12-01T15:00:00.000Z"));
    expect(parseAt("2026-12-01T09:30+01", NOW)).toEqual(at("2026-12-01T08:30:00.000Z"));
  });

  it("refuses what is not a time, a date that does not exist, and an offset out of range", () => {
    const shape = (s: string) => no(`'${s}' is not a time: give HH:MM (UTC) or an ISO 8601 time such as 2026-12-01T09:30Z`);
    for (const s of ["tomorrow", "", "9", "2026-12-1", "2026-12-01T9:30", "12/01/2026", "2026-12-01Z", "in 5m"]) expect(parseAt(s, NOW)).toEqual(shape(s));
    expect(parseAt("2027-02-29T10:00", NOW)).toEqual(no("'2027-02-29T10:00' is not a real date and time"));
    expect(parseAt("2026-13-01", NOW)).toEqual(no("'2026-13-01' is not a real date and time"));
    expect(parseAt("2026-12-01T25:00", NOW)).toEqual(no("'2026-12-01T25:00' is not a real date and time"));
    expect(parseAt("2026-12-01T09:30+24:00", NOW)).toEqual(no("'2026-12-01T09:30+24:00' has an offset out of range (at most ±23:59)"));
  });

  it("refuses a time in the past, and one more than 365 days ahead", () => {
    expect(parseAt("2026-11-30T17:44:36", NOW)).toEqual(no("2026-11-30 17:44:36Z is in the past (it is now 2026-11-30 17:44:36Z)"));
    expect(parseAt("2020-01-01", NOW)).toEqual(no("2020-01-01 00:00:00Z is in the past (it is now 2026-11-30 17:44:36Z)"));
    expect(parseAt("2027-11-30T17:44:36.123Z", NOW)).toEqual(at("2027-11-30T17:44:36.123Z"));
    expect(parseAt("2027-11-30T17:44:37Z", NOW)).toEqual(no("2027-11-30 17:44:37Z is more than 365 days ahead"));
  });
});

describe("parseDuration and parseIn", () => {
  it("reads d, h, m, s in that order, each once", () => {
    expect(["90s", "10m", "2h", "1h30m", "1d", "1d2h3m4s", "0h5m"].map((s) => parseDuration(s))).toEqual(
      [90_000, 600_000, 7_200_000, 5_400_000, 86_400_000, 93_784_000, 300_000].map((ms) => ({ ok: true, ms })),
    );
    expect(parseIn("1h30m", NOW)).toEqual(at("2026-11-30T19:14:36.123Z"));
    expect(parseIn("365d", NOW)).toEqual({ ok: true, at: NOW + MAX_AHEAD_MS });
  });

  it("refuses nothing, no time at all, negative, out-of-order and unitless durations, and more than 365 days", () => {
    const shape = (s: string) => no(`'${s}' is not a duration: give whole numbers with units d, h, m, s in that order, such as 90s, 10m, 2h, 1h30m or 1d`);
    for (const s of ["", "-5m", "5", "30m1h", "1h1h", "1.5h", "5 m", "5M", "1w"]) expect(parseDuration(s)).toEqual(shape(s));
    expect(parseDuration("0m")).toEqual(no("'0m' is no time at all: an alarm needs a duration above 0"));
    expect(parseDuration("0d0s")).toEqual(no("'0d0s' is no time at all: an alarm needs a duration above 0"));
    expect(parseDuration("366d")).toEqual(no("'366d' is more than 365 days ahead"));
    expect(parseDuration("365d1s")).toEqual(no("'365d1s' is more than 365 days ahead"));
    expect(parseIn("-5m", NOW)).toEqual(shape("-5m"));
  });
});

describe("checkAhead and formatIn", () => {
  it("a time must be after now and at most 365 days ahead", () => {
    expect(checkAhead(NOW + 1, NOW)).toEqual({ ok: true, at: NOW + 1 });
    expect(checkAhead(NOW, NOW)).toEqual(no("2026-11-30 17:44:36Z is in the past (it is now 2026-11-30 17:44:36Z)"));
    expect(checkAhead(NaN, NOW)).toEqual(no("not a time"));
  });

  it("writes a wait the way durations are typed", () => {
    expect([0, 400, 90_000, 5_400_000, 86_400_000 + 3_600_000 + 1000].map(formatIn)).toEqual(["0s", "0s", "1m30s", "1h30m", "1d1h1s"]);
  });
});
