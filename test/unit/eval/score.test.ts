// lib/eval/score.ts: probes and figures from a played scenario. The
// trajectories here are written by hand, as a mind that behaves in a known
// way would leave them (the "trust in the ruler" at the scorer's
// level; the runner's own tests play scripted models through it).
import { describe, expect, it } from "vitest";
import { checkScenario, type Scenario } from "@/lib/eval/scenario";
import { EXAMPLE } from "../helpers/eval-example";
import { MAX_MATCH_CHARS, scoreMetrics, scoreProbes, spend, wakeLog, type FileWrite, type Played } from "@/lib/eval/score";
import type { Step } from "@/lib/trajectory/schema";

const START = Date.UTC(2026, 0, 5, 8);
const H = 3_600_000;
const ts = (h: number) => new Date(START + h * H).toISOString();
let n = 0;
const id = () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;

function scenario(): Scenario {
  // The example over 100 hours, with its run's own probes.
  const r = checkScenario({
    ...EXAMPLE,
    duration_h: 100,
    probes: [{ id: "each-once", kind: "once" }, { id: "cheap", kind: "budget", max_usd: 0.01 }],
  });
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.scenario;
}

/** A life: the scenario's messages as their steps, and what the mind wrote (`mind` adds its steps given the events' step ids). */
function life(mind: (ev: string[]) => Step[], files: FileWrite[] = [], s = scenario()): Played {
  const evIds = s.events.map(() => id());
  const incoming: Step[] = s.events.map((e, i) => ({ type: "message", step_id: evIds[i] as string, ts: ts(e.at_h), from: e.from, to: s.mind, content: e.message }));
  const steps = [...incoming, ...mind(evIds)].sort((a, b) => Date.parse(a.ts) - Date.parse(b.ts));
  return { scenario: s, startMs: START, steps, events: evIds.map((stepId, index) => ({ index, stepId })), files };
}

const say = (h: number, to: string, content: string, replyTo?: string): Step => ({ type: "message", step_id: id(), ts: ts(h), from: "Mind", to, content, ...(replyTo ? { reply_to: replyTo } : {}) });
const call = (h: number, usd: number): Step => ({ type: "thought", step_id: id(), ts: ts(h), content: "…", usage: { input_tokens: 100, output_tokens: 10, usd } });
const byId = (rs: ReturnType<typeof scoreProbes>) => Object.fromEntries(rs.map((r) => [r.id, r]));

