// Trying the mind's own texts before making them its own (issue 24, part 5):
// `self try` re-runs the inputs of its last wakes (each wake's task, its first
// call sent the messages that call was sent as recorded, or where its home
// keeps no records the steps before it as the stream) with a trial's texts, in a child
// trajectory and over a scratch copy of the workspace, and compares each run
// with what really happened; `self merge` makes the trial's texts its own, as
// self-edits citing the try. The `self` command (lib/shell/commands/self.ts)
// keeps the trial's files; this is the part that needs the mind.
import { buildContext } from "../../context/build";
import type { Step } from "../../trajectory/schema";
import { isKind, stepUsage } from "../../trajectory/schema";
import type { RunScope } from "../log/journal";
import type { TrialPort } from "../ports";
import type { RunDeps, RunOutcome, RunTask, TrialDeps } from "../run/types";

/** Wakes a try re-runs unless told otherwise, and at most. */
export const TRY_WAKES = 5;
export const TRY_WAKES_MAX = 20;
/** Steps read back to find the wakes, and shown before each re-run as the stream it saw. */
const LOOK_BACK = 3000;
const BEFORE_STEPS = 300;
/** The inner life's name on its wakes (Headlong's "monolith"). */
const INNER_LIFE = "monolith";

type RunFn = (deps: RunDeps, run: RunScope, task: RunTask) => Promise<RunOutcome>;

/** One run, as the comparison shows it. */
interface RunFacts {
  action: string;
  final: string | null;
  errors: number;
  tokens: number;
  usd: number;
}

const id8 = (id: string) => id.slice(0, 8);

/** What a run did, from its steps: its first block's first line (or "a thought"), its FINAL, its errors, its tokens and cost. */
export function runFacts(steps: readonly Step[]): RunFacts {
  const first = steps.find((s) => isKind(s, "reasoning"));
  const thought = steps.find((s) => isKind(s, "thought"));
  const cmd = first && isKind(first, "reasoning") ? (first.cmd.split("\n").find((l) => l.trim()) ?? "").trim() : "";
  const final = steps.find((s) => isKind(s, "final"));
  let tokens = 0;
  let usd = 0;
  for (const s of steps) {
    const u = stepUsage(s);
    if (!u) continue;
    tokens += u.input_tokens + u.output_tokens;
    usd += u.usd ?? 0;
  }
  return {
    action: cmd ? cmd.slice(0, 40) : thought ? "a thought, no block" : "nothing",
    final: final && isKind(final, "final") ? final.content : null,
    errors: steps.filter((s) => s.type === "error").length,
    tokens,
    usd,
  };
}

const factsLine = (f: RunFacts) => `${f.action.padEnd(40)}  ${(f.final === null ? "no FINAL" : `FINAL=${f.final.slice(0, 24)}`).padEnd(32)}  ${String(f.errors).padStart(2)} err  ${String(f.tokens).padStart(7)} tok  $${f.usd.toFixed(4)}`;

function totals(all: readonly RunFacts[]): string {
  const sum = (k: "errors" | "tokens" | "usd") => all.reduce((n, f) => n + f[k], 0);
  return `${all.filter((f) => f.final !== null).length}/${all.length} set FINAL, ${sum("errors")} errors, ${sum("tokens")} tokens, $${sum("usd").toFixed(4)}`;
}

