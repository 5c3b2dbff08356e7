// The Context tab's list of runs (components/context-tab/runs.ts): newest
// first, each with its time, what woke it and its model calls, checked whole.
import { describe, expect, it } from "vitest";
import { runItems } from "@/components/context-tab/runs";
import { formatTs, type Step } from "@/lib/trajectory/schema";
import { timelineOf } from "@/lib/trajectory/timeline";

const T0 = Date.parse("2026-03-01T10:00:00.000Z");
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const at = (s: number) => formatTs(T0 + s * 1000);
const usage = { input_tokens: 100, output_tokens: 10 };

const steps: Step[] = [
  { type: "wake", step_id: id(1), ts: at(1), reason: "start", level: 0, delay_s: 0, source: "monolith" },
  { type: "shellm-run", step_id: id(2), ts: at(1), launched_by: "monolith", wake: id(1) },
  { type: "reasoning", step_id: id(3), ts: at(2), run_id: id(2), thought: "t", cmd: "shellm 'count'", usage },
  // A nested run inside it, with a call of its own.
  { type: "shellm-run", step_id: id(4), ts: at(3), launched_by: "shellm" },
  { type: "reasoning", step_id: id(5), ts: at(4), run_id: id(4), thought: "t", cmd: "FINAL=3", usage },
  { type: "final", step_id: id(6), ts: at(4), run_id: id(4), content: "3" },
  { type: "reasoning", step_id: id(7), ts: at(5), run_id: id(2), thought: "t", cmd: "FINAL=done", usage },
  { type: "final", step_id: id(8), ts: at(5), run_id: id(2), content: "done" },
  { type: "message", step_id: id(9), ts: at(10), content: "hi", from: "Ada", to: "Mo", source: "chat" },
  { type: "wake", step_id: id(10), ts: at(11), reason: "message", level: 0, delay_s: 0, trigger_step: id(9), source: "monolith" },
  { type: "shellm-run", step_id: id(11), ts: at(11), launched_by: "monolith", wake: id(10) },
  { type: "error", step_id: id(12), ts: at(12), run_id: id(11), content: "model failed", reason: "model" },
  // Same second as the one before: the later header is the newer run.
  { type: "wake", step_id: id(13), ts: at(12), reason: "scheduled", level: 1, delay_s: 5, source: "monolith" },
  { type: "shellm-run", step_id: id(14), ts: at(12), launched_by: "monolith", wake: id(13) },
  { type: "reasoning", step_id: id(15), ts: at(13), run_id: id(14), thought: "t", cmd: "sleep 1", usage },
];

describe("runItems", () => {
  it("lists every run newest first with when it began, what woke it, its model calls and how it ended", () => {
    expect(runItems(timelineOf(steps))).toEqual([
      { id: id(14), at: T0 + 12_000, woke: "Woke on schedule (pacing level 1, after 5 s)", steps: 1, outcome: "Run: still running" },
      { id: id(11), at: T0 + 11_000, woke: "Woke: a message from Ada", steps: 0, outcome: "Run: ended with an error (model)" },
      { id: id(4), at: T0 + 3000, woke: "Launched by shellm from another run", steps: 1, outcome: "Nested run: ended with FINAL" },
      { id: id(2), at: T0 + 1000, woke: "Woke: the mind started", steps: 2, outcome: "Run: ended with FINAL" },
    ]);
  });

  it("places a run whose header was not read at its end, and says its wake is unknown", () => {
    const cut = steps.slice(6, 8);
    expect(runItems(timelineOf(cut))).toEqual([{ id: id(2), at: T0 + 5000, woke: "Its wake is not recorded", steps: 1, outcome: "Run: ended with FINAL" }]);
  });

  it("is empty for a life without runs", () => {
    expect(runItems(timelineOf(steps.slice(8, 9)))).toEqual([]);
  });
});
