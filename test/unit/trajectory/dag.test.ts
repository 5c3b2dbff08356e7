// lib/trajectory/dag.ts: runs are grouped by run_id (never by position, since
// runs interleave), the fork tree never hides a trajectory nor loops, and the
// fork/merge steps it builds are steps the schema accepts.
import { describe, expect, it } from "vitest";
import {
  ancestors,
  childHeader,
  finalAnswer,
  forkStep,
  forkTree,
  groupRuns,
  mergeStep,
  neighbourhood,
  roots,
  type StepLike,
  type TrajectoryNode,
} from "@/lib/trajectory/dag";
import { parseStep } from "@/lib/trajectory/schema";
import { id } from "../helpers/steps";

/** A step with a predictable id `id(n)`; only what dag.ts reads matters here. */
const st = (n: number, type: string, fields: Record<string, unknown> = {}): StepLike => ({ type, step_id: id(n), ...fields });

const A = id(10);
const B = id(20);

/** Two runs woken by two wakes, their steps interleaved, plus steps outside any run. */
const wakeA = st(1, "monolith-wake");
const wakeB = st(2, "monolith-wake");
const headerA = st(10, "shellm-run", { trigger_step: wakeA.step_id });
const promptA = st(11, "prompt", { run_id: A, trigger_step: wakeA.step_id });
const headerB = st(20, "shellm-run", { trigger_step: wakeB.step_id });
const promptB = st(21, "prompt", { run_id: B, trigger_step: wakeB.step_id });
const message = st(3, "message");
const reasoningA = st(12, "reasoning", { run_id: A, trigger_step: wakeA.step_id });
const finalB = st(22, "final", { run_id: B });
const shellA = st(13, "shell-output", { run_id: A });
const INTERLEAVED = [wakeA, headerA, promptA, wakeB, headerB, promptB, message, reasoningA, finalB, shellA];

describe("groupRuns", () => {
  it("gathers interleaved runs by run_id, in the order of their first step, leaving loose steps out", () => {
    expect(groupRuns(INTERLEAVED)).toEqual([
      { runId: A, header: headerA, triggerStep: wakeA.step_id, steps: [headerA, promptA, reasoningA, shellA], end: undefined },
      { runId: B, header: headerB, triggerStep: wakeB.step_id, steps: [headerB, promptB, finalB], end: finalB },
    ]);
  });

  it("does not group by position: a step between another run's steps stays in its own run", () => {
    // B's final sits between two of A's steps; a positional grouping would hand it to A.
    const steps = [headerA, headerB, promptA, finalB, reasoningA];
    expect(groupRuns(steps).map((r) => [r.runId, r.steps.map((s) => s.step_id)])).toEqual([
      [A, [headerA.step_id, promptA.step_id, reasoningA.step_id]],
      [B, [headerB.step_id, finalB.step_id]],
    ]);
  });

  it("takes the trigger from the header, even when a member names another, and even when the header comes late", () => {
    const other = id(99);
    const early = st(11, "prompt", { run_id: A, trigger_step: other });
    expect(groupRuns([early, headerA]).map((r) => r.triggerStep)).toEqual([wakeA.step_id]);
    expect(groupRuns([headerA, early]).map((r) => r.triggerStep)).toEqual([wakeA.step_id]);
  });

  it("falls back to the first member's trigger when the header has none", () => {
    const bare = st(10, "shellm-run");
    const first = st(11, "prompt", { run_id: A, trigger_step: id(7) });
    const second = st(12, "reasoning", { run_id: A, trigger_step: id(8) });
    expect(groupRuns([bare, first, second])[0]?.triggerStep).toBe(id(7));
    expect(groupRuns([bare, st(11, "prompt", { run_id: A })])[0]?.triggerStep).toBeUndefined();
  });

  it("ends a run at its last final, error or run-linked thought; a run without one has not ended", () => {
    const final = st(11, "final", { run_id: A });
    const error = st(12, "error", { run_id: A });
    const thought = st(13, "thought", { run_id: A });
    const summary = st(14, "run-summary", { run_id: A });
    expect(groupRuns([headerA, final])[0]?.end).toBe(final);
    expect(groupRuns([headerA, final, error])[0]?.end).toBe(error);
    expect(groupRuns([headerA, error, thought, summary])[0]?.end).toBe(thought);
    expect(groupRuns([headerA, summary])[0]?.end).toBeUndefined();
    // A thought outside any run ends nothing (it is not in a run at all).
    expect(groupRuns([st(30, "thought")])).toEqual([]);
  });

  it("keeps steps whose header is missing as a run without a header", () => {
    expect(groupRuns([promptA, reasoningA])).toEqual([
      { runId: A, header: undefined, triggerStep: wakeA.step_id, steps: [promptA, reasoningA], end: undefined },
    ]);
  });

});