export function selfTrials(deps: RunDeps, trial: TrialDeps, run: RunScope, runFn: RunFn): TrialPort {
  const log = run.journal.log;
  return {
    async try(name, texts, opts) {
      const last = Math.max(1, Math.min(TRY_WAKES_MAX, opts.last));
      const tail = await log.tail(LOOK_BACK);
      // The inner life's wakes before this run, each with its run: the newest `last`.
      const runOf = new Map<string, Step>();
      for (const s of tail) if (isKind(s, "shellm-run") && s.wake) runOf.set(s.wake, s);
      const wakes = tail.filter((s) => s.type === "wake" && s.source === INNER_LIFE && runOf.has(s.step_id) && runOf.get(s.step_id)?.step_id !== run.runId).slice(-last);
      if (!wakes.length) return { ok: false, error: "self try: no wake of your own to try it on yet (it re-runs your own past wakes; a nested run has none)" };
      const instructions = await trial.render(texts);
      // Said before any call goes out, in the trajectory: a try spends from the same caps as the mind.
      await run.append({ type: "observation", source: "self-try", content: `Trying trial ${name} on my last ${wakes.length > 1 ? `${wakes.length} wakes` : "wake"}: up to ${wakes.length * deps.config.limits.maxIterations} model calls with ${deps.ports.model.name}, counted against my budget like my own.` });
      const journal = run.journal;
      const child = journal.newId();
      const childName = `self try ${name}`;
      const fork = await run.append({ type: "fork", child, child_ref: `${child}-self-try-${name}` });
      const childJournal = await journal.fork({ trajId: child, name: childName, forkStepId: fork.step_id });
      const lines: string[] = [];
      const real: RunFacts[] = [];
      const tried: RunFacts[] = [];
      let lastStep = fork.step_id;
      for (const wake of wakes) {
        if (opts.signal.aborted) break;
        opts.beacon();
        const original = runOf.get(wake.step_id);
        if (!original) continue;
        const at = tail.indexOf(wake);
        const before = tail.slice(Math.max(0, at - BEFORE_STEPS), at);
        const steps = tail.filter((s) => s.run_id === original.step_id);
        const prompt = steps.find((s) => isKind(s, "prompt"));
        const task = prompt && isKind(prompt, "prompt") ? prompt.content : "";
        // Its first call's context as recorded, where the home keeps records (the first step a call led to: its reasoning, thought or error); else the steps before it as the stream.
        const led = steps.find((s) => s.type === "reasoning" || s.type === "thought" || s.type === "error");
        const seen = led ? await trial.recorded?.(led.step_id).catch(() => undefined) : undefined;
        const lean = seen?.firstLook && instructions.firstLook;
        const trialRun = await childJournal.openRun({ model: deps.ports.model.name, trigger_step: wake.step_id, launched_by: "self-try" });
        const outcome = await runFn(
          {
            ...deps,
            // A try changes no texts (its blocks' edits land in the scratch copy), records no context, and tries nothing itself.
            ports: { model: deps.ports.model, shell: await trial.scratch(), ...(deps.ports.alarms ? { alarms: deps.ports.alarms } : {}) },
            view: {
              ...deps.view,
              instructions: instructions.text,
              system: instructions.system,
              // A wake whose first call was a lean first look is tried with the trial's first look, on the messages that call was sent.
              firstLook: lean ? { instructions: lean.text, system: lean.system, build: buildContext } : undefined,
              ...(seen ? { firstMessages: seen.messages } : {}),
              firstCallBudget: undefined,
              contextBefore: before,
            },
            depth: deps.depth + 1,
            signal: AbortSignal.any([deps.signal, opts.signal]),
            emit: () => opts.beacon(),
          },
          trialRun,
          { prompt: task, shell: { env: {}, cwd: "/workspace" } },
        );
        lastStep = outcome.lastStepId;
        const mine = (await childJournal.log.tail(LOOK_BACK)).filter((s) => s.run_id === outcome.runId);
        const r = runFacts(steps);
        const t = runFacts(mine);
        real.push(r);
        tried.push(t);
        lines.push(`wake ${id8(wake.step_id)} (${isKind(wake, "wake") ? wake.reason : "?"}; ${seen ? "its first call's recorded context" : "the steps before it as context"})`, `  real   ${factsLine(r)}`, `  trial  ${factsLine(t)}`);
      }
      await run.append({ type: "merge", content: `Tried trial ${name} on ${tried.length} wake(s): ${totals(tried)} (they really did: ${totals(real)}).`, from_traj: child, from_step: lastStep, from_traj_ref: `${child}-self-try-${name}` });
      const head = `self try ${name}: ${tried.length} wake${tried.length > 1 ? "s" : ""} re-run with the trial's texts in trajectory ${id8(child)} (a scratch copy of the workspace; the calls counted against your budget)`;
      return { ok: true, child, report: [head, ...lines, `total  real   ${totals(real)}`, `       trial  ${totals(tried)}`].join("\n") };
    },
    async merge(name, tryChild, texts) {
      if (!deps.ports.self) return { ok: false, error: "self merge: your texts cannot be changed from here" };
      const done = await deps.ports.self.merge(name, tryChild, texts);
      if (!done.ok) return { ok: false, error: `self merge: ${done.error}` };
      if (!done.edits.length) return { ok: true, lines: [`trial ${name} is what your texts say already: nothing to merge`] };
      return { ok: true, lines: done.edits.map((e) => `${id8(e.step_id)} ${e.content}`) };
    },
  };
}