describe("scoring a played scenario", () => {
  it("a mind that does everything right passes every probe, with its evidence", () => {
    const p = life((ev) => [
      call(0.51, 0.001),
      say(0.52, "Ada", "Miso, noted.", ev[0]),
      say(1.01, "Bo", "Yes, I'm here.", ev[1]),
      say(3.5, "Ada", "Fixed build.sh.", ev[3]),
      say(50.02, "Bo", "Her cat is Miso.", ev[4]),
    ], [{ path: "build.sh", atMs: START + 4 * H, text: "echo OK\n" }]);
    const r = byId(scoreProbes(p));
    expect(Object.values(r).map((x) => [x.id, x.pass])).toEqual([["reply-bo", true], ["quiet", true], ["fix", true], ["cat", true], ["each-once", true], ["cheap", true]]);
    expect(r["reply-bo"]?.at_h).toBe(1.01);
    expect(r["reply-bo"]?.evidence).toHaveLength(2);
    expect(r["fix"]?.at_h).toBe(4);
    const m = scoreMetrics(p);
    expect(m.reply_rate).toBe(1); // four asked (the FYI left out), four answered
    // First answers after 72, 36, 1,800 and 72 s: the median by nearest rank is 72 s, the 95th percentile the slowest.
    expect(m.first_response_s_p50).toBe(72);
    expect(m.first_response_s_p95).toBe(1800);
    expect(m.duplicate_replies).toBe(0);
    expect(m.recall_accuracy).toBe(1);
    expect(m.unprompted_done).toBe(1);
    expect(m.model_calls).toBe(1);
    expect(m.usd_per_hour).toBeCloseTo(0.001 / 100);
  });

  it("a mind that never answers fails every reply and recall, and passes no-reply", () => {
    const r = byId(scoreProbes(life(() => [])));
    expect(r["reply-bo"]).toMatchObject({ pass: false, at_h: null, why: "no answer to Bo within 0.05 h" });
    expect(r["cat"]?.pass).toBe(false);
    expect(r["quiet"]?.pass).toBe(true);
    expect(r["fix"]?.pass).toBe(false);
    expect(scoreMetrics(life(() => [])).reply_rate).toBe(0);
  });

  it("a mind that answers twice fails once, and counts the duplicates", () => {
    const p = life((ev) => [say(1.01, "Bo", "Yes.", ev[1]), say(1.02, "Bo", "Yes, again.", ev[1])]);
    const r = byId(scoreProbes(p));
    expect(r["each-once"]).toMatchObject({ pass: false, why: "1 message(s) answered more than once (1 duplicate(s))", at_h: 1.02 });
    expect(scoreMetrics(p).duplicate_replies).toBe(1);
  });

  it("a late answer, an answer without the fact, and an answer to the FYI each fail their probe", () => {
    const p = life((ev) => [say(1.5, "Bo", "Sorry, late.", ev[1]), say(2.5, "Bo", "Thanks for the FYI!", ev[2]), say(50.05, "Bo", "I don't remember.", ev[4])]);
    const r = byId(scoreProbes(p));
    expect(r["reply-bo"]?.pass).toBe(false);
    expect(r["quiet"]).toMatchObject({ pass: false, at_h: 2.5 });
    expect(r["cat"]).toMatchObject({ pass: false, why: "answered, without it" });
  });

  it("a reply to one message does not answer another, but a message to the person that replies to nothing does", () => {
    // The answer to Bo's FYI (ev[2]) at 1.02 h is not an answer to his question (ev[1]); a plain message to him is.
    const p = life((ev) => [say(1.02, "Bo", "Noted.", ev[2]), say(1.03, "Bo", "Here!")]);
    const r = byId(scoreProbes(p));
    expect(r["reply-bo"]).toMatchObject({ pass: true, at_h: 1.03 });
  });

  it("a file written before the mention, or past the deadline, does not count; spend over the cap fails budget", () => {
    const p = life(() => [call(10, 0.02)], [
      { path: "build.sh", atMs: START + 2 * H, text: "echo OK\n" },
      { path: "build.sh", atMs: START + 28 * H, text: "echo OK\n" },
    ]);
    const r = byId(scoreProbes(p));
    expect(r["fix"]?.pass).toBe(false);
    expect(r["cheap"]).toMatchObject({ pass: false, why: "spent $0.0200 of $0.01" });
  });

  it("logs every wake with what it did and what it cost, and sums idle and busy tokens per hour", () => {
    const usageOf = (i: number, o: number) => ({ usage: { input_tokens: i, output_tokens: o, usd: 0 } });
    const wake = (h: number, reason: string): Step => ({ type: "wake", step_id: id(), ts: ts(h), reason, level: 0, delay_s: 0 }) as Step;
    const reasoning = (h: number, cmd: string, i: number): Step => ({ type: "reasoning", step_id: id(), ts: ts(h), thought: "…", cmd, ...usageOf(i, 10) }) as Step;
    const output = (h: number, exec_s: number): Step => ({ type: "shell-output", step_id: id(), ts: ts(h), stdout: "", stderr: "", exit: 0, exec_s }) as Step;
    const p = life((ev) => [
      wake(0.1, "start"), reasoning(0.1, "echo hi >> notes.txt\nFINAL=done", 1000), output(0.1, 0.25),
      wake(0.6, "message"), say(0.6, "Ada", "Noted.", ev[0]),
      wake(10, "scheduled"), { type: "thought", step_id: id(), ts: ts(10), content: "Quiet.", ...usageOf(800, 20) } as Step,
      wake(20, "scheduled"), reasoning(20, "FINAL=idle", 700), output(20, 0.01),
    ]);
    p.calls = [{ atMs: START + 0.1 * H, ms: 1500, usd: 0 }, { atMs: START + 20 * H, ms: 250, usd: 0 }];
    expect(wakeLog(p)).toEqual([
      { at_h: 0.1, reason: "start", mode: "act", tokens: 1010, model_s: 1.5, exec_s: 0.25 },
      { at_h: 0.6, reason: "message", mode: "talk", tokens: 0, model_s: 0, exec_s: 0 },
      { at_h: 10, reason: "scheduled", mode: "think", tokens: 820, model_s: 0, exec_s: 0 },
      { at_h: 20, reason: "scheduled", mode: "idle", tokens: 710, model_s: 0.25, exec_s: 0.01 },
    ]);
    const m = scoreMetrics(p);
    // Over the scenario's 100 hours.
    expect(m.tokens_per_hour_idle).toBe(7);
    expect(m.tokens_per_hour_busy).toBe(18);
    expect(m.context_tokens_p50).toBe(800);
    expect(m.context_tokens_max).toBe(1000);
  });
});