const traj = (n: number, fields: Record<string, unknown> = {}) => st(n, "trajectory", fields);
const node = (n: number, name: string, parent: number | undefined, children: number[], parentStep?: number): TrajectoryNode => ({
  id: id(n),
  name,
  parentTraj: parent === undefined ? undefined : id(parent),
  parentStep: parentStep === undefined ? undefined : id(parentStep),
  children: children.map((c) => id(c)),
});

describe("forkTree", () => {
  it("nests children under their parent, names nameless trajectories by their id, keeps the fork step", () => {
    const tree = forkTree([
      traj(1, { name: "main" }),
      traj(2, { name: "child", parent_traj: id(1), parent_step: id(50) }),
      traj(3, { parent_traj: id(2), parent_step: id(51) }),
      traj(4, { name: "second child", parent_traj: id(1) }),
    ]);
    expect([...tree.values()]).toEqual([
      node(1, "main", undefined, [2, 4]),
      node(2, "child", 1, [3], 50),
      node(3, "00000003", 2, [], 51),
      node(4, "second child", 1, []),
    ]);
    expect(roots(tree).map((n) => n.id)).toEqual([id(1)]);
  });

  it("makes a child whose parent is missing a root, so nothing imported is hidden", () => {
    const tree = forkTree([traj(1, { name: "main" }), traj(2, { name: "orphan", parent_traj: id(9), parent_step: id(50) })]);
    expect(roots(tree)).toEqual([node(1, "main", undefined, []), node(2, "orphan", undefined, [], 50)]);
  });

  it("makes a trajectory that names itself as parent a root", () => {
    const tree = forkTree([traj(1, { name: "self", parent_traj: id(1) })]);
    expect(roots(tree)).toEqual([node(1, "self", undefined, [])]);
    expect(ancestors(tree, id(1))).toEqual([]);
  });

  it("breaks a cycle of parents: one of them becomes the root, the rest hang below it", () => {
    const tree = forkTree([
      traj(1, { name: "a", parent_traj: id(3) }),
      traj(2, { name: "b", parent_traj: id(1) }),
      traj(3, { name: "c", parent_traj: id(2) }),
      traj(4, { name: "outside", parent_traj: id(2) }),
    ]);
    expect([...tree.values()]).toEqual([node(1, "a", undefined, [2]), node(2, "b", 1, [3, 4]), node(3, "c", 2, []), node(4, "outside", 2, [])]);
    expect(roots(tree).map((n) => n.name)).toEqual(["a"]);
  });

  it("ancestors: the chain from the root down to the parent, root first", () => {
    const tree = forkTree([traj(1, { name: "root" }), traj(2, { name: "mid", parent_traj: id(1) }), traj(3, { name: "leaf", parent_traj: id(2) })]);
    expect(ancestors(tree, id(3)).map((n) => n.name)).toEqual(["root", "mid"]);
    expect(ancestors(tree, id(2)).map((n) => n.name)).toEqual(["root"]);
    expect(ancestors(tree, id(1))).toEqual([]);
    expect(ancestors(tree, id(42))).toEqual([]);
  });

  it("ancestors stops at a cycle in a tree built by hand, and at a parent that is not in the tree", () => {
    const cyclic = new Map([
      [id(1), node(1, "a", 3, [])],
      [id(2), node(2, "b", 1, [])],
      [id(3), node(3, "c", 2, [])],
    ]);
    expect(ancestors(cyclic, id(1)).map((n) => n.name)).toEqual(["b", "c"]);
    const dangling = new Map([[id(2), node(2, "b", 1, [])]]);
    expect(ancestors(dangling, id(2))).toEqual([]);
  });
});

