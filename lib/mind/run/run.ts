// One shellm run: project the context, call the model, run the first bash
// block, record the output, repeat until the code sets FINAL or a guard ends
// the run. Never throws for the model or the shell: every ending is a step
// (final, error, thought). The run's scope (its appender) is handed in; the
// shell state it ends with is handed back.
import { arraySource, BuildCache, buildContext, inStream, type BuildOptions, type Summary } from "../../context/build";
import { seenCall, type SeenCall } from "../../context/replay";
import { DEFAULT_TIERS } from "../../context/staircase";
import { TokenCounter } from "../../context/tokens";
import { blobFields, splitOutput } from "../../trajectory/large-output";
import type { Step } from "../../trajectory/schema";
import { alarmPort } from "../alarms/alarms";
import type { RunScope } from "../log/journal";
import { trajReader } from "../log/mind-log";
import { nestedShellm } from "./nested";
import { selfTrials } from "../self/trial";
import type { ShellResult, ShellState } from "../ports";
import { splitInstructions } from "./prompt";
import { shellChanged } from "../state/state";
import { parseReply } from "./reply";
import type { RunDeps, RunOutcome, RunTask, RunView } from "./types";

export type { ShellState };
export type { Nesting, RunDeps, RunEnd, RunLimits, RunOutcome, RunTask } from "./types";
export { DEFAULT_NESTING, DEFAULT_RUN_LIMITS } from "./types";


/** Shell variables that belong to the shell itself and are not carried over. */
const SHELL_OWN = new Set(["?", "PWD", "OLDPWD", "FINAL", "IFS", "OPTIND", "SHELLOPTS", "BASHOPTS", "_"]);

export function carriedEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (!SHELL_OWN.has(k)) out[k] = v;
  return out;
}

export async function shellmRun(deps: RunDeps, run: RunScope, task: RunTask): Promise<RunOutcome> {
  const prompt = await run.append({ type: "prompt", content: task.prompt });
  const state = { shell: { ...task.shell }, reasoning: "" };
  const { config, ports } = deps;
  // A nested run's alarms are its mind's: set through the outermost run, in the mind's own trajectory.
  const alarms = ports.alarms ?? alarmPort(run);
  const withAlarms: RunDeps = { ...deps, ports: { ...ports, alarms } };
  const session = ports.shell.open({
    traj: trajReader(run.journal.log),
    chat: {
      selfName: config.selfName,
      ...(config.replies === false ? { replyRefusal: "replies to messages are the responder's: it answers each message once. Use chat send --to <name> to start a conversation of your own." } : {}),
      send: ({ to, content, replyTo }) => run.append({ type: "message", from: config.selfName, to, content, reply_to: replyTo, source: "chat" }),
    },
    shellm: nestedShellm(withAlarms, run, () => state.reasoning, shellmRun),
    alarms,
    ...(ports.trial ? { trials: selfTrials(withAlarms, ports.trial, run, shellmRun) } : {}),
    depth: deps.depth,
  });
  const view = { ...deps.view, counter: deps.view.counter ?? new TokenCounter(), cache: deps.view.cache ?? new BuildCache() };
  const ended = await iterate({ ...deps, view }, run, (code, signal) => session.exec(code, { ...state.shell, signal }), state, prompt);
  return { ...ended, runId: run.runId, shell: state.shell, shellChanged: shellChanged(task.shell, state.shell) };
}

type Ending = Omit<RunOutcome, "runId" | "shell" | "shellChanged">;

