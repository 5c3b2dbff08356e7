// Quiet hours (issue 25, part 5): the pure arithmetic (lib/mind/pacing/quiet-hours.ts),
// and the real mind on the simulated clock of lib/eval: no spontaneous wake
// inside them, while a message is still answered at once, or held until they
// end when its human chose that.
import { describe, expect, it } from "vitest";
import { playScenario } from "@/lib/eval/play";
import { checkScenario } from "@/lib/eval/scenario";
import { heldUntil, outsideQuietS, quietUntil } from "@/lib/mind/pacing/quiet-hours";
import type { ModelPort } from "@/lib/mind/ports";
import { INNER_LIFE } from "@/lib/mind/thinkers/inner-life";
import { RESPONDER } from "@/lib/mind/thinkers/responder";
import { PacingConfig, QuietHours } from "@/lib/trajectory/schema";

const at = (iso: string) => Date.parse(iso);
/** What the play prices calls at: nothing here counts spend. */
const FREE = { input: 0, output: 0 };
const q = (tz: string, ranges: string[], alarms = true) => QuietHours.parse({ tz, ranges, alarms });

describe("quiet hours, the arithmetic", () => {
  it("knows when a quiet stretch ends, across midnight and in the mind's own zone", () => {
    const nights = q("UTC", ["22:00-07:00"]);
    expect(quietUntil(at("2026-01-05T23:30:00Z"), nights)).toBe(at("2026-01-06T07:00:00Z"));
    expect(quietUntil(at("2026-01-06T03:00:00Z"), nights)).toBe(at("2026-01-06T07:00:00Z"));
    expect(quietUntil(at("2026-01-06T07:00:00Z"), nights)).toBeNull();
    expect(quietUntil(at("2026-01-06T21:59:59Z"), nights)).toBeNull();
    // 22:00 in Berlin (UTC+1 in January) is 21:00 UTC.
    expect(quietUntil(at("2026-01-05T21:30:00Z"), q("Europe/Berlin", ["22:00-07:00"]))).toBe(at("2026-01-06T06:00:00Z"));
  });

  it("runs touching ranges on into each other, and lands where the zone's clock says across a daylight-saving shift", () => {
    expect(quietUntil(at("2026-01-05T23:00:00Z"), q("UTC", ["22:00-00:00", "00:00-02:00", "02:00-06:30"]))).toBe(at("2026-01-06T06:30:00Z"));
    // New York springs forward at 02:00 on 8 March 2026: 22:00 EST (03:00 UTC) to 07:00 EDT (11:00 UTC) is eight hours.
    expect(quietUntil(at("2026-03-08T03:30:00Z"), q("America/New_York", ["22:00-07:00"]))).toBe(at("2026-03-08T11:00:00Z"));
    // And falls back at 02:00 on 1 November: 22:00 EDT (02:00 UTC) to 07:00 EST (12:00 UTC) is ten hours.
    expect(quietUntil(at("2026-11-01T02:30:00Z"), q("America/New_York", ["22:00-07:00"]))).toBe(at("2026-11-01T12:00:00Z"));
  });

  it("lengthens only a wait that would end inside quiet hours", () => {
    const nights = q("UTC", ["22:00-07:00"]);
    expect(outsideQuietS(at("2026-01-05T12:00:00Z"), 300, nights)).toBe(300);
    expect(outsideQuietS(at("2026-01-05T21:58:00Z"), 300, nights)).toBe(9 * 3600 + 2 * 60);
    expect(outsideQuietS(at("2026-01-05T23:00:00Z"), 0, nights)).toBe(8 * 3600);
  });

  it("holds a message only inside quiet hours whose human chose to hold them", () => {
    const nights = q("UTC", ["22:00-07:00"]);
    const held = QuietHours.parse({ tz: "UTC", ranges: ["22:00-07:00"], messages: "hold" });
    expect(nights.messages).toBe("answer");
    expect(heldUntil(at("2026-01-05T23:30:00Z"), nights)).toBeNull();
    expect(heldUntil(at("2026-01-05T23:30:00Z"), undefined)).toBeNull();
    expect(heldUntil(at("2026-01-05T23:30:00Z"), held)).toBe(at("2026-01-06T07:00:00Z"));
    expect(heldUntil(at("2026-01-06T07:00:00Z"), held)).toBeNull();
  });

  it("refuses a zone it does not know and a range it cannot read, by field", () => {
    const r = PacingConfig.safeParse({ base_s: 5, cap_s: 300, ticks_per_level: 3, quiet: { tz: "Mars/Olympus", ranges: ["22:00-7:00", "09:00-09:00"] } });
    expect(r.success).toBe(false);
    const issues = r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(issues).toEqual([
      "quiet.tz: not a known time zone (e.g. Europe/Berlin, America/New_York, UTC)",
      'quiet.ranges.0: a range is "HH:MM-HH:MM", e.g. "22:00-07:00"',
      "quiet.ranges.1: a range must not start and end at the same minute",
    ]);
  });
});

