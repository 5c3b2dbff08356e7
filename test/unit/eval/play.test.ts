// lib/eval/play.ts: a scenario played by the real mind (the same wiring as a
// tab's and the server's) on the in-memory store, just-bash and the
// simulated clock, then scored. The model is a FAKE at the model port: a
// scripted mind whose behaviour is known, so the ruler can be trusted.
import { describe, expect, it } from "vitest";
import { playScenario } from "@/lib/eval/play";
import { checkScenario, type Scenario } from "@/lib/eval/scenario";
import { runResults } from "@/lib/eval/run-results";
import { scoreMetrics, scoreProbes } from "@/lib/eval/score";
import { seededIds } from "@/lib/eval/seeded-ids";
import type { ModelPort, ModelRequest } from "@/lib/mind/ports";

function scenario(): Scenario {
  const r = checkScenario({
    name: "a morning with memory",
    start: "2026-01-05T08:00:00Z",
    duration_h: 3,
    people: ["Ada", "Bo"],
    persona: "You keep a small team's memory.",
    settings: { pacing: { base_s: 60, cap_s: 900 } },
    workspace: { "notes/README.md": "# Notes\n" },
    events: [
      { at_h: 0.5, from: "Ada", message: "My cat is called Miso." },
      { at_h: 1, from: "Bo", message: "What is Ada's cat called?", probe: { id: "cat", kind: "recall", within_h: 0.1, expect: "miso" } },
      { at_h: 2, from: "Bo", message: "FYI only, no need to answer.", probe: { id: "quiet", kind: "no-reply", within_h: 0.5 } },
    ],
    probes: [{ id: "each-once", kind: "once" }, { id: "cheap", kind: "budget", max_usd: 1 }],
  });
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.scenario;
}

/** What the play prices every call at (USD per million tokens), on the larger of the reported and the counted tokens. */
const PRICE = { input: 0.15, output: 0.6 };

const lastUser = (req: ModelRequest) => [...req.messages].reverse().find((m) => m.role === "user")?.content ?? "";

/** A FAKE model: `answer` decides the responder's reply to a message; the inner life writes a note and idles. */
function scripted(answer: (message: string) => string): ModelPort & { calls: number } {
  const port = {
    name: "scripted",
    calls: 0,
    async complete(req: ModelRequest) {
      port.calls++;
      const usage = { input_tokens: 200, output_tokens: 20, usd: 0.0001 };
      if (req.instructions.includes("NO_REPLY")) return { ok: true as const, text: answer(lastUser(req)), usage };
      if (req.instructions.includes("writing your own memory")) return { ok: true as const, text: "I kept notes.", usage };
      return { ok: true as const, text: "Nothing new.\n```bash\necho checked >> notes/log.txt\nFINAL=idle\n```", usage };
    },
  };
  return port;
}

/** A mind that remembers: it answers Bo's question from what Ada said, and lets an FYI be. */
const remembering = (message: string) => (/FYI/.test(message) ? "NO_REPLY" : /cat called\?/.test(message) ? "Her cat is Miso." : "Noted, thanks.");

