// A simulated week of a mind's life: wakes at the inner life's real pace (no
// pause after work, then 5, 10, 20 … up to 300 s when idle), runs that think,
// act or rest, and people writing in the daytime, with a scripted summarizer
// (deterministic first-person text) sealing each block as it completes, as the
// live one does between runs. Each wake's first model call is built as
// lib/mind/run/run.ts builds it (SealedPast.source over the tail of 300 steps).
// The trajectory grows by the day; the context per wake must level off.
import { describe, expect, it } from "vitest";
import { buildContext, DEFAULT_BUDGET, IDLE_BUDGET, type BuiltContext } from "@/lib/context/build";
import { SealedPast, type StreamKey } from "@/lib/context/sealed-past";
import { blockRange, DEFAULT_TIERS } from "@/lib/context/staircase";
import { TokenCounter } from "@/lib/context/tokens";
import { taskText } from "@/lib/mind/run/prompt";
import { parseStep, type Step } from "@/lib/trajectory/schema";

const DAY = 86_400_000;
const T0 = Date.parse("2026-03-02T00:00:00.000Z"); // a Monday
const SELF = "wren";
const TAIL = 300;
const OVER = "over the token budget";

function rng(seed: number) {
  let s = seed;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
}

/** Deterministic ids: the first 8 hex differ from step to step. */
const uuid = (n: number) => `${n.toString(16).padStart(8, "0")}-0000-4000-8000-${(n * 2654435761 % 0xffffffffffff).toString(16).padStart(12, "0")}`;

interface Wake {
  day: number;
  reason: "scheduled" | "message";
  context: BuiltContext;
  steps: number;
}

function simulateWeek(): { wakes: Wake[]; past: SealedPast; raw: number } {
  const next = rng(20260302);
  const pick = <T,>(a: readonly T[]) => a[Math.floor(next() * a.length)] as T;
  const words = "tide moon garden seed rain lamp river stone parser column header table bird wren draft verse link error cache note plan".split(" ");
  const phrase = (n: number) => Array.from({ length: n }, () => pick(words)).join(" ");
  const past = new SealedPast(DEFAULT_TIERS);
  const counter = new TokenCounter();
  const log: Step[] = [];
  let seq = 0;
  let t = T0;
  let n = 0;
  const keys: StreamKey[] = [];
  const add = (fields: Record<string, unknown>): Step => {
    t += 300 + Math.floor(next() * 3000);
    const parsed = parseStep({ step_id: uuid(++n), ts: new Date(t).toISOString(), ...fields });
    if (!parsed.ok) throw new Error(parsed.error);
    log.push(parsed.step);
    keys.push({ seq: ++seq, type: parsed.step.type, step_id: parsed.step.step_id });
    return parsed.step;
  };
  // The scripted summarizer: every pending block, in the order the live one takes them, sealed with a line in the mind's voice.
  const summarize = () => {
    past.extend(keys.splice(0));
    for (let block = past.pending()[0]; block; block = past.pending()[0]) {
      const { from, to } = blockRange(block, DEFAULT_TIERS);
      const ids = past.ids(from, to);
      const content = `I spent steps ${ids[0]?.slice(0, 8)}…${ids[ids.length - 1]?.slice(0, 8)} on ${phrase(3)}; I decided to ${phrase(4)} because ${phrase(5)} [${ids[0]?.slice(0, 8)}].`;
      past.accept({ tier: block.tier, index: block.index, content, cites: [ids[0] as string], first_step: ids[0] as string, last_step: ids[ids.length - 1] as string, steps: to - from });
    }
  };
  add({ type: "trajectory", name: SELF });
  past.loaded = true;
  const wakes: Wake[] = [];
  let level = 0;
  let nextMessage = T0 + 8 * 3_600_000;
  while (t < T0 + 7 * DAY) {
    const hour = new Date(t).getUTCHours();
    const message = t >= nextMessage && hour >= 8 && hour < 22;
    if (message) {
      nextMessage = t + (20 + next() * 120) * 60_000;
      const m = add({ type: "message", from: pick(["ada", "sam"]), to: SELF, content: `Hi ${SELF}, ${phrase(8)}?`, source: "chat" });
      add({ type: "wake", reason: "message", level: 0, delay_s: 0, trigger_step: m.step_id, source: "responder" });
      add({ type: "message", from: SELF, to: "ada", content: `I ${phrase(10)}.`, reply_to: m.step_id, source: "chat" });
      add({ type: "observation", decision: "replied", content: "I answered.", trigger_step: m.step_id, source: "responder" });
      level = 0;
    }
    const reason = message ? "message" : "scheduled";
    const wake = add({ type: "wake", reason, level, delay_s: 0, source: "monolith" });
    const run = add({ type: "shellm-run", model: "mock/model", trigger_step: wake.step_id, wake: wake.step_id, launched_by: "monolith" });
    const inRun = (f: Record<string, unknown>) => add({ ...f, run_id: run.step_id, trigger_step: wake.step_id });
    const prompt = inRun({ type: "prompt", content: taskText(message ? { reason: "scheduled", level: 0 } : { reason: "scheduled", level }) });
    // The wake's first call, as run.ts builds it.
    past.extend(keys.splice(0));
    const context = buildContext(past.source(log.slice(-TAIL)), {
      selfName: SELF,
      budget: reason === "scheduled" ? IDLE_BUDGET : DEFAULT_BUDGET,
      tiers: past.tiers,
      summary: past.summary,
      missing: past.missing,
      counter,
      pinned: prompt,
    });
    wakes.push({ day: Math.floor((t - T0) / DAY), reason, context, steps: log.length });
    // Now and then it finds something to do (more often by day); otherwise the wake is idle and the pause grows.
    const work = message || next() < (hour >= 8 && hour < 22 ? 0.02 : 0.005);
    const iterations = work ? 1 + Math.floor(next() * 4) : 1;
    for (let i = 0; i < iterations; i++) {
      inRun({ type: "reasoning", thought: `${work ? "Let me" : "Quiet; I check"} ${phrase(8)}.`, cmd: `grep -n ${pick(words)} notes/*.md | head`, in_tok: 3000, out_tok: 80 });
      inRun({ type: "shell-output", stdout: Array.from({ length: 1 + Math.floor(next() * 12) }, () => phrase(7)).join("\n"), stderr: "", exit: 0, exec_s: 0.05, timed_out: false });
    }
    inRun({ type: "final", content: work ? `act: ${phrase(5)}` : "idle" });
    add(work ? { type: "observation", content: `act: ${phrase(6)}`, source: "monolith" } : { type: "idle", content: "Nothing needed doing.", source: "monolith" });
    // Between runs the summarizer seals what completed.
    summarize();
    level = work ? 0 : Math.min(level + (next() < 1 / 3 ? 1 : 0), 7);
    t += (level === 0 ? 0 : Math.min(5 * 2 ** (level - 1), 300)) * 1000;
  }
  return { wakes, past, raw: log.length };
}

