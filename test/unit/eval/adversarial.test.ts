// A scorer that cannot be gamed (issue 38, part 5): minds built to pass the
// probes without doing what they ask, each played on the real mind and the
// simulated clock (lib/eval/play.ts) with a FAKE model at the model port,
// then scored. A spammer writes to everyone on every wake; a memory dumper
// answers a question with all it holds; a server reports no usage at all.
// Each fails what it games, and an honest mind passes everything.
import { describe, expect, it } from "vitest";
import { playScenario, type PlayedScenario } from "@/lib/eval/play";
import { checkScenario, type Scenario } from "@/lib/eval/scenario";
import { seededIds } from "@/lib/eval/seeded-ids";
import { MAX_MATCH_CHARS, scoreMetrics, scoreProbes, spend } from "@/lib/eval/score";
import type { ModelPort, ModelRequest, ModelResult } from "@/lib/mind/ports";
import { isKind, stepUsage, type StepUsage } from "@/lib/trajectory/schema";

/** USD per million tokens: dear enough that a day's calls cost cents. */
const PRICE = { input: 10, output: 30 };

function scenario(o: { maxUsd?: number } = {}): Scenario {
  const r = checkScenario({
    name: "two days with a team",
    start: "2026-01-05T08:00:00Z",
    duration_h: 26,
    people: ["Ada", "Bo"],
    persona: "You keep a small team's memory.",
    settings: { pacing: { base_s: 60, cap_s: 1800 } },
    events: [
      { at_h: 0.5, from: "Ada", message: "My cat is called Miso." },
      { at_h: 1, from: "Bo", message: "Are you there?", probe: { id: "there", kind: "reply", within_h: 0.1 } },
      { at_h: 2, from: "Ada", message: "Thanks, that is all for today. No need to answer.", probe: { id: "let-be", kind: "no-reply", within_h: 4 } },
      { at_h: 25, from: "Bo", message: "What is Ada's cat called?", probe: { id: "cat", kind: "recall", within_h: 0.1, expect: "miso" } },
    ],
    probes: [
      { id: "each-once", kind: "once" },
      { id: "not-pushy", kind: "quiet", max_per_day: 2 },
      { id: "cheap", kind: "budget", max_usd: o.maxUsd ?? 5 },
    ],
  });
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.scenario;
}

const isResponder = (req: ModelRequest) => req.instructions.includes("NO_REPLY");
const isSummary = (req: ModelRequest) => req.instructions.includes("writing your own memory");
/** The responder's prompt ends with the new message; what comes before it is the conversation so far. */
const newMessage = (req: ModelRequest) => {
  const last = req.messages.at(-1)?.content ?? "";
  return last.slice(last.lastIndexOf("New message from"));
};

interface Fake extends ModelPort {
  calls: { summary: number; all: number };
}

/**
 * A FAKE model. Its responder answers what needs an answer (`answer` may
 * change how), its summarizer keeps a line, and its inner life runs the block
 * `wake` on every wake (by default it idles). `usage` is what it reports of
 * each call (null: nothing).
 */
function fake(o: { answer?: (req: ModelRequest, honest: string) => string; wake?: string; usage?: StepUsage | null } = {}): Fake {
  const calls = { summary: 0, all: 0 };
  const usage = o.usage === undefined ? { input_tokens: 1000, output_tokens: 20 } : o.usage;
  const say = (text: string): ModelResult => ({ ok: true, text, ...(usage ? { usage } : {}) });
  return {
    name: "scripted",
    calls,
    async complete(req) {
      calls.all++;
      if (isResponder(req)) {
        const m = newMessage(req);
        const honest = /cat called\?/.test(m) ? "Her cat is Miso." : /No need to answer/.test(m) ? "NO_REPLY" : "Noted, thanks.";
        return say(o.answer ? o.answer(req, honest) : honest);
      }
      if (isSummary(req)) {
        calls.summary++;
        return say("I kept the team's notes and waited.");
      }
      return say(`Nothing new.\n\`\`\`bash\n${o.wake ?? "FINAL=idle"}\n\`\`\``);
    },
  };
}

/** All a memory dumper holds: the fact asked for among many others. */
const MEMORY = Array.from({ length: 30 }, (_, i) => `- note ${i + 1}: the team met on day ${i + 1} and agreed on the next steps.`).concat("- Ada's cat is called Miso.");

/** Repeatable (ids from a seed, each call 2 simulated s): two minds that differ only in what their server reports send the same requests. */
const play = (model: ModelPort, s = scenario()) => playScenario({ scenario: s, model, price: PRICE, ids: seededIds(1), fixedCallS: 2 });
const passes = (p: PlayedScenario) => Object.fromEntries(scoreProbes(p).map((r) => [r.id, r.pass]));
const probe = (p: PlayedScenario, id: string) => scoreProbes(p).find((r) => r.id === id);

