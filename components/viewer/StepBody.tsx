"use client";
// The body of one step. Everything a mind wrote is untrusted: prose (thoughts,
// messages, answers) is shown as Markdown that never passes HTML through
// (../markdown), and commands, outputs and JSON as verbatim text.
import { useState } from "react";
import type { Step } from "@/lib/trajectory/schema";
import { stepText } from "@/lib/trajectory/summary";
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

export function StepBody({ step, actions }: { step: Step; actions: BodyActions }) {
  const s = step as Record<string, unknown>;
  const str = (k: string) => (typeof s[k] === "string" ? (s[k] as string) : "");
  switch (step.type) {
    case "reasoning":
      return (
        <>
          {str("thought") && <Markdown text={str("thought")} />}
          <pre tabIndex={0} className={mono}>{str("cmd")}</pre>
        </>
      );
    case "shell-output":
      return (
        <>
          <div className="text-xs text-stone-500 dark:text-stone-400">
            exit {String(s.exit)} · {String(s.exec_s)} s{s.timed_out ? " · timed out" : ""}
          </div>
          {str("stdout") &&
            (s.stdout_truncated && str("stdout_ref") ? (
              <CutOutput text={str("stdout")} bytes={s.stdout_bytes} refPath={str("stdout_ref")} actions={actions} className={mono} />
            ) : (
              <pre tabIndex={0} className={mono}>{str("stdout")}</pre>
            ))}
          {str("stderr") &&
            (s.stderr_truncated && str("stderr_ref") ? (
              <CutOutput text={str("stderr")} bytes={s.stderr_bytes} refPath={str("stderr_ref")} actions={actions} className={`${mono} text-red-700 dark:text-red-300`} />
            ) : (
              <pre tabIndex={0} className={`${mono} text-red-700 dark:text-red-300`}>{str("stderr")}</pre>
            ))}
        </>
      );
    case "message":
      return (
        <div className="flex flex-wrap items-baseline gap-x-1 text-sm">
          <span className="shrink-0">
            <span className="font-medium">{str("from")}</span>
            <span className="text-stone-500 dark:text-stone-400"> → {str("to")}: </span>
          </span>
          <Markdown text={str("content")} className="min-w-0 flex-1" />
        </div>
      );
    case "fork":
      return (
        <button type="button" className="text-sm text-indigo-600 underline dark:text-indigo-400" data-testid="open-child" onClick={() => actions.openTrajectory(str("child"))}>
          forked child {str("child_ref") || str("child").slice(0, 8)} →
        </button>
      );
    case "merge":
      return (
        <>
          <Markdown text={str("content")} />
          <button type="button" className="text-xs text-indigo-600 underline dark:text-indigo-400" onClick={() => actions.openTrajectory(str("from_traj"), str("from_step"))}>
            merged from {str("from_traj").slice(0, 8)}
          </button>
        </>
      );
    default: {
      if (step.type === "trajectory" && str("parent_traj")) {
        return (
          <button type="button" className="text-sm text-indigo-600 underline dark:text-indigo-400" onClick={() => actions.openTrajectory(str("parent_traj"), str("parent_step") || undefined)}>
            ← forked from {str("parent_traj").slice(0, 8)}
          </button>
        );
      }
      const text = stepText(step);
      if (!text) return <KnownFields step={s} />;
      return PROSE.has(step.type) ? <Markdown text={text} /> : <p className="whitespace-pre-wrap break-words text-sm">{text}</p>;
    }
  }
}

/** For kinds without a main text: their own fields, as text. */
function KnownFields({ step }: { step: Record<string, unknown> }) {
  const { type: _t, step_id: _id, ts: _ts, run_id: _r, trigger_step: _tr, source: _s, ...rest } = step;
  if (Object.keys(rest).length === 0) return null;
  return <pre tabIndex={0} className={mono}>{JSON.stringify(rest, null, 2)}</pre>;
}