async function iterate(
  deps: RunDeps & { view: Required<Pick<RunView, "counter" | "cache">> },
  run: RunScope,
  exec: (code: string, signal: AbortSignal) => Promise<ShellResult>,
  state: { shell: ShellState; reasoning: string },
  prompt: Step,
): Promise<Ending> {
  const { ports, view } = deps;
  const { limits } = deps.config;
  const emit = deps.emit;
  const log = run.journal.log;
  // What the model call under way saw; recorded under the first step appended after it (its reasoning, thought or error).
  let seen: Omit<SeenCall, "step_id"> | null = null;
  const saw = (led: Step) => {
    if (seen) ports.contexts?.record({ ...seen, step_id: led.step_id });
    seen = null;
    return led;
  };
  // Model calls made so far (the first of an idle wake's is its first look).
  let calls = 0;
  const end = async (e: Ending["end"], step: Parameters<RunScope["append"]>[0], extra: Partial<Ending> = {}): Promise<Ending> => {
    const written = saw(await run.append(step));
    return { end: e, lastStepId: written.step_id, calls, ...(e === "error" && step.type === "error" ? { reason: step.reason } : {}), ...extra };
  };
  const stopped = () => end("stopped", { type: "error", reason: "stopped", content: "Stopped by its human in the middle of the run." });
  let failuresInRow = 0;
  const failuresOf = new Map<string, number>();
  let tokens = 0;
  const repeat = { text: "", count: 0 };
  // The run's instructions do not change between its calls: split them once.
  const system = ports.contexts ? (view.system ?? splitInstructions(view.instructions)) : [];
  const firstSystem = ports.contexts && view.firstLook ? (view.firstLook.system ?? splitInstructions(view.firstLook.instructions)) : system;

  for (let i = 1; i <= limits.maxIterations; i++) {
    if (deps.signal.aborted) return stopped();
    emit?.({ type: "status", status: { state: "thinking", runId: run.runId, iteration: i } });

    const [tail, total] = await Promise.all([log.tail(limits.contextSteps), log.count()]);
    // The sealed past, once read: the whole stream's positions, its sealed summaries as the staircase. Until then (or in a forked child) the past before the tail is elided.
    const past = log.past?.();
    const source = past ? past.source(tail) : arraySource(view.contextBefore ? [...view.contextBefore, ...tail].filter(inStream) : tail.filter(inStream));
    const lookups = past ? oncePerBlock(past) : null;
    const opts: BuildOptions = {
      selfName: deps.config.selfName,
      budget: i === 1 && view.firstCallBudget ? view.firstCallBudget : limits.contextTokens,
      tiers: past?.tiers ?? DEFAULT_TIERS,
      summary: lookups ? lookups.summary : () => undefined,
      ...(lookups ? { missing: lookups.missing, plan: past?.plan } : { before: Math.max(0, total - tail.length) }),
      counter: view.counter,
      cache: view.cache,
      pinned: prompt,
      ancestors: view.ancestors,
    };
    const look = i === 1 ? view.firstLook : undefined;
    const built = (look?.build ?? buildContext)(source, opts);
    // A try re-running a past wake sends its first call exactly the messages that wake's first call was sent.
    const messages = i === 1 && view.firstMessages ? view.firstMessages : built.messages;
    if (ports.contexts) seen = seenCall(built, opts, source, { step_id: "", run_id: run.runId, traj_id: log.trajId, iteration: i, system: look ? firstSystem : system });
    calls++;
    const reply = await ports.model.complete({ instructions: look?.instructions ?? view.instructions, messages, signal: deps.signal, ...(emit ? { onDelta: (text: string) => emit({ type: "partial", text }) } : {}) });
    emit?.({ type: "partial", text: "" });
    if (!reply.ok) {
      // A spend cap refused the call before it went out: it saw nothing.
      if (reply.paused) seen = null;
      if (reply.aborted || deps.signal.aborted) return stopped();
      const usage = reply.usage ? { usage: reply.usage } : {};
      if (reply.paused) return end("budget", { type: "error", reason: "budget", content: reply.error, ...usage }, { error: reply.error, paused: reply.paused });
      const wait = reply.retryAfterS !== undefined ? { retryAfterS: reply.retryAfterS } : {};
      const note = reply.retryAfterS !== undefined ? ` (the server asks to wait ${reply.retryAfterS} s)` : "";
      return end("model-error", { type: "error", reason: "model", content: reply.error + note, ...usage }, { error: reply.error, ...wait });
    }

    tokens += (reply.inTokens ?? 0) + (reply.outTokens ?? 0);
    repeat.count = reply.text === repeat.text ? repeat.count + 1 : 1;
    repeat.text = reply.text;
    const usage = reply.usage ? { usage: reply.usage } : {};
    const parsed = parseReply(reply.text);
    if (parsed.code === null) {
      const content = reply.text.trim();
      if (!content) return end("error", { type: "error", reason: "empty-reply", content: "The model sent an empty reply.", ...usage });
      return end("thought", { type: "thought", content, source: "monolith", ...usage });
    }

    state.reasoning = parsed.reasoning;
    saw(await run.append({ type: "reasoning", thought: parsed.reasoning, cmd: parsed.code, in_tok: reply.inTokens, out_tok: reply.outTokens, ...usage }));
    const result = await exec(parsed.code, deps.signal);
    state.shell = { env: carriedEnv(result.env), cwd: result.cwd };
    const note = parsed.droppedBlocks > 0 ? `[reverie] ${parsed.droppedBlocks} more bash block(s) in the reply were not run: send one block per reply.\n` : "";
    await recordOutput(run, result, note);
    // What the block changed of the mind's own texts goes on the record now, and takes effect from the next run.
    // A settle that cannot write its step adopts nothing, and the next block's settle finds the same change again.
    await ports.self?.settle({ run: run.runId, traj: log.trajId }, result.selfRefused ?? 0).catch(() => undefined);
    if (deps.signal.aborted) return stopped();
    const stoppedWhy = result.limit === "silence" ? "it showed no sign of life for too long (the watchdog)" : result.limit === "wall" && result.timedOut ? "it ran past the wall-time limit" : null;
    if (stoppedWhy) {
      await run.append({ type: "feedback", content: `The block was stopped: ${stoppedWhy}. Its output so far is above. Split long work into shorter blocks.` });
    }

    const final = result.env.FINAL;
    if (final !== undefined) return end("final", { type: "final", content: final }, { answer: final });

    if (result.exit === 0) {
      failuresInRow = 0;
    } else {
      failuresInRow++;
      const same = (failuresOf.get(parsed.code) ?? 0) + 1;
      failuresOf.set(parsed.code, same);
      if (failuresInRow >= limits.maxFailuresInRow || same >= limits.maxSameFailure) {
        const why = same >= limits.maxSameFailure ? `the same command failed ${same} times` : `${failuresInRow} commands failed in a row`;
        return end("error", { type: "error", reason: "stall", content: `Run stopped: ${why}.` });
      }
    }
    if (repeat.count >= limits.maxRepeats) {
      return end("error", { type: "error", reason: "repeat", content: `Run stopped: the same reply ${repeat.count} times in a row.` });
    }
    if (tokens >= limits.maxTokens) {
      return end("error", { type: "error", reason: "tokens", content: `Run stopped: it used ${tokens} model tokens (the limit is ${limits.maxTokens}).` });
    }
  }
  return end("error", { type: "error", reason: "iterations", content: `No FINAL after ${limits.maxIterations} iterations; the run was ended.` });
}

