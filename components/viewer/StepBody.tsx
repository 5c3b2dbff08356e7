"use client";
// The body of one step. Everything a mind wrote is untrusted: prose (thoughts,
// messages, answers) is shown as Markdown that never passes HTML through
// (../markdown), and commands, outputs and JSON as verbatim text. Each kind's
// fields are read as its schema types them (narrowed with isKind); a line kept
// as invalid is said to be so, and shown as it was read.
import { useState } from "react";
import { InvalidLine, type StepLine } from "@/lib/trajectory/headlong";
import { isKind, type Step, type StepOf } from "@/lib/trajectory/schema";
import { selfEditWho, stepText } from "@/lib/trajectory/summary";
import type { InspectTarget } from "../inspector/useSeenContext";
import { Markdown } from "../markdown/Markdown";

/** Kinds whose main text is the mind's prose; the others' (errors, wakes, config) are shown verbatim. */
const PROSE = new Set(["thought", "action", "observation", "idle", "feedback", "final", "prompt", "run-summary"]);

const mono = "mt-1 max-h-[32rem] overflow-auto whitespace-pre-wrap break-words rounded bg-stone-100 px-2 py-1 font-mono text-xs dark:bg-stone-900";

export interface BodyActions {
  /** The whole text of a cut output, from its blob; undefined when the blob is missing. */
  loadBlob: (ref: string) => Promise<string | undefined>;
  openTrajectory: (trajId: string, stepId?: string) => void;
  /** Open "what the model saw" for a run (and the call that led to a step); absent where nothing can be shown. */
  inspect?: (target: InspectTarget) => void;
}

function CutOutput({ text, bytes, refPath, actions, className }: { text: string; bytes: unknown; refPath: string; actions: BodyActions; className: string }) {
  const [full, setFull] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);
  return (
    <>
      <pre tabIndex={0} className={className}>{full ?? text}</pre>
      {full === null && (
        <button
          type="button"
          className="mt-1 text-xs text-indigo-600 underline disabled:no-underline disabled:opacity-60 dark:text-indigo-400"
          disabled={missing}
          data-testid="load-blob"
          onClick={async () => {
            const t = await actions.loadBlob(refPath);
            if (t === undefined) setMissing(true);
            else setFull(t);
          }}
        >
          {missing ? `the blob ${refPath} is missing; the first 4096 bytes are shown` : `show all ${String(bytes)} bytes`}
        </button>
      )}
    </>
  );
}