describe("fork and merge steps", () => {
  const TS = "2026-11-30T17:44:36.123Z";
  const parent = id(1);
  const child = id(2);
  const run = id(3);

  it("childHeader is a valid trajectory first line pointing back at the fork", () => {
    const header = childHeader(child, "subtask", { trajId: parent, forkStepId: id(4) }, TS);
    expect(header).toEqual({ type: "trajectory", step_id: child, ts: TS, name: "subtask", parent_traj: parent, parent_step: id(4), parent_traj_ref: ".." });
    expect(parseStep(header)).toEqual({ ok: true, step: header });
  });

  it("forkStep is a valid fork step, with run_id only when given", () => {
    const inRun = forkStep(id(4), child, "00000002-subtask", TS, run);
    expect(inRun).toEqual({ type: "fork", step_id: id(4), ts: TS, child, child_ref: "00000002-subtask", run_id: run });
    expect(parseStep(inRun)).toEqual({ ok: true, step: inRun });
    const loose = forkStep(id(4), child, "00000002-subtask", TS);
    expect(Object.keys(loose)).toEqual(["type", "step_id", "ts", "child", "child_ref"]);
    expect(parseStep(loose).ok).toBe(true);
  });

  it("mergeStep is a valid merge step carrying the child's answer and its folder, with run_id only when given", () => {
    const merge = mergeStep(id(5), { trajId: child, finalStepId: id(6), content: "the answer", childRef: "00000002-subtask" }, TS, run);
    expect(merge).toEqual({ type: "merge", step_id: id(5), ts: TS, content: "the answer", from_traj: child, from_step: id(6), from_traj_ref: "00000002-subtask", run_id: run });
    expect(parseStep(merge)).toEqual({ ok: true, step: merge });
    const loose = mergeStep(id(5), { trajId: child, finalStepId: id(6), content: "", childRef: "00000002-subtask" }, TS);
    expect(loose).toEqual({ type: "merge", step_id: id(5), ts: TS, content: "", from_traj: child, from_step: id(6), from_traj_ref: "00000002-subtask" });
    expect(Object.keys(loose)).toEqual(["type", "step_id", "ts", "content", "from_traj", "from_step", "from_traj_ref"]);
    expect(parseStep(loose).ok).toBe(true);
  });

  it("finalAnswer is the last final, not the last step", () => {
    const first = st(1, "final", { content: "first" });
    const last = st(2, "final", { content: "second" });
    expect(finalAnswer([first, st(3, "thought"), last, st(4, "run-summary")])).toBe(last);
    expect(finalAnswer([st(3, "thought"), st(4, "error")])).toBeUndefined();
    expect(finalAnswer([])).toBeUndefined();
  });
});

describe("neighbourhood", () => {
  const ids = (steps: readonly StepLike[]) => steps.map((s) => s.step_id);

  it("gives the steps either side, the step's run (interleaved), its trigger and what it triggered", () => {
    const n = neighbourhood(INTERLEAVED, promptB.step_id, 2);
    expect(n && { ...n, before: ids(n.before), after: ids(n.after), run: ids(n.run), triggered: ids(n.triggered) }).toEqual({
      step: promptB,
      before: [wakeB.step_id, headerB.step_id],
      after: [message.step_id, reasoningA.step_id],
      run: [headerB.step_id, promptB.step_id, finalB.step_id],
      trigger: wakeB,
      triggered: [],
    });
  });

  it("for a header: its run, and the steps it triggered", () => {
    const n = neighbourhood(INTERLEAVED, wakeA.step_id, 1);
    expect(n && ids(n.triggered)).toEqual([headerA.step_id, promptA.step_id, reasoningA.step_id]);
    expect(n && { before: n.before, after: ids(n.after), run: n.run, trigger: n.trigger }).toEqual({ before: [], after: [headerA.step_id], run: [], trigger: undefined });
    const h = neighbourhood(INTERLEAVED, headerA.step_id);
    expect(h && ids(h.run)).toEqual([headerA.step_id, promptA.step_id, reasoningA.step_id, shellA.step_id]);
  });

  it("stops at the ends of the log, defaults to 3 either side, and is undefined for an unknown id", () => {
    const n = neighbourhood(INTERLEAVED, shellA.step_id);
    expect(n && { before: ids(n.before), after: n.after }).toEqual({ before: [message.step_id, reasoningA.step_id, finalB.step_id], after: [] });
    expect(neighbourhood(INTERLEAVED, id(404))).toBeUndefined();
  });

  it("a trigger that is not in the log is undefined, not a guess", () => {
    const n = neighbourhood([st(1, "thought", { trigger_step: id(77) })], id(1));
    expect(n?.trigger).toBeUndefined();
  });
});
