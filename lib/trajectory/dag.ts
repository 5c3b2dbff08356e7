// The trajectory as a DAG: runs grouped by run_id (never by position: runs
// interleave), forks into child trajectories, merges back, a child's
// ancestors, and a step's neighbourhood. Pure functions over plain data.
import type { Step } from "./schema";

/** The fields of a step these functions need; full steps satisfy it. */
export type StepLike = Pick<Step, "type" | "step_id"> & { run_id?: string; trigger_step?: string; [k: string]: unknown };

export interface Run<S extends StepLike = StepLike> {
  /** The `shellm-run` header's step_id: the run's identity. */
  runId: string;
  header: S | undefined;
  /** The step that woke the thinker (from the header, else the first step carrying one). */
  triggerStep: string | undefined;
  steps: S[];
  /** How the run ended: its final, error or thought step, if it has ended. */
  end: S | undefined;
}

const ENDS = new Set(["final", "error"]);

/**
 * Group the steps of one trajectory by run. Steps without a run_id (and not a
 * header) are not part of any run. Runs come in the order of their first step.
 */
export function groupRuns<S extends StepLike>(steps: readonly S[]): Run<S>[] {
  const runs = new Map<string, Run<S>>();
  const runFor = (id: string) => {
    let run = runs.get(id);
    if (!run) {
      run = { runId: id, header: undefined, triggerStep: undefined, steps: [], end: undefined };
      runs.set(id, run);
    }
    return run;
  };
  for (const step of steps) {
    const id = step.type === "shellm-run" ? step.step_id : step.run_id;
    if (!id) continue;
    const run = runFor(id);
    if (step.type === "shellm-run") {
      run.header = step;
      run.triggerStep = step.trigger_step ?? run.triggerStep;
    } else {
      run.triggerStep ??= step.trigger_step;
    }
    run.steps.push(step);
    if (ENDS.has(step.type) || (step.type === "thought" && step.run_id)) run.end = step;
  }
  return [...runs.values()];
}


export interface TrajectoryNode {
  /** The trajectory's id: the step_id of its `trajectory` first line. */
  id: string;
  name: string;
  parentTraj: string | undefined;
  /** The fork step in the parent. */
  parentStep: string | undefined;
  children: string[];
}

/**
 * Build the fork tree from the first step of each trajectory. A child whose
 * parent is missing becomes a root (so nothing imported is hidden).
 */
export function forkTree(firstSteps: readonly StepLike[]): Map<string, TrajectoryNode> {
  const nodes = new Map<string, TrajectoryNode>();
  for (const s of firstSteps) {
    nodes.set(s.step_id, {
      id: s.step_id,
      name: typeof s.name === "string" ? s.name : s.step_id.slice(0, 8),
      parentTraj: typeof s.parent_traj === "string" ? s.parent_traj : undefined,
      parentStep: typeof s.parent_step === "string" ? s.parent_step : undefined,
      children: [],
    });
  }
  for (const node of nodes.values()) {
    const parent = node.parentTraj ? nodes.get(node.parentTraj) : undefined;
    // A missing parent, or a parent chain that leads back here (a damaged log), makes a root.
    if (!parent || leadsTo(nodes, parent, node.id)) node.parentTraj = undefined;
    else parent.children.push(node.id);
  }
  return nodes;
}

/** Whether walking up from `from` reaches `target` (bounded, so a cycle elsewhere cannot trap it). */
function leadsTo(nodes: Map<string, TrajectoryNode>, from: TrajectoryNode, target: string): boolean {
  let at: TrajectoryNode | undefined = from;
  for (let steps = 0; at && steps <= nodes.size; steps++) {
    if (at.id === target) return true;
    at = at.parentTraj ? nodes.get(at.parentTraj) : undefined;
  }
  return false;
}

export function roots(tree: Map<string, TrajectoryNode>): TrajectoryNode[] {
  return [...tree.values()].filter((n) => !n.parentTraj);
}

/** The chain from the root down to `trajId`'s parent (root first). Cycles stop the walk. */
export function ancestors(tree: Map<string, TrajectoryNode>, trajId: string): TrajectoryNode[] {
  const chain: TrajectoryNode[] = [];
  const seen = new Set([trajId]);
  let parent = tree.get(trajId)?.parentTraj;
  while (parent && !seen.has(parent)) {
    seen.add(parent);
    const node = tree.get(parent);
    if (!node) break;
    chain.unshift(node);
    parent = node.parentTraj;
  }
  return chain;
}

/** The first step of a child trajectory forked at `forkStep` of `parent`. */
export function childHeader(childId: string, name: string, parent: { trajId: string; forkStepId: string }, ts: string) {
  return {
    type: "trajectory" as const,
    step_id: childId,
    ts,
    name,
    parent_traj: parent.trajId,
    parent_step: parent.forkStepId,
    parent_traj_ref: "..",
  };
}

/** The fork step written in the parent; `childRef` is the child's folder name. */
export function forkStep(stepId: string, childId: string, childRef: string, ts: string, runId?: string) {
  return { type: "fork" as const, step_id: stepId, ts, child: childId, child_ref: childRef, ...(runId ? { run_id: runId } : {}) };
}

/** The merge step written back into the parent: the child's final answer. */
export function mergeStep(stepId: string, child: { trajId: string; finalStepId: string; content: string; childRef: string }, ts: string, runId?: string) {
  return {
    type: "merge" as const,
    step_id: stepId,
    ts,
    content: child.content,
    from_traj: child.trajId,
    from_step: child.finalStepId,
    from_traj_ref: child.childRef,
    ...(runId ? { run_id: runId } : {}),
  };
}

/** The last `final` of a trajectory: what a merge writes back. */
export function finalAnswer<S extends StepLike>(steps: readonly S[]): S | undefined {
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i]?.type === "final") return steps[i];
  return undefined;
}

export interface Neighbourhood<S extends StepLike> {
  step: S;
  before: S[];
  after: S[];
  /** Steps of the same run. */
  run: S[];
  /** The step that woke the thinker, and steps that this one triggered. */
  trigger: S | undefined;
  triggered: S[];
}

/** A step with `radius` steps either side, its run, and its trigger links. */
export function neighbourhood<S extends StepLike>(steps: readonly S[], stepId: string, radius = 3): Neighbourhood<S> | undefined {
  const i = steps.findIndex((s) => s.step_id === stepId);
  const step = steps[i];
  if (!step) return undefined;
  const runId = step.type === "shellm-run" ? step.step_id : step.run_id;
  return {
    step,
    before: steps.slice(Math.max(0, i - radius), i),
    after: steps.slice(i + 1, i + 1 + radius),
    run: runId ? steps.filter((s) => s.step_id === runId || s.run_id === runId) : [],
    trigger: step.trigger_step ? steps.find((s) => s.step_id === step.trigger_step) : undefined,
    triggered: steps.filter((s) => s.trigger_step === stepId),
  };
}