describe("playing a scenario", () => {
  it("plays three simulated hours on the real mind and scores what it did", async () => {
    const model = scripted(remembering);
    const played = await playScenario({ scenario: scenario(), price: PRICE, model });
    expect(played.reachedH).toBe(3);
    expect(played.events).toHaveLength(3);
    const probes = Object.fromEntries(scoreProbes(played).map((p) => [p.id, p]));
    expect(probes["cat"]).toMatchObject({ pass: true });
    expect(probes["cat"]?.at_h).toBeGreaterThanOrEqual(1);
    expect(probes["cat"]?.at_h).toBeLessThan(1.1);
    expect(probes["quiet"]?.pass).toBe(true);
    expect(probes["each-once"]?.pass).toBe(true);
    expect(probes["cheap"]?.pass).toBe(true);
    // The inner life lived through the morning in simulated time: its wakes are spread over the three hours, and its blocks wrote to the workspace.
    const wakes = played.steps.filter((s) => s.type === "wake").map((s) => (Date.parse(s.ts) - played.startMs) / 3_600_000);
    expect(wakes.length).toBeGreaterThan(3);
    expect(Math.max(...wakes)).toBeGreaterThan(2);
    expect(played.files.some((f) => f.path === "notes/log.txt" && f.text.includes("checked"))).toBe(true);
    const m = scoreMetrics(played);
    expect(m.reply_rate).toBe(1);
    expect(m.duplicate_replies).toBe(0);
    // Every call the model got, the summarizer's too.
    expect(m.model_calls).toBe(model.calls);
  }, 120_000);

  it("a mind that never answers fails recall, and the same scenario scores the same twice", async () => {
    const silent = () => "NO_REPLY";
    const a = scoreProbes(await playScenario({ scenario: scenario(), price: PRICE, model: scripted(silent) }));
    const b = scoreProbes(await playScenario({ scenario: scenario(), price: PRICE, model: scripted(silent) }));
    expect(a.map((p) => [p.id, p.pass])).toEqual([["cat", false], ["quiet", true], ["each-once", true], ["cheap", true]]);
    expect(b.map((p) => [p.id, p.pass])).toEqual(a.map((p) => [p.id, p.pass]));
  }, 120_000);

  it("scores the same whether the model is fast or slow (a slow call takes its real time, the waits are still skipped)", async () => {
    const fast = scripted(remembering);
    const slowInner = scripted(remembering);
    const slow: ModelPort = { name: "scripted-slow", complete: async (req) => (await new Promise((r) => setTimeout(r, 40)), slowInner.complete(req)) };
    const a = scoreProbes(await playScenario({ scenario: scenario(), price: PRICE, model: fast }));
    const b = scoreProbes(await playScenario({ scenario: scenario(), price: PRICE, model: slow }));
    expect(b.map((p) => [p.id, p.pass])).toEqual(a.map((p) => [p.id, p.pass]));
    expect(a.every((p) => p.pass)).toBe(true);
  }, 120_000);
});

/** A scenario with two questions that want an answer and a fact to remember across a day. */
function memoryScenario(): Scenario {
  const r = checkScenario({
    name: "a day's memory",
    start: "2026-01-05T08:00:00Z",
    duration_h: 26,
    people: ["Ada", "Bo"],
    persona: "You keep a small team's memory.",
    settings: { pacing: { base_s: 60, cap_s: 1800 } },
    events: [
      { at_h: 0.5, from: "Ada", message: "My cat is called Miso." },
      { at_h: 1, from: "Bo", message: "Are you there?", probe: { id: "there", kind: "reply", within_h: 0.1 } },
      { at_h: 2, from: "Ada", message: "Can you hear me?", probe: { id: "hear", kind: "reply", within_h: 0.1 } },
      { at_h: 25, from: "Bo", message: "What is Ada's cat called?", probe: { id: "cat", kind: "recall", within_h: 0.1, expect: "miso" } },
    ],
    probes: [{ id: "each-once", kind: "once" }],
  });
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.scenario;
}

/**
 * A FAKE model whose inner life keeps facts with `mem` (when `stores`) and
 * answers a question from what `mem search` finds, with `chat send`. Its
 * responder answers what it can from the message alone, and leaves Bo's
 * question to the inner life. The rest of the day it idles.
 */
