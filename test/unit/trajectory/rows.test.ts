// lib/trajectory/rows.ts: the flat list of rows the viewer shows. Runs are
// gathered under their header by run_id even when interleaved, collapsed runs
// show only the header, filters keep whole runs, idle stretches fold.
import { describe, expect, it } from "vitest";
import { buildRows, type DisplayRow, entryOf, type IndexEntry, rowIndexOf, type RowOptions } from "@/lib/trajectory/rows";
import type { Step } from "@/lib/trajectory/schema";
import { id, stepMaker } from "../helpers/steps";

/** Steps made in order get ids id(1), id(2), …; entries get seq 1, 2, …. */
function entries(build: (make: ReturnType<typeof stepMaker>) => void): IndexEntry[] {
  const make = stepMaker();
  const steps: Step[] = [];
  build((type, fields) => {
    const step = make(type, fields);
    steps.push(step);
    return step;
  });
  return steps.map((s, i) => entryOf(i + 1, s));
}

const OPEN: RowOptions = { collapsedRuns: new Set(), openFolds: new Set(), types: null };

/**
 * One line per row: `<seq> <type>` indented when in a run; a header adds
 * `[count, end seq, work, collapsed, hidden seqs]`; a fold lists its seqs.
 */
function render(rows: readonly DisplayRow[]): string[] {
  return rows.map((r) => {
    if (r.kind === "fold") return `fold ${r.entries.map((e) => e.seq).join(",")}`;
    const run = r.run
      ? ` [${r.run.count} steps, end ${r.run.end?.seq ?? "-"}${r.run.didWork ? ", work" : ""}${r.run.collapsed ? `, collapsed hiding ${r.run.hidden.map((e) => e.seq).join(",")}` : ""}]`
      : "";
    return `${r.inRun ? "  " : ""}${r.entry.seq} ${r.entry.type}${run}`;
  });
}

const RUN_A = id(2);
const RUN_B = id(3);
/** Two runs whose steps interleave, a loose message, a wake before them. */
const INTERLEAVED = entries((s) => {
  s("monolith-wake"); // 1
  s("shellm-run", { trigger_step: id(1) }); // 2: run A
  s("shellm-run", { trigger_step: id(1) }); // 3: run B
  s("prompt", { run_id: RUN_A, content: "a" }); // 4
  s("prompt", { run_id: RUN_B, content: "b" }); // 5
  s("message", { content: "hi", from: "ada", to: "mind", source: "chat" }); // 6
  s("thought", { run_id: RUN_B, content: "b thinks" }); // 7
  s("reasoning", { run_id: RUN_A, thought: "a thinks", cmd: "ls" }); // 8
  s("final", { run_id: RUN_A, content: "a done" }); // 9
  s("feedback", { run_id: RUN_B, content: "after b's end" }); // 10
});

describe("entryOf", () => {
  it("keeps the light fields and a one-line preview of the step's text", () => {
    const make = stepMaker();
    const step = make("message", { content: "hello\n  there\tyou", from: "ada", to: "mind", source: "chat", run_id: id(9), trigger_step: id(8) });
    expect(entryOf(42, step)).toEqual({
      seq: 42,
      id: id(1),
      type: "message",
      ts: "2025-01-01T00:00:01.000Z",
      run: id(9),
      trigger: id(8),
      source: "chat",
      preview: "ada → mind: hello there you",
    });
  });

  it("cuts a long preview to 160 characters ending in an ellipsis", () => {
    const step = stepMaker()("thought", { content: "x".repeat(500) });
    expect(entryOf(1, step).preview).toBe(`${"x".repeat(159)}…`);
    const exact = stepMaker()("thought", { content: "y".repeat(160) });
    expect(entryOf(1, exact).preview).toBe("y".repeat(160));
  });
});

