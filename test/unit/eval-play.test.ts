// lib/eval/play.ts: a scenario played by the real mind (the same wiring as a
// tab's and the server's) on the in-memory store, just-bash and the
// simulated clock, then scored. The model is a FAKE at the model port: a
// scripted mind whose behaviour is known, so the ruler can be trusted.
import { describe, expect, it } from "vitest";
import { playScenario } from "@/lib/eval/play";
import { checkScenario, type Scenario } from "@/lib/eval/scenario";
import { scoreMetrics, scoreProbes } from "@/lib/eval/score";
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
    const played = await playScenario({ scenario: scenario(), model });
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
    const a = scoreProbes(await playScenario({ scenario: scenario(), model: scripted(silent) }));
    const b = scoreProbes(await playScenario({ scenario: scenario(), model: scripted(silent) }));
    expect(a.map((p) => [p.id, p.pass])).toEqual([["cat", false], ["quiet", true], ["each-once", true], ["cheap", true]]);
    expect(b.map((p) => [p.id, p.pass])).toEqual(a.map((p) => [p.id, p.pass]));
  }, 120_000);

  it("scores the same whether the model is fast or slow (a slow call takes its real time, the waits are still skipped)", async () => {
    const fast = scripted(remembering);
    const slowInner = scripted(remembering);
    const slow: ModelPort = { name: "scripted-slow", complete: async (req) => (await new Promise((r) => setTimeout(r, 40)), slowInner.complete(req)) };
    const a = scoreProbes(await playScenario({ scenario: scenario(), model: fast }));
    const b = scoreProbes(await playScenario({ scenario: scenario(), model: slow }));
    expect(b.map((p) => [p.id, p.pass])).toEqual(a.map((p) => [p.id, p.pass]));
    expect(a.every((p) => p.pass)).toBe(true);
  }, 120_000);
});