/** Two days of three people: Bo asks, Ada asks the mind to pass something on to Bo; Cy writes on day 2. */
function team(): Scenario {
  const r = checkScenario({
    name: "a team's day",
    start: "2026-01-05T08:00:00Z",
    duration_h: 48,
    people: ["Ada", "Bo", "Cy"],
    persona: "You help a team.",
    events: [
      { at_h: 1, from: "Bo", message: "Are you there?", probe: { id: "there", kind: "reply", within_h: 0.1 } },
      { at_h: 2, from: "Ada", message: "Tell Bo lunch is at 13:00.", probe: { id: "pass-on", kind: "unprompted", within_h: 1, to: "Bo", expect: "13:00" } },
      { at_h: 27, from: "Cy", message: "Hello, I'm new here.", probe: { id: "cy-once", kind: "once" } },
    ],
    probes: [{ id: "each-once", kind: "once" }, { id: "not-pushy", kind: "quiet", max_per_day: 1 }],
  });
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.scenario;
}

describe("what the scorer counts as an answer, a duplicate and an unprompted message (issue 38)", () => {
  it("a plain message after a question answers it, and every further one before they write again is a duplicate", () => {
    // A mind that writes to Bo on every wake: its first message answers him, the rest are counted.
    const p = life(() => [say(1.01, "Bo", "Here!"), say(1.2, "Bo", "Still here?"), say(1.4, "Bo", "Anything?")]);
    const r = byId(scoreProbes(p));
    expect(r["reply-bo"]).toMatchObject({ pass: true, at_h: 1.01 });
    expect(r["each-once"]).toMatchObject({ pass: false, at_h: 1.2, why: "1 message(s) answered more than once (2 duplicate(s))" });
    expect(r["each-once"]?.evidence).toHaveLength(3);
    expect(scoreMetrics(p).duplicate_replies).toBe(2);
  });

  it("the answer is the first message that replies to the question, even after a plain one, which is then a duplicate", () => {
    const p = life((ev) => [say(1.01, "Bo", "One moment."), say(1.1, "Bo", "Yes, I can.", ev[1])]);
    const r = byId(scoreProbes(p));
    // The reply came 6 minutes after the question: later than reply-bo's 3 minutes.
    expect(r["reply-bo"]).toMatchObject({ pass: false });
    expect(r["each-once"]).toMatchObject({ pass: false, at_h: 1.01 });
  });

  it("two questions answered in turn by their replies, or both by one plain message, have no duplicates", () => {
    const p = life((ev) => [say(1.01, "Bo", "Yes.", ev[1]), say(3.02, "Ada", "Miso, noted; and I'll look at build.sh.")]);
    expect(byId(scoreProbes(p))["each-once"]?.pass).toBe(true);
    const m = scoreMetrics(p);
    expect(m.duplicate_replies).toBe(0);
    expect(m.unprompted_per_person_day).toBe(0);
    // Ada's two messages (0.5 h and 3 h) both answered at 3.02 h: 9,072 s and 72 s.
    expect([m.first_response_s_p50, m.first_response_s_p95]).toEqual([72, 9072]);
  });

  it("passing on what someone else asked is no duplicate but is unprompted; quiet counts them per person and day", () => {
    const p = life(
      (ev) => [
        say(1.01, "Bo", "Yes.", ev[0]),
        say(2.01, "Ada", "Will do.", ev[1]),
        say(2.1, "Bo", "Ada says lunch is at 13:00."),
        say(2.2, "Bo", "Did you see?"),
        say(27.01, "Cy", "Welcome, Cy!"),
        say(27.5, "Cy", "And another thing."),
      ],
      [],
      team(),
    );
    const r = byId(scoreProbes(p));
    expect(r["there"]?.pass).toBe(true);
    expect(r["pass-on"]).toMatchObject({ pass: true, at_h: 2.1 });
    // Only the second message to Bo before he wrote again is one too many; and Cy's second.
    expect(r["cy-once"]).toMatchObject({ pass: false, at_h: 27.5, why: "1 more message(s) to Cy before they wrote again" });
    expect(r["cy-once"]?.evidence).toHaveLength(3);
    expect(r["each-once"]).toMatchObject({ pass: false, at_h: 2.2, why: "2 message(s) answered more than once (2 duplicate(s))" });
    // Bo got two messages he did not ask for on day 1 (one past the limit); Cy one on day 2.
    expect(r["not-pushy"]).toMatchObject({ pass: false, at_h: 2.2, why: "Bo got 2 unprompted messages on day 1 (at most 1)", asked_h: null });
    expect(r["not-pushy"]?.evidence).toHaveLength(1);
    const m = scoreMetrics(p);
    expect(m.duplicate_replies).toBe(2);
    // Three messages answering nothing, over three people and two days.
    expect(m.unprompted_per_person_day).toBe(0.5);
  });

  it("a message answered once passes once on its event", () => {
    expect(byId(scoreProbes(life((ev) => [say(27.01, "Cy", "Welcome, Cy!", ev[2])], [], team())))["cy-once"]).toMatchObject({ pass: true, at_h: null, why: "answered once" });
  });

  it("quiet passes when nobody gets more than max_per_day unprompted messages on a day, and says the most anyone got", () => {
    const p = life(() => [say(3, "Cy", "Hello Cy!"), say(25, "Cy", "Good morning, Cy."), say(26, "Ada", "Hi Ada.")], [], team());
    expect(byId(scoreProbes(p))["not-pushy"]).toMatchObject({ pass: true, at_h: null, evidence: [], why: "at most 1 unprompted message(s) to anyone on a day (1 allowed)" });
    expect(byId(scoreProbes(life(() => [], [], team())))["not-pushy"]).toMatchObject({ pass: true, why: "no unprompted messages" });
  });

  it(`recall passes only on an answer of at most ${MAX_MATCH_CHARS} characters; unprompted's message likewise`, () => {
    const of = (n: number) => `Her cat is Miso.${" And more.".repeat(100)}`.slice(0, n);
    const recall = (n: number) => byId(scoreProbes(life((ev) => [say(50.02, "Bo", of(n), ev[4])])))["cat"];
    expect(recall(MAX_MATCH_CHARS)).toMatchObject({ pass: true, why: "the answer has it" });
    expect(recall(MAX_MATCH_CHARS + 1)).toMatchObject({ pass: false, at_h: 50.02, why: "answered with 601 characters (a recall is at most 600)" });
    const told = (text: string) => byId(scoreProbes(life(() => [say(2.1, "Bo", text)], [], team())))["pass-on"]?.pass;
    expect(told("Lunch is at 13:00.")).toBe(true);
    expect(told(`Lunch is at 13:00.${" Also this.".repeat(60)}`)).toBe(false);
  });

  it("budget and usd_per_hour count every call the home metered, not what the steps say", () => {
    // The steps report nothing spent; the metered calls (a summarizer's among them) cost 2 cents.
    const p = life(() => [call(10, 0)]);
    p.calls = [{ atMs: START + 10 * H, ms: 100, usd: 0.015 }, { atMs: START + 60 * H, ms: 100, usd: 0.005 }];
    expect(byId(scoreProbes(p))["cheap"]).toMatchObject({ pass: false, why: "spent $0.0200 of $0.01" });
    expect(spend(p, START + 24 * H)).toBeCloseTo(0.015);
    expect(scoreMetrics(p).usd_per_hour).toBeCloseTo(0.02 / 100);
  });
});