/** A FAKE model: the inner life idles; the responder answers every message. */
const idle: ModelPort = {
  name: "scripted",
  async complete(req) {
    const usage = { input_tokens: 100, output_tokens: 10, usd: 0.0001 };
    if (req.instructions.includes("NO_REPLY")) return { ok: true, text: "I am here.", usage };
    if (req.instructions.includes("writing your own memory")) return { ok: true, text: "Notes.", usage };
    return { ok: true, text: "```bash\nFINAL=idle\n```", usage };
  },
};

describe("quiet hours, on the real mind", () => {
  it("makes no spontaneous wake inside them for two nights, answers a message at once inside them, and wakes again at their end", async () => {
    const r = checkScenario({
      name: "quiet nights",
      start: "2026-01-05T08:00:00Z",
      duration_h: 48,
      people: ["Ada"],
      persona: "You keep a small team's notes.",
      settings: { pacing: { base_s: 60, cap_s: 1800, quiet: { tz: "Europe/Berlin", ranges: ["22:00-07:00"] } } },
      // 23:30 in Berlin, the first night.
      events: [{ at_h: 14.5, from: "Ada", message: "Still up?", probe: { id: "night-answer", kind: "reply", within_h: 0.01 } }],
    });
    if (!r.ok) throw new Error(r.errors.join("\n"));
    const played = await playScenario({ scenario: r.scenario, model: idle, price: FREE, fixedCallS: 2 });
    const quiet = r.scenario.settings?.pacing?.quiet;
    if (!quiet) throw new Error("the scenario lost its quiet hours");
    const wakes = played.steps.filter((s) => s.type === "wake").map((s) => ({ at: Date.parse(s.ts), reason: String((s as { reason?: unknown }).reason) }));
    const inQuiet = wakes.filter((w) => quietUntil(w.at, quiet) !== null);
    // Inside the quiet: only the wake the message caused (and its own run's follow-ups are not spontaneous).
    expect(inQuiet.map((w) => w.reason).filter((reason) => reason !== "message")).toEqual([]);
    expect(inQuiet.length).toBeGreaterThan(0);
    // The message was answered within 36 s of simulated time, in the middle of the night.
    const answer = played.steps.find((s) => s.type === "message" && (s as { from?: string }).from === "Mind");
    expect(answer && Date.parse(answer.ts) - at("2026-01-05T22:30:00Z")).toBeLessThan(36_000);
    // Spontaneous wakes resume at 07:00 Berlin (06:00 UTC) each morning, and the days are lived.
    const mornings = ["2026-01-06T06:00:00Z", "2026-01-07T06:00:00Z"].map(at);
    for (const m of mornings) expect(wakes.some((w) => w.at >= m && w.at < m + 60_000 && w.reason === "scheduled")).toBe(true);
    expect(wakes.filter((w) => w.reason === "scheduled").length).toBeGreaterThan(40);
  }, 120_000);
});