export function StepBody({ step, actions }: { step: StepLine; actions: BodyActions }) {
  if (step instanceof InvalidLine) return <InvalidBody line={step} />;
  if (isKind(step, "reasoning")) {
    return (
      <>
        {step.thought && <Markdown text={step.thought} />}
        <pre tabIndex={0} className={mono}>{step.cmd}</pre>
      </>
    );
  }
  if (isKind(step, "shell-output")) {
    return (
      <>
        <div className="text-xs text-stone-500 dark:text-stone-400">
          exit {step.exit}
          {step.exec_s === undefined ? "" : ` · ${step.exec_s} s`}
          {step.timed_out ? " · timed out" : ""}
        </div>
        {step.stdout &&
          (step.stdout_truncated && step.stdout_ref ? (
            <CutOutput text={step.stdout} bytes={step.stdout_bytes} refPath={step.stdout_ref} actions={actions} className={mono} />
          ) : (
            <pre tabIndex={0} className={mono}>{step.stdout}</pre>
          ))}
        {step.stderr &&
          (step.stderr_truncated && step.stderr_ref ? (
            <CutOutput text={step.stderr} bytes={step.stderr_bytes} refPath={step.stderr_ref} actions={actions} className={`${mono} text-red-700 dark:text-red-300`} />
          ) : (
            <pre tabIndex={0} className={`${mono} text-red-700 dark:text-red-300`}>{step.stderr}</pre>
          ))}
      </>
    );
  }
  if (isKind(step, "message")) {
    return (
      <div className="flex flex-wrap items-baseline gap-x-1 text-sm">
        <span className="shrink-0">
          <span className="font-medium">{step.from}</span>
          <span className="text-stone-500 dark:text-stone-400"> → {step.to}: </span>
        </span>
        <Markdown text={step.content} className="min-w-0 flex-1" />
      </div>
    );
  }
  if (isKind(step, "fork")) {
    const child = step.child;
    return (
      <button type="button" className="text-sm text-indigo-600 underline dark:text-indigo-400" data-testid="open-child" onClick={() => actions.openTrajectory(child)}>
        forked child {step.child_ref || child.slice(0, 8)} →
      </button>
    );
  }
  if (isKind(step, "merge")) {
    const { from_traj, from_step } = step;
    return (
      <>
        <Markdown text={step.content} />
        <button type="button" className="text-xs text-indigo-600 underline dark:text-indigo-400" onClick={() => actions.openTrajectory(from_traj, from_step)}>
          merged from {from_traj.slice(0, 8)}
        </button>
      </>
    );
  }
  if (isKind(step, "trajectory") && step.parent_traj) {
    const { parent_traj, parent_step } = step;
    return (
      <button type="button" className="text-sm text-indigo-600 underline dark:text-indigo-400" onClick={() => actions.openTrajectory(parent_traj, parent_step || undefined)}>
        ← forked from {parent_traj.slice(0, 8)}
      </button>
    );
  }
  if (isKind(step, "self-edit")) return <SelfEditBody step={step} />;
  const text = stepText(step);
  if (!text) return <KnownFields step={step} />;
  return PROSE.has(step.type) ? <Markdown text={text} /> : <p className="whitespace-pre-wrap break-words text-sm">{text}</p>;
}

/** A diff line's colour: added green, taken out red, file and hunk headers muted. */
function diffLineClass(line: string): string | undefined {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("@@")) return "text-stone-600 dark:text-stone-400";
  if (line.startsWith("+")) return "text-emerald-700 dark:text-emerald-400";
  if (line.startsWith("-")) return "text-red-700 dark:text-red-300";
  return undefined;
}

const diffBox = "mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-words rounded bg-stone-100 px-2 py-1 font-mono text-xs dark:bg-stone-900";

/** A change to the mind's own texts: its line, the file, who, the hashes, and the diff (text only: the mind may have written it). */
function SelfEditBody({ step }: { step: StepOf<"self-edit"> }) {
  // Each line with its own newline, so the pre's text is the diff exactly.
  const lines = step.diff.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return (
    <div data-testid="self-edit" data-path={step.path}>
      <p className="whitespace-pre-wrap break-words text-sm">{step.content}</p>
      <div className="text-xs text-stone-500 dark:text-stone-400" data-testid="self-edit-meta">
        <span className="font-mono">{step.path}</span> · by {selfEditWho(step.by)} ·{" "}
        <span className="font-mono">
          {step.before === null ? "new" : step.before.slice(0, 8)}→{step.after === null ? "removed" : step.after.slice(0, 8)}
        </span>
      </div>
      <pre tabIndex={0} className={diffBox} data-testid="self-edit-diff">
        {lines.map((line, i) => (
          <span key={i} className={diffLineClass(line)}>
            {line}
          </span>
        ))}
      </pre>
    </div>
  );
}

/** A line kept as invalid: said to be so (and why), and shown exactly as it was read. */
function InvalidBody({ line }: { line: InvalidLine }) {
  return (
    <>
      <p data-testid="invalid-line" className="text-xs font-medium text-red-700 dark:text-red-300">
        invalid {line.type} line: {line.error}
      </p>
      <pre tabIndex={0} className={mono}>{line.raw}</pre>
    </>
  );
}

/** For kinds without a main text: their own fields, as text. */
function KnownFields({ step }: { step: Step }) {
  const { type: _t, step_id: _id, ts: _ts, run_id: _r, trigger_step: _tr, source: _s, ...rest } = step;
  if (Object.keys(rest).length === 0) return null;
  return <pre tabIndex={0} className={mono}>{JSON.stringify(rest, null, 2)}</pre>;
}
