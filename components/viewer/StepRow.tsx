"use client";
import { memo } from "react";
import type { RunInfo, IndexEntry } from "@/lib/trajectory/rows";
import { InvalidLine, type StepLine } from "@/lib/trajectory/headlong";
import { InspectButton } from "../inspector/InspectButton";
import { StepBody, type BodyActions } from "./StepBody";

const TYPE_STYLE: Record<string, string> = {
  reasoning: "border-indigo-400",
  "shell-output": "border-stone-400",
  message: "border-emerald-500",
  thought: "border-violet-400",
  final: "border-sky-400",
  error: "border-red-500",
  wake: "border-amber-300",
  "monolith-wake": "border-amber-300",
  alarm: "border-orange-400",
  idle: "border-amber-200",
  feedback: "border-emerald-300",
  observation: "border-teal-400",
  fork: "border-fuchsia-500",
  merge: "border-fuchsia-500",
  "shellm-run": "border-indigo-700",
  // A change to the mind's own texts stands out: it changes how the mind thinks from then on.
  "self-edit": "border-pink-500",
};

export function typeColour(type: string): string {
  return TYPE_STYLE[type] ?? "border-stone-300";
}

export interface StepRowProps {
  entry: IndexEntry;
  /** Its body once loaded: a valid step, or a line kept as invalid. */
  step: StepLine | undefined;
  inRun: boolean;
  run?: RunInfo;
  selected: boolean;
  matched: boolean;
  actions: BodyActions;
  onSelect: (id: string) => void;
  onToggleRun: (runId: string) => void;
}

/** Memoized: while scrolling, only rows whose data changed re-render. */
export const StepRow = memo(function StepRow({ entry, step, inRun, run, selected, matched, actions, onSelect, onToggleRun }: StepRowProps) {
  return (
    <div
      data-testid="step"
      data-step-type={entry.type}
      data-step-id={entry.id}
      data-invalid={entry.invalid !== undefined || undefined}
      data-selected={selected || undefined}
      onClick={(e) => {
        if ((e.target as HTMLElement).closest("button,a")) return;
        onSelect(entry.id);
      }}
      className={`border-l-2 ${typeColour(entry.type)} ${entry.invalid !== undefined ? "border-dashed" : ""} py-1 pl-3 ${inRun ? "ml-5" : ""} ${selected ? "bg-amber-50 ring-1 ring-amber-300 dark:bg-amber-950/40" : matched ? "bg-yellow-50 dark:bg-yellow-950/30" : ""}`}
    >
      <div className="flex items-baseline gap-2 text-xs text-stone-500 dark:text-stone-400">
        {run && (
          <button
            type="button"
            aria-expanded={!run.collapsed}
            aria-label={run.collapsed ? "Expand run" : "Collapse run"}
            data-testid="toggle-run"
            className="w-4 text-stone-600 hover:text-stone-900 dark:text-stone-400"
            onClick={() => onToggleRun(run.runId)}
          >
            {run.collapsed ? "▸" : "▾"}
          </button>
        )}
        <span className="font-mono font-medium text-stone-700 dark:text-stone-300">{entry.type}</span>
        {entry.invalid !== undefined && (
          <span data-testid="invalid-mark" className="rounded bg-red-100 px-1 text-red-800 dark:bg-red-950 dark:text-red-200" title={`invalid ${entry.type} line: ${entry.invalid}`}>
            invalid
          </span>
        )}
        {entry.source && <span className="rounded bg-stone-200 px-1 text-stone-700 dark:bg-stone-800 dark:text-stone-300">{entry.source}</span>}
        <time dateTime={entry.ts} title={entry.ts}>
          {entry.ts.slice(11, 19)}
        </time>
        {run && (
          <span>
            {run.count} step{run.count === 1 ? "" : "s"}
            {run.end ? ` · ${run.end.type}${run.end.preview ? `: ${run.end.preview.slice(0, 60)}` : ""}` : " · running"}
          </span>
        )}
        {run && entry.trigger && (
          <button type="button" className="underline" title="Show the step that woke this run" onClick={() => onSelect(entry.trigger as string)}>
            woken by {entry.trigger.slice(0, 8)}
          </button>
        )}
      </div>
      {step ? <StepBody step={step} actions={actions} /> : entry.preview && <p className="truncate text-sm text-stone-500 dark:text-stone-400">{entry.preview}</p>}
      {step && !(step instanceof InvalidLine) && <InspectButton step={step} onInspect={actions.inspect} />}
    </div>
  );
});
