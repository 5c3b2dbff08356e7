"use client";
// "What the model saw" for one run: its calls, and for the chosen one the
// exact messages sent (the instructions as the system message, then the
// context), the tokens of each part, and links from each part to the steps
// it covers and cites. Everything shown is untrusted text (React escapes it),
// never HTML.
import { useEffect, useRef } from "react";
import { ContextParts } from "./ContextParts";
import { useSeenContext, type InspectTarget } from "./useSeenContext";

const pre = "mt-1 max-h-80 overflow-auto whitespace-pre-wrap break-words rounded bg-stone-100 px-2 py-1 font-mono text-xs dark:bg-stone-900";

export interface ContextInspectorProps {
  /** Whose records to read (the mind's id); absent for a source with none in this browser. */
  owner: string | undefined;
  target: InspectTarget;
  onClose: () => void;
  /** Jump to a step in the stream (and highlight it). */
  onShowStep: (stepId: string) => void;
}

export function ContextInspector({ owner, target, onClose, onShowStep }: ContextInspectorProps) {
  const { seen, choose } = useSeenContext(owner, target);
  const panel = useRef<HTMLElement>(null);
  // Opened from a keyboard, the reader lands in the panel; Escape closes it (and is not the stream's Escape).
  useEffect(() => panel.current?.focus(), []);
  return (
    <section
      ref={panel}
      tabIndex={-1}
      onKeyDown={(e) => {
        if (e.key !== "Escape") return;
        e.stopPropagation();
        onClose();
      }}
      data-testid="context-inspector"
      aria-label="What the model saw"
      className="flex max-h-[60vh] flex-col gap-2 overflow-auto rounded border border-indigo-200 p-2 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400 dark:border-indigo-900">
      <header className="flex items-baseline gap-2">
        <h2 className="text-sm font-medium">What the model saw</h2>
        <span className="font-mono text-xs text-stone-500 dark:text-stone-400">run {target.runId.slice(0, 8)}</span>
        <button type="button" data-testid="context-inspector-close" className="ml-auto text-xs underline" onClick={onClose}>
          close
        </button>
      </header>
      {seen.state === "loading" && <p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>}
      {seen.state === "failed" && (
        <p data-testid="context-error" className="text-sm text-red-700 dark:text-red-300">
          Could not read what the model saw: {seen.error}
        </p>
      )}
      {seen.state === "none" && (
        <p data-testid="context-none" className="text-sm text-stone-600 dark:text-stone-400">
          There is no record of what the model saw in this run: it ran before this browser kept such records, or it was imported or shared from elsewhere. Its steps are all in the stream.
        </p>
      )}
      {seen.state === "ready" && <Ready seen={seen} choose={choose} onShowStep={onShowStep} />}
    </section>
  );
}

function Ready({ seen, choose, onShowStep }: { seen: Extract<ReturnType<typeof useSeenContext>["seen"], { state: "ready" }>; choose: (at: number) => void; onShowStep: (id: string) => void }) {
  const { call, missing: lostText } = seen.calls[seen.at] ?? { call: undefined, missing: [] };
  if (!call) return null;
  const missing = [...lostText, ...(seen.replayed?.missing ?? [])];
  return (
    <>
      {seen.calls.length > 1 && (
        <div role="group" aria-label="The run's model calls" className="flex flex-wrap gap-1 text-xs">
          {seen.calls.map((c, i) => (
            <button
              key={c.call.step_id}
              type="button"
              data-testid="context-call"
              data-step-id={c.call.step_id}
              aria-pressed={i === seen.at}
              className={`rounded border px-2 py-0.5 ${i === seen.at ? "border-indigo-500 bg-indigo-50 dark:bg-indigo-950" : "border-stone-300 dark:border-stone-700"}`}
              onClick={() => choose(i)}
            >
              call {c.call.iteration}
            </button>
          ))}
        </div>
      )}
      <p className="text-xs text-stone-500 dark:text-stone-400">
        Call {call.iteration}, which led to{" "}
        <button type="button" className="font-mono text-indigo-600 underline dark:text-indigo-400" data-testid="context-led-to" onClick={() => onShowStep(call.step_id)}>
          {call.step_id.slice(0, 8)}
        </button>
        .
      </p>
      {missing.length > 0 && (
        <p data-testid="context-missing" className="text-sm text-amber-700 dark:text-amber-300">
          Not everything this call cites is in this browser ({missing.join(", ")}): the messages below are not exactly those sent.
        </p>
      )}
      <ContextParts lines={seen.lines} total={seen.total} budget={call.budget} onShowStep={onShowStep} />
      {seen.replayed ? (
        <ol data-testid="context-messages" className="flex flex-col gap-2">
          {[{ role: "system", content: seen.replayed.system }, ...seen.replayed.messages].map((m, i) => (
            <li key={i} data-testid="context-message" data-role={m.role}>
              <div className="text-xs font-medium text-stone-500 dark:text-stone-400">{m.role}</div>
              <pre tabIndex={0} className={pre} data-testid="context-message-content">
                {m.content}
              </pre>
            </li>
          ))}
        </ol>
      ) : (
        <p className="text-sm text-stone-500 dark:text-stone-400">Rebuilding the messages…</p>
      )}
    </>
  );
}
