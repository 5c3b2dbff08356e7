// One shellm run: project the context, call the model, run the first bash
// block, record the output, repeat until the code sets FINAL or a guard ends
// the run. Never throws: every ending is a step (final, error, thought).
import { projectMessages } from "../context/project";
import { blobFields, splitOutput } from "../trajectory/large-output";
import type { Journal } from "./journal";
import type { ModelPort, ShellPort, ShellResult } from "./ports";
import { parseReply } from "./reply";

export interface ShellState {
  env: Record<string, string>;
  cwd: string;
}

export interface RunLimits {
  maxIterations: number;
  /** Steps of the trajectory's tail shown verbatim to the model. */
  contextSteps: number;
  /** Failing commands in a row that end the run. */
  maxFailuresInRow: number;
  /** Times the same failing command may fail before the run ends. */
  maxSameFailure: number;
}

export const DEFAULT_RUN_LIMITS: RunLimits = {
  maxIterations: 12,
  contextSteps: 50,
  maxFailuresInRow: 10,
  maxSameFailure: 3,
};

export interface RunDeps {
  journal: Journal;
  model: ModelPort;
  shell: ShellPort;
  selfName: string;
  instructions: string;
  limits: RunLimits;
  /** Carried between execs (just-bash resets them on every exec); updated in place. */
  shellState: ShellState;
  signal: AbortSignal;
  onIteration?: (runId: string, iteration: number) => void;
  onPartial?: (text: string) => void;
}

export type RunEnd = "final" | "thought" | "error" | "model-error" | "stopped";

export interface RunOutcome {
  end: RunEnd;
  runId: string;
  /** The model's error text, for the status line, when end is model-error. */
  error?: string;
}

/** Shell variables that belong to the shell itself and are not carried over. */
const SHELL_OWN = new Set(["?", "PWD", "OLDPWD", "FINAL", "IFS", "OPTIND", "SHELLOPTS", "BASHOPTS", "_"]);

export function carriedEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (!SHELL_OWN.has(k)) out[k] = v;
  return out;
}

export async function shellmRun(deps: RunDeps, task: { prompt: string; triggerStep?: string; wakeStep?: string }): Promise<RunOutcome> {
  const { journal } = deps;
  const header = await journal.append({
    type: "shellm-run",
    model: deps.model.name,
    trigger_step: task.triggerStep,
    wake: task.wakeStep,
    launched_by: "monolith",
  });
  const runId = header.step_id;
  journal.run = { runId, triggerStep: task.triggerStep };
  try {
    await journal.append(journal.inRun({ type: "prompt", content: task.prompt }));
    return { ...(await iterate(deps, runId)), runId };
  } finally {
    journal.run = null;
  }
}

async function iterate(deps: RunDeps, runId: string): Promise<Omit<RunOutcome, "runId">> {
  const { journal, limits } = deps;
  const stopped = async () => {
    await journal.append(journal.inRun({ type: "error", reason: "stopped", content: "Stopped by its human in the middle of the run." }));
    return { end: "stopped" as const };
  };
  let failuresInRow = 0;
  const failuresOf = new Map<string, number>();

  for (let i = 1; i <= limits.maxIterations; i++) {
    if (deps.signal.aborted) return stopped();
    deps.onIteration?.(runId, i);

    const [tail, total] = await Promise.all([journal.log.tail(limits.contextSteps), journal.log.count()]);
    const messages = projectMessages(tail, { selfName: deps.selfName, elided: Math.max(0, total - tail.length) });
    const reply = await deps.model.complete({
      instructions: deps.instructions,
      messages,
      signal: deps.signal,
      onDelta: deps.onPartial,
    });
    deps.onPartial?.("");
    if (!reply.ok) {
      if (reply.aborted || deps.signal.aborted) return stopped();
      await journal.append(journal.inRun({ type: "error", reason: "model", content: reply.error }));
      return { end: "model-error", error: reply.error };
    }

    const parsed = parseReply(reply.text);
    if (parsed.code === null) {
      const content = reply.text.trim();
      if (!content) {
        await journal.append(journal.inRun({ type: "error", reason: "empty-reply", content: "The model sent an empty reply." }));
        return { end: "error" };
      }
      await journal.append(journal.inRun({ type: "thought", content, source: "monolith" }));
      return { end: "thought" };
    }

    await journal.append(
      journal.inRun({ type: "reasoning", thought: parsed.reasoning, cmd: parsed.code, in_tok: reply.inTokens, out_tok: reply.outTokens }),
    );
    const result = await deps.shell.exec(parsed.code, { env: deps.shellState.env, cwd: deps.shellState.cwd, signal: deps.signal });
    deps.shellState.env = carriedEnv(result.env);
    deps.shellState.cwd = result.cwd;
    const note = parsed.droppedBlocks > 0 ? `[reverie] ${parsed.droppedBlocks} more bash block(s) in the reply were not run: send one block per reply.\n` : "";
    await recordOutput(journal, result, note);
    if (deps.signal.aborted) return stopped();

    const final = result.env.FINAL;
    if (final !== undefined) {
      await journal.append(journal.inRun({ type: "final", content: final }));
      return { end: "final" };
    }

    if (result.exit === 0) {
      failuresInRow = 0;
    } else {
      failuresInRow++;
      const same = (failuresOf.get(parsed.code) ?? 0) + 1;
      failuresOf.set(parsed.code, same);
      if (failuresInRow >= limits.maxFailuresInRow || same >= limits.maxSameFailure) {
        const why = same >= limits.maxSameFailure ? `the same command failed ${same} times` : `${failuresInRow} commands failed in a row`;
        await journal.append(journal.inRun({ type: "error", reason: "stall", content: `Run stopped: ${why}.` }));
        return { end: "error" };
      }
    }
  }
  await journal.append(
    journal.inRun({ type: "error", reason: "iterations", content: `No FINAL after ${limits.maxIterations} iterations; the run was ended.` }),
  );
  return { end: "error" };
}

async function recordOutput(journal: Journal, result: ShellResult, note: string): Promise<void> {
  const stepId = journal.newId();
  const stdout = splitOutput(result.stdout, `${stepId}.stdout`);
  const stderr = splitOutput(note + result.stderr, `${stepId}.stderr`);
  for (const out of [stdout, stderr]) if (out.blob) await journal.log.putBlob(out.blob.name, out.blob.text);
  await journal.append({
    ...journal.inRun({
      type: "shell-output",
      stdout: stdout.inline,
      stderr: stderr.inline,
      exit: result.exit,
      exec_s: Math.round(result.execS * 1000) / 1000,
      timed_out: result.timedOut,
      ...blobFields("stdout", stdout),
      ...blobFields("stderr", stderr),
    }),
    step_id: stepId,
  });
}