describe("buildRows", () => {
  it("gathers interleaved runs under their header, by run_id, at the header's place", () => {
    expect(render(buildRows(INTERLEAVED, OPEN))).toEqual([
      "1 monolith-wake",
      "2 shellm-run [3 steps, end 9]",
      "  4 prompt",
      "  8 reasoning",
      "  9 final",
      "3 shellm-run [3 steps, end 7, work]",
      "  5 prompt",
      "  7 thought",
      "  10 feedback",
      "6 message",
    ]);
  });

  it("gives each row a stable key: its step id, or the first folded step's id", () => {
    const rows = buildRows(INTERLEAVED, OPEN);
    expect(rows.map((r) => r.key)).toEqual([1, 2, 4, 8, 9, 3, 5, 7, 10, 6].map((n) => id(n)));
    expect(rows[1]).toEqual({
      kind: "step",
      key: id(2),
      entry: INTERLEAVED[1],
      inRun: false,
      run: { runId: RUN_A, count: 3, collapsed: false, end: INTERLEAVED[8], didWork: false, hidden: [] },
    });
    expect(rows[2]).toEqual({ kind: "step", key: id(4), entry: INTERLEAVED[3], inRun: true });
  });

  it("shows a collapsed run as its header only", () => {
    const rows = buildRows(INTERLEAVED, { ...OPEN, collapsedRuns: new Set([RUN_A]) });
    expect(render(rows)).toEqual([
      "1 monolith-wake",
      "2 shellm-run [3 steps, end 9, collapsed hiding 4,8,9]",
      "3 shellm-run [3 steps, end 7, work]",
      "  5 prompt",
      "  7 thought",
      "  10 feedback",
      "6 message",
    ]);
  });

  it("a type filter keeps runs with a matching step (under their header) and drops the rest", () => {
    expect(render(buildRows(INTERLEAVED, { ...OPEN, types: new Set(["final"]) }))).toEqual(["2 shellm-run [3 steps, end 9]", "  9 final"]);
    expect(render(buildRows(INTERLEAVED, { ...OPEN, types: new Set(["prompt", "message"]) }))).toEqual([
      "2 shellm-run [3 steps, end 9]",
      "  4 prompt",
      "3 shellm-run [3 steps, end 7, work]",
      "  5 prompt",
      "6 message",
    ]);
    // Filtering on headers shows the runs, empty.
    expect(render(buildRows(INTERLEAVED, { ...OPEN, types: new Set(["shellm-run"]) }))).toEqual(["2 shellm-run [3 steps, end 9]", "3 shellm-run [3 steps, end 7, work]"]);
    expect(buildRows(INTERLEAVED, { ...OPEN, types: new Set(["config"]) })).toEqual([]);
  });

  it("shows a log without run headers in plain order, even when its steps carry run ids", () => {
    const noHeaders = INTERLEAVED.filter((e) => e.type !== "shellm-run");
    expect(render(buildRows(noHeaders, { ...OPEN, collapsedRuns: new Set([RUN_A]) }))).toEqual(noHeaders.map((e) => `${e.seq} ${e.type}`));
  });

  it("leaves steps whose header is not in the log at the top level, and gathers a step that comes before its header", () => {
    const list = entries((s) => {
      s("prompt", { run_id: id(3), content: "early" }); // 1: its header is 3
      s("prompt", { run_id: id(99), content: "orphan" }); // 2
      s("shellm-run"); // 3
      s("final", { run_id: id(3), content: "done" }); // 4
    });
    expect(render(buildRows(list, OPEN))).toEqual(["2 prompt", "3 shellm-run [2 steps, end 4]", "  1 prompt", "  4 final"]);
  });
});