describe("quiet hours that answer or hold messages, on the real mind", () => {
  // 23:30 in Berlin (22:30 UTC), inside its quiet hours, and 13:00 the next day, outside them.
  const NIGHT = at("2026-01-05T22:30:00Z");
  const MORNING = at("2026-01-06T06:00:00Z");
  const NOON = at("2026-01-06T12:00:00Z");
  const play = async (messages: "answer" | "hold") => {
    const r = checkScenario({
      name: "a message at night",
      start: "2026-01-05T20:00:00Z",
      duration_h: 17,
      people: ["Ada"],
      persona: "You keep a small team's notes.",
      settings: { pacing: { base_s: 60, cap_s: 1800, quiet: { tz: "Europe/Berlin", ranges: ["22:00-07:00"], messages } } },
      events: [
        { at_h: 2.5, from: "Ada", message: "Still up?" },
        { at_h: 16, from: "Ada", message: "Lunch?" },
      ],
    });
    if (!r.ok) throw new Error(r.errors.join("\n"));
    const played = await playScenario({ scenario: r.scenario, model: idle, price: FREE, fixedCallS: 2 });
    const quiet = r.scenario.settings?.pacing?.quiet;
    if (!quiet) throw new Error("the scenario lost its quiet hours");
    const [night, noon] = played.events.map((e) => e.stepId);
    const wakes = played.steps.filter((s) => s.type === "wake").map((s) => ({ at: Date.parse(s.ts), source: s.source, reason: String((s as { reason?: unknown }).reason), trigger: (s as { trigger_step?: string }).trigger_step }));
    const replies = (to: string | undefined) => played.steps.filter((s) => s.type === "message" && (s as { reply_to?: string }).reply_to === to).map((s) => Date.parse(s.ts));
    const decisions = (to: string | undefined) => played.steps.filter((s) => s.type === "observation" && (s as { decision?: string }).decision !== undefined && (s as { trigger_step?: string }).trigger_step === to);
    return { quiet, night, noon, wakes, inQuiet: wakes.filter((w) => quietUntil(w.at, quiet) !== null), replies, decisions };
  };

  it("answer: the message at night wakes the mind and is answered at once; the one at noon too", async () => {
    const p = await play("answer");
    expect(p.replies(p.night).map((t) => t - NIGHT)).toEqual([expect.any(Number)]);
    expect(p.replies(p.night)[0]! - NIGHT).toBeLessThan(36_000);
    // Inside the quiet: only the message's wakes, the responder's and the inner life's.
    expect(p.inQuiet.map((w) => [w.source, w.reason, w.trigger])).toEqual([
      [RESPONDER, "message", p.night],
      [INNER_LIFE, "message", p.night],
    ]);
    expect(p.replies(p.noon)[0]! - NOON).toBeLessThan(36_000);
  }, 120_000);

  it("hold: the message at night wakes nothing and waits unanswered until 07:00 in Berlin, then the mind wakes for it and answers it once; the one at noon is answered at once", async () => {
    const p = await play("hold");
    // Nothing at all inside the quiet stretch: no wake of the inner life's own, and none for the message.
    expect(p.inQuiet).toEqual([]);
    // Answered once, in the first minute after the stretch's end, with one decision.
    expect(p.replies(p.night)).toHaveLength(1);
    expect(p.replies(p.night)[0]! - MORNING).toBeGreaterThanOrEqual(0);
    expect(p.replies(p.night)[0]! - MORNING).toBeLessThan(60_000);
    expect(p.decisions(p.night).map((d) => (d as { decision?: string }).decision)).toEqual(["replied"]);
    // At 07:00 the responder wakes for it, and so does the inner life (its first wake of the morning, or the next if its own wait ended first).
    const morning = p.wakes.filter((w) => w.at >= MORNING && w.at < MORNING + 60_000);
    expect(morning.filter((w) => w.source === RESPONDER).map((w) => [w.reason, w.trigger])).toEqual([["message", p.night]]);
    expect(morning.filter((w) => w.source === INNER_LIFE).map((w) => [w.reason, w.trigger])).toContainEqual(["message", p.night]);
    // Outside the quiet stretch a message is answered as ever: at once.
    expect(p.replies(p.noon)).toHaveLength(1);
    expect(p.replies(p.noon)[0]! - NOON).toBeLessThan(36_000);
  }, 120_000);
});

describe("quiet hours and alarms", () => {
  /** A FAKE model whose inner life sets one alarm for 23:00 UTC on its first wake, then idles. */
  const alarmSetter = (): ModelPort => {
    let set = false;
    return {
      name: "scripted",
      async complete(req) {
        const usage = { input_tokens: 100, output_tokens: 10, usd: 0.0001 };
        if (req.instructions.includes("NO_REPLY") || req.instructions.includes("writing your own memory")) return { ok: true, text: "NO_REPLY", usage };
        if (!set) {
          set = true;
          return { ok: true, text: "```bash\nalarm at 23:00 check the oven\nFINAL=done\n```", usage };
        }
        return { ok: true, text: "```bash\nFINAL=idle\n```", usage };
      },
    };
  };
  const play = async (alarms: boolean) => {
    const r = checkScenario({
      name: "an alarm at night",
      start: "2026-01-05T20:00:00Z",
      duration_h: 14,
      people: ["Ada"],
      persona: "You keep a small team's notes.",
      settings: { pacing: { base_s: 60, cap_s: 1800, quiet: { tz: "UTC", ranges: ["22:00-07:00"], alarms } } },
      events: [],
    });
    if (!r.ok) throw new Error(r.errors.join("\n"));
    const played = await playScenario({ scenario: r.scenario, model: alarmSetter(), price: FREE, fixedCallS: 2 });
    return played.steps.filter((s) => s.type === "wake" && (s as { reason?: unknown }).reason === "alarm").map((s) => s.ts.slice(11, 16));
  };

  it("an alarm rings through quiet hours by default, and waits for their end when its human said not", async () => {
    expect(await play(true)).toEqual(["23:00"]);
    expect(await play(false)).toEqual(["07:00"]);
  }, 120_000);
});