describe("a simulated week of a mind", () => {
  it("the context per wake levels off while the trajectory grows", () => {
    const { wakes, past, raw } = simulateWeek();
    const days = Array.from({ length: 7 }, (_, d) => {
      const of = wakes.filter((w) => w.day === d);
      const tokens = (r: string) => of.filter((w) => w.reason === r).map((w) => w.context.tokens);
      const staircase = of.map((w) => w.context.parts.filter((p) => p.kind === "tier").reduce((a, p) => a + p.tokens, 0));
      return {
        day: d + 1,
        steps: Math.max(...of.map((w) => w.steps)),
        wakes: of.length,
        idleMax: Math.max(...tokens("scheduled")),
        messageMax: Math.max(0, ...tokens("message")),
        staircaseMax: Math.max(...staircase),
        tierParts: Math.max(...of.map((w) => w.context.parts.filter((p) => p.kind === "tier").length)),
        // Elided because a block had no summary: the summarizer did not keep up.
        unsealed: of.filter((w) => w.context.parts.some((p) => p.kind === "elided" && p.reason !== OVER)).length,
        // The oldest tiers folded to fit the budget (an idle wake's first call has only IDLE_BUDGET).
        foldedIdle: of.filter((w) => w.reason === "scheduled" && w.context.parts.some((p) => p.kind === "elided" && p.reason === OVER)).length,
        foldedMessage: of.filter((w) => w.reason === "message" && w.context.parts.some((p) => p.kind === "elided")).length,
      };
    });
    console.log(`A simulated week: ${raw.toLocaleString("en-US")} steps, ${past.length.toLocaleString("en-US")} in the stream, ${past.sealedCount.toLocaleString("en-US")} sealed summaries`);
    console.log("day   steps  wakes  idle max  message max  staircase max  tier parts  idle wakes folded");
    for (const d of days) console.log(`${String(d.day).padStart(3)} ${String(d.steps).padStart(7)} ${String(d.wakes).padStart(6)} ${String(d.idleMax).padStart(9)} ${String(d.messageMax).padStart(12)} ${String(d.staircaseMax).padStart(14)} ${String(d.tierParts).padStart(11)} ${String(d.foldedIdle).padStart(18)}`);

    const second = days[1] as (typeof days)[number];
    const last = days[6] as (typeof days)[number];
    // A week at the real pace is thousands of wakes and the log grows day by day.
    expect(raw).toBeGreaterThan(10_000);
    expect(last.steps).toBeGreaterThan(3 * second.steps);
    // Every block was sealed as it completed: no wake saw a block elided for want of a summary, and a message's wake (the whole budget) saw the whole past.
    expect(days.every((d) => d.unsealed === 0 && d.foldedMessage === 0)).toBe(true);
    // Levelling off: the staircase grows with the number of tiers, not the steps (at most F-1 parts per tier, plus the ones at the tail's edge).
    const tiersNow = Math.floor(Math.log10(past.length));
    expect(last.tierParts).toBeLessThanOrEqual((DEFAULT_TIERS.fanout - 1) * tiersNow + DEFAULT_TIERS.fanout);
    // The last day's largest context is no larger than the second day's by more than a few summaries, while the log is over three times as long.
    expect(last.staircaseMax).toBeLessThanOrEqual(second.staircaseMax * 1.5);
    expect(last.idleMax).toBeLessThanOrEqual(IDLE_BUDGET);
    expect(last.messageMax).toBeLessThanOrEqual(second.messageMax * 1.25);
  }, 60_000);
});