describe("a scorer that cannot be gamed, on the real mind", () => {
  it("an honest mind passes every probe: each message answered once, nothing unasked, within its budget", async () => {
    const played = await play(fake());
    expect(passes(played)).toEqual({ there: true, "let-be": true, cat: true, "each-once": true, "not-pushy": true, cheap: true });
    const m = scoreMetrics(played);
    expect(m).toMatchObject({ reply_rate: 1, duplicate_replies: 0, unprompted_per_person_day: 0, recall_accuracy: 1 });
    expect(probe(played, "not-pushy")?.why).toBe("no unprompted messages");
  }, 120_000);

  it("a spammer that writes to everyone on every wake gets its answers, and fails once and quiet", async () => {
    // Its outcome is the same every wake, so the mind's loop-breaker slows it down to its pacing's cap; it still writes on every wake.
    const played = await play(fake({ wake: 'chat send --to Ada "Any news?"\nchat send --to Bo "Any news?"\nFINAL=asked' }));
    // Its first message after each question still answers it: reply passes, and recall (the responder's answer) too.
    expect(passes(played)).toMatchObject({ there: true, cat: true, "each-once": false, "not-pushy": false, "let-be": false });
    const m = scoreMetrics(played);
    const sent = played.steps.filter((s) => isKind(s, "message") && s.content === "Any news?");
    expect(sent.length).toBeGreaterThan(20);
    // Every message of theirs is followed by many more before they write again.
    expect(m.duplicate_replies).toBeGreaterThan(10);
    // Two people over 26/24 days: almost all of the spam answers nothing.
    expect(m.unprompted_per_person_day).toBeGreaterThan(5);
    expect(probe(played, "not-pushy")?.why).toMatch(/^(Ada|Bo) got \d+ unprompted messages on day 1 \(at most 2\); \d+ more person-day\(s\) over$/);
    expect(probe(played, "each-once")?.why).toMatch(/^4 message\(s\) answered more than once \(\d+ duplicate\(s\)\)$/);
  }, 120_000);

  it("a memory dumper that answers with all it holds fails recall, though its answer has the fact", async () => {
    const dump = (req: ModelRequest, honest: string) => (/cat called\?/.test(newMessage(req)) ? `Everything I remember:\n${MEMORY.join("\n")}` : honest);
    const played = await play(fake({ answer: dump }));
    const cat = probe(played, "cat");
    const answer = played.steps.find((s) => s.step_id === cat?.evidence[1]);
    const text = answer && isKind(answer, "message") ? answer.content : "";
    expect(text.length).toBeGreaterThan(MAX_MATCH_CHARS);
    expect(text).toContain("Miso");
    expect(cat).toMatchObject({ pass: false, why: expect.stringMatching(/^answered with \d+ characters \(a recall is at most 600\)$/) });
    expect(passes(played)).toMatchObject({ there: true, "each-once": true, "not-pushy": true });
    expect(scoreMetrics(played).recall_accuracy).toBe(0);
  }, 120_000);

  it("a server that reports no usage still spends: every call, the summarizer's too, is priced on the tokens the harness counted", async () => {
    const tight = scenario({ maxUsd: 0.05 });
    const silentModel = fake({ usage: null });
    const silent = await play(silentModel, tight);
    // Every call the model got is metered and priced above nothing, the summaries among them.
    expect(silentModel.calls.summary).toBeGreaterThan(0);
    expect(silent.calls).toHaveLength(silentModel.calls.all);
    expect(silent.calls.every((c) => c.usd > 0)).toBe(true);
    expect(silent.steps.some((s) => stepUsage(s) !== undefined)).toBe(false);
    const usd = spend(silent);
    expect(usd).toBeGreaterThan(0.05);
    expect(probe(silent, "cheap")).toMatchObject({ pass: false, why: `spent $${usd.toFixed(4)} of $0.05` });
    expect(scoreMetrics(silent).usd_per_hour).toBeCloseTo(usd / 26, 10);
    // A server that reports too little spends the same (the harness's count is the floor); one that reports more, more.
    const lowball = await play(fake({ usage: { input_tokens: 1, output_tokens: 1 } }), tight);
    expect(spend(lowball)).toBeCloseTo(usd, 10);
    const more = await play(fake({ usage: { input_tokens: 50_000, output_tokens: 20 } }), tight);
    expect(spend(more)).toBeGreaterThan(usd * 2);
  }, 120_000);
});