type Lookups = Pick<BuildOptions, "summary"> & { missing: NonNullable<BuildOptions["missing"]> };

/**
 * The sealed past's answers for one build, each block asked once. A build
 * plans the staircase again for every cut it tries (up to 19), each plan asks
 * about every block it walks through (every tier-0 block of a past not
 * summarized yet), and each answer of the sealed past builds string keys:
 * at 10,000 steps with a summarizer behind, that was a third of an iteration.
 */
function oncePerBlock(past: Lookups): Lookups {
  // By tier, then index; null: asked, and there is none.
  const summaries: (Summary | null | undefined)[][] = [];
  const missing: (string | null | undefined)[][] = [];
  return {
    summary: (b) => {
      const row = (summaries[b.tier] ??= []);
      let s = row[b.index];
      if (s === undefined) row[b.index] = s = past.summary(b) ?? null;
      return s ?? undefined;
    },
    missing: (b) => {
      const row = (missing[b.tier] ??= []);
      let m = row[b.index];
      if (m === undefined) row[b.index] = m = past.missing(b) ?? null;
      return m ?? undefined;
    },
  };
}

async function recordOutput(run: RunScope, result: ShellResult, note: string): Promise<void> {
  const { journal } = run;
  const stepId = journal.newId();
  const stdout = splitOutput(result.stdout, `${stepId}.stdout`);
  const stderr = splitOutput(note + result.stderr, `${stepId}.stderr`);
  for (const out of [stdout, stderr]) if (out.blob) await journal.log.putBlob(out.blob.name, out.blob.text);
  await run.append({
    type: "shell-output",
    stdout: stdout.inline,
    stderr: stderr.inline,
    exit: result.exit,
    // To the microsecond: a quick block takes well under a millisecond, and a rounded 0 would hide it.
    exec_s: Math.round(result.execS * 1e6) / 1e6,
    timed_out: result.timedOut,
    ...blobFields("stdout", stdout),
    ...blobFields("stderr", stderr),
    step_id: stepId,
  });
}