function memoryModel(o: { stores: boolean; answers?: boolean; replyTwice?: boolean }): ModelPort {
  const usage = { input_tokens: 100, output_tokens: 10, usd: 0.0001 };
  const say = (text: string) => ({ ok: true as const, text, usage });
  return {
    name: "scripted-memory",
    async complete(req) {
      const last = req.messages.at(-1)?.content ?? "";
      // The responder's prompt ends with the new message; what comes before it is the conversation so far.
      if (req.instructions.includes("NO_REPLY")) return say(o.answers === false || /cat called\?|Miso/.test(last.slice(last.lastIndexOf("New message from"))) ? "NO_REPLY" : "Yes, I am here.");
      if (req.instructions.includes("writing your own memory")) return say("I kept notes.");
      if (/^\[output exit=0\][\s\S]*Ada's cat is called Miso/.test(last)) return say('```bash\nchat send --to Bo "Ada\'s cat is called Miso."\nFINAL=done\n```');
      if (/^\[output exit=1\][\s\S]*mem search/.test(last)) return say('```bash\nchat send --to Bo "I do not remember."\nFINAL=done\n```');
      if (/What is Ada's cat called\?/.test(last)) return say("```bash\nmem search cat\n```");
      if (o.stores && /My cat is called Miso\./.test(last)) return say("```bash\nmem add \"Ada's cat is called Miso\"\nFINAL=done\n```");
      // A mind that tries to answer again what its responder answered: the inner life may not reply (only the responder does, once).
      if (o.replyTwice && /\[message [0-9a-f-]+ from (Ada|Bo) to Mind\]/.test(last)) return say("```bash\nchat reply Bo 'Yes, I am here (again).'\nchat reply Ada 'Yes, I am here (again).'\nFINAL=done\n```");
      return say("```bash\nFINAL=idle\n```");
    },
  };
}

const passes = (probes: { id: string; pass: boolean }[]) => Object.fromEntries(probes.map((p) => [p.id, p.pass]));

describe("trusting the ruler: minds whose behaviour is known, on the real mind", () => {
  it("a mind that stores a fact with mem and reads it back a day later passes recall; one that does not store it fails", async () => {
    const keeps = await playScenario({ scenario: memoryScenario(), price: PRICE, model: memoryModel({ stores: true }), fixedCallS: 2 });
    const forgets = await playScenario({ scenario: memoryScenario(), price: PRICE, model: memoryModel({ stores: false }), fixedCallS: 2 });
    expect(passes(scoreProbes(keeps))).toEqual({ there: true, hear: true, cat: true, "each-once": true });
    const lost = scoreProbes(forgets).find((p) => p.id === "cat");
    expect(lost).toMatchObject({ pass: false, why: "answered, without it" });
    // The memory is a file in the workspace, written on day 1 and read on day 2.
    expect(keeps.files.some((f) => f.path.startsWith("memory/") && f.text.includes("Miso"))).toBe(true);
    expect(forgets.files.some((f) => f.path.startsWith("memory/"))).toBe(false);
    expect(scoreMetrics(keeps).recall_accuracy).toBe(1);
    expect(scoreMetrics(forgets).recall_accuracy).toBe(0);
  }, 120_000);

  it("a mind that never answers fails every reply", async () => {
    const played = await playScenario({ scenario: memoryScenario(), price: PRICE, model: memoryModel({ stores: true, answers: false }), fixedCallS: 2 });
    const probes = passes(scoreProbes(played));
    expect(probes).toMatchObject({ there: false, hear: false });
    expect(scoreMetrics(played).reply_rate).toBeLessThan(1);
  }, 120_000);

  it("a mind that tries to answer twice is held to once by its responder: the inner life's replies are refused, and once passes", async () => {
    const played = await playScenario({ scenario: memoryScenario(), price: PRICE, model: memoryModel({ stores: true, replyTwice: true }), fixedCallS: 2 });
    expect(passes(scoreProbes(played))["each-once"]).toBe(true);
    expect(scoreMetrics(played).duplicate_replies).toBe(0);
    const refused = played.steps.filter((s) => s.type === "shell-output" && String((s as { stderr?: string }).stderr).includes("replies to messages are the responder's"));
    expect(refused.length).toBeGreaterThan(0);
  }, 120_000);

  it("the same seed gives the same results twice, step ids and all, however fast the model; another seed gives other ids", async () => {
    const play = (seed: number, model = memoryModel({ stores: true })) =>
      playScenario({ scenario: memoryScenario(), price: PRICE, model, ids: seededIds(seed), fixedCallS: 2 }).then((p) => {
        const r = runResults(p, { model: "scripted", seed, label: "", set: {}, wallS: 0 });
        // What the machine measured (real seconds) differs run to run; everything the mind did must not.
        return { ...r, wakes: r.wakes.map(({ model_s: _m, exec_s: _e, ...w }) => w) };
      });
    const fast = memoryModel({ stores: true });
    const slow: ModelPort = { name: fast.name, complete: async (req) => (await new Promise((r) => setTimeout(r, 15)), fast.complete(req)) };
    const [a, b, c, d] = [await play(42), await play(42), await play(43), await play(42, slow)];
    expect(b).toEqual(a);
    expect(d).toEqual(a);
    expect(a.probes.every((p) => p.pass)).toBe(true);
    expect(c.probes.map((p) => p.pass)).toEqual(a.probes.map((p) => p.pass));
    expect(c.probes[0]?.evidence).not.toEqual(a.probes[0]?.evidence);
  }, 180_000);
});
