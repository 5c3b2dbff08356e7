// components/timeline/marks.ts: what each lane draws, and what each mark says.
import { describe, expect, it } from "vitest";
import { inWindow, marksOf, MAX_MARKS, type Mark } from "@/components/timeline/marks";
import type { Timeline } from "@/lib/trajectory/timeline";

const T0 = Date.parse("2026-03-01T10:00:00.000Z");
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

describe("marksOf", () => {
  it("one mark per message, wake, run and idle stretch, each saying what it is; an open run reaches now", () => {
    const t: Timeline = {
      start: T0,
      end: T0 + 90_000,
      messages: [{ id: id(1), at: T0, from: "Ada", to: "Mo" }],
      wakes: [{ id: id(2), at: T0 + 1000, cause: "message", level: 0, delayS: 0, thinker: "monolith", from: "Ada" }],
      runs: [
        { id: id(3), start: T0 + 1000, end: T0 + 4000, outcome: "idle", calls: [] },
        { id: id(5), start: null, end: T0 + 500, outcome: "error", reason: "interrupted", calls: [] },
        { id: id(6), start: T0 + 90_000, end: null, outcome: "open", calls: [] },
      ],
      idle: [{ start: T0 + 4000, end: T0 + 90_000, endedBy: id(6) }],
    };
    const m = marksOf(t, T0 + 100_000);
    const said = (marks: Mark[]) => marks.map(({ stepId, start, end, text, kind }) => ({ stepId, start, end, text, kind }));
    expect(said(m.messages)).toEqual([{ stepId: id(1), start: T0, end: undefined, text: "Message from Ada to Mo at 10:00:00", kind: "message" }]);
    expect(said(m.wakes)).toEqual([{ stepId: id(2), start: T0 + 1000, end: undefined, text: "Woke: a message from Ada at 10:00:01", kind: "message" }]);
    expect(said(m.runs)).toEqual([
      { stepId: id(3), start: T0 + 1000, end: T0 + 4000, text: "Run: chose to idle (10:00:01–10:00:04, 3 s)", kind: "idle" },
      { stepId: id(5), start: T0 + 500, end: T0 + 500, text: "Run: ended with an error (interrupted) (began before this window, ended 10:00:00)", kind: "error" },
      { stepId: id(6), start: T0 + 90_000, end: T0 + 100_000, text: "Run: still running (10:01:30–now, 10 s)", kind: "open" },
    ]);
    expect(said(m.idle)).toEqual([{ stepId: id(6), start: T0 + 4000, end: T0 + 90_000, text: "Idle 86 s (10:00:04–10:01:30): no run, no wake", kind: "idle" }]);
  });
});

describe("inWindow", () => {
  const mark = (start: number, end?: number): Mark => ({ key: String(start), stepId: id(start), start, end, text: "", kind: "x", colour: "" });

  it("keeps marks that touch the window, spans reaching into it included", () => {
    const marks = [mark(0, 50), mark(10), mark(60), mark(200), mark(90, 300)];
    expect(inWindow(marks, 40, 100).shown.map((m) => m.start)).toEqual([0, 60, 90]);
  });

  it("past MAX_MARKS keeps the newest and counts the rest", () => {
    const marks = Array.from({ length: MAX_MARKS + 7 }, (_, i) => mark(i));
    const w = inWindow(marks, 0, 1e9);
    expect(w.hidden).toBe(7);
    expect(w.shown[0]?.start).toBe(7);
    expect(w.shown).toHaveLength(MAX_MARKS);
  });
});
