// `shellm "<task>"` from inside the sandbox: a nested run. It forks a child
// trajectory (a `fork` step in the parent, the child's first line pointing
// back at it), runs there to FINAL with its own iteration budget, and merges
// the answer back (a `merge` step in the parent). The child's context shows
// its ancestors' recent steps and why it was forked; its own steps stay in
// its own trajectory, so they never reach the parent's context.
import { trajDirName } from "../../trajectory/headlong";
import type { RunScope } from "../log/journal";
import type { NestedRunResult, ShellmPort } from "../ports";
import type { RunDeps, RunOutcome, RunTask } from "./types";

/** A whole shellm run: run.ts hands in its own, so a nested run is a run without this module importing it. */
export type RunFn = (deps: RunDeps, run: RunScope, task: RunTask) => Promise<RunOutcome>;

/** Steps of each ancestor shown to a nested run, nearest ancestor last. */
const ANCESTOR_STEPS = 20;
/** Kept from all ancestors together, so a deep chain cannot crowd out the child's own steps. */
const ANCESTOR_STEPS_TOTAL = 40;
const TASK_NAME_CHARS = 40;

export function nestedShellm(deps: RunDeps, parent: RunScope, reasoning: () => string, shellmRun: RunFn): ShellmPort {
  return {
    async run(task, { signal, beacon, shell }): Promise<NestedRunResult> {
      const { config } = deps;
      const max = config.nesting.maxDepth;
      if (deps.depth >= max) {
        return { ok: false, error: `shellm: the nesting limit is ${max} (this run is at depth ${deps.depth}); do this part in the current run` };
      }
      const journal = parent.journal;
      const childId = journal.newId();
      const name = `shellm ${task}`.replace(/\s+/g, " ").slice(0, TASK_NAME_CHARS);
      const childRef = trajDirName(childId, name);
      const fork = await parent.append({ type: "fork", child: childId, child_ref: childRef });
      const child = await journal.fork({ trajId: childId, name, forkStepId: fork.step_id });
      const ancestors = [...(deps.view.ancestors ?? []), ...(await journal.log.tail(ANCESTOR_STEPS))].slice(-ANCESTOR_STEPS_TOTAL);
      const run = await child.openRun({ model: deps.ports.model.name, trigger_step: fork.step_id, launched_by: "shellm" });
      beacon();
      const depth = deps.depth + 1;
      const outcome = await shellmRun(
        {
          ...deps,
          config: { ...config, limits: { ...config.limits, maxIterations: config.nesting.childIterations } },
          // A child's first call is its task's, not an idle wake's first look.
          view: { ...deps.view, firstCallBudget: undefined, firstLook: undefined, ancestors },
          depth,
          signal: AbortSignal.any([deps.signal, signal]),
          // The parent's shell waits on this command: every sign of life resets its watchdog.
          emit: () => beacon(),
        },
        run,
        { prompt: childPrompt(task, reasoning(), { depth, max, budget: config.nesting.childIterations, parent: journal.log.trajId }), shell },
      );
      const answered = outcome.end === "final";
      const content = answered ? (outcome.answer ?? "") : `[the nested run ended without FINAL: ${outcome.end}${outcome.error ? ` (${outcome.error})` : ""}]`;
      await parent.append({ type: "merge", content, from_traj: childId, from_step: outcome.lastStepId, from_traj_ref: childRef });
      return answered ? { ok: true, answer: content, childId } : { ok: false, error: content, childId };
    },
  };
}

function childPrompt(task: string, why: string, at: { depth: number; max: number; budget: number; parent: string }): string {
  const reason = why.trim() ? `\n\nWhy you were forked (the parent's reasoning):\n${why.trim()}` : "";
  return `You are a nested run at depth ${at.depth} of at most ${at.max}, forked from trajectory ${at.parent.slice(0, 8)} to do one task. Your parent waits for your answer: set FINAL to it within ${at.budget} blocks.

Task: ${task}${reason}`;
}