describe("idle folding", () => {
  /** `n` idle markers (mixed kinds) between two thoughts. */
  const stretch = (n: number) =>
    entries((s) => {
      s("thought", { content: "before" });
      for (let i = 0; i < n; i++) {
        const kind = i % 3;
        if (kind === 0) s("idle");
        else if (kind === 1) s("monolith-wake");
        else s("wake", { reason: "scheduled", level: 1, delay_s: 5 });
      }
      s("thought", { content: "after" });
    });

  it("folds 4 consecutive idle markers into one row", () => {
    const list = stretch(4);
    const rows = buildRows(list, OPEN);
    expect(render(rows)).toEqual(["1 thought", "fold 2,3,4,5", "6 thought"]);
    expect(rows[1]).toEqual({ kind: "fold", key: `fold-${id(2)}`, entries: list.slice(1, 5), expanded: false });
  });

  it("does not fold 3", () => {
    expect(render(buildRows(stretch(3), OPEN))).toEqual(["1 thought", "2 idle", "3 monolith-wake", "4 wake", "5 thought"]);
  });

  it("folds a stretch at the very end of the log too", () => {
    const list = stretch(5).slice(0, -1);
    expect(render(buildRows(list, OPEN))).toEqual(["1 thought", "fold 2,3,4,5,6"]);
  });

  it("an open fold shows its steps", () => {
    expect(render(buildRows(stretch(4), { ...OPEN, openFolds: new Set([id(2)]) }))).toEqual([
      "1 thought",
      "2 idle",
      "3 monolith-wake",
      "4 wake",
      "5 idle",
      "6 thought",
    ]);
  });

  it("foldFrom sets the threshold", () => {
    expect(render(buildRows(stretch(2), { ...OPEN, foldFrom: 2 }))).toEqual(["1 thought", "fold 2,3", "4 thought"]);
    expect(render(buildRows(stretch(4), { ...OPEN, foldFrom: 5 }))).toEqual(["1 thought", "2 idle", "3 monolith-wake", "4 wake", "5 idle", "6 thought"]);
  });

  it("a run between idle markers splits the stretch; idle markers inside a run are never folded", () => {
    const list = entries((s) => {
      s("idle"); // 1
      s("idle"); // 2
      s("shellm-run"); // 3
      for (let i = 0; i < 4; i++) s("idle", { run_id: id(3) }); // 4..7
      s("idle"); // 8
      s("idle"); // 9
    });
    expect(render(buildRows(list, OPEN))).toEqual(["1 idle", "2 idle", "3 shellm-run [4 steps, end -]", "  4 idle", "  5 idle", "  6 idle", "  7 idle", "8 idle", "9 idle"]);
  });

  it("steps hidden by the type filter do not split a stretch", () => {
    const list = entries((s) => {
      s("idle");
      s("idle");
      s("thought", { content: "filtered out" });
      s("idle");
      s("idle");
    });
    expect(render(buildRows(list, { ...OPEN, types: new Set(["idle"]) }))).toEqual(["fold 1,2,4,5"]);
    expect(render(buildRows(list, OPEN))).toEqual(["1 idle", "2 idle", "3 thought", "4 idle", "5 idle"]);
  });
});

describe("rowIndexOf", () => {
  const list = entries((s) => {
    s("thought", { content: "first" }); // 1
    for (let i = 0; i < 4; i++) s("idle"); // 2..5
    s("shellm-run"); // 6
    s("prompt", { run_id: id(6), content: "p" }); // 7
    s("final", { run_id: id(6), content: "f" }); // 8
    s("thought", { content: "last" }); // 9
  });

  it("finds a shown step's row, a folded step at its fold, a collapsed step at its header", () => {
    const rows = buildRows(list, { ...OPEN, collapsedRuns: new Set([id(6)]) });
    expect(render(rows)).toEqual(["1 thought", "fold 2,3,4,5", "6 shellm-run [2 steps, end 8, collapsed hiding 7,8]", "9 thought"]);
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => rowIndexOf(rows, id(n)))).toEqual([0, 1, 1, 1, 1, 2, 2, 2, 3]);
    expect(rowIndexOf(rows, id(404))).toBe(-1);
  });

  it("once opened, finds the same steps on their own rows", () => {
    const rows = buildRows(list, { ...OPEN, openFolds: new Set([id(2)]) });
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => rowIndexOf(rows, id(n)))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("a step the type filter hides has no row, even in a collapsed run", () => {
    const rows = buildRows(list, { ...OPEN, collapsedRuns: new Set([id(6)]), types: new Set(["final", "thought"]) });
    expect(render(rows)).toEqual(["1 thought", "6 shellm-run [2 steps, end 8, collapsed hiding 8]", "9 thought"]);
    expect(rowIndexOf(rows, id(7))).toBe(-1);
    expect(rowIndexOf(rows, id(8))).toBe(1);
  });
});
