"use client";
// "What the model saw", for any run: the mind's runs, newest first, and the
// chosen one in the context inspector (the same one the stream opens).
import { useMemo, useState } from "react";
import { useTimelineSteps } from "@/lib/store/view/hooks";
import { timelineOf } from "@/lib/trajectory/timeline";
import { ContextInspector } from "../inspector/ContextInspector";
import { useViewerUrl } from "../viewer/useViewerUrl";
import { runItems } from "./runs";

/** Runs listed at first; a long life shows more on request. */
const PAGE = 100;

const when = (at: number | null) => (at === null ? "" : new Date(at).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" }));

/** `onShowStream`: bring the stream into view; the step to open is set in the URL (`?step=`), as the timeline does. */
export function ContextTab({ mindId, onShowStream }: { mindId: string; onShowStream: () => void }) {
  const steps = useTimelineSteps(mindId, null);
  const runs = useMemo(() => (steps ? runItems(timelineOf(steps)) : undefined), [steps]);
  const [chosen, setChosen] = useState<string | null>(null);
  const [shown, setShown] = useState(PAGE);
  const [, setUrl] = useViewerUrl();
  const showStep = (stepId: string) => {
    setUrl({ step: stepId });
    onShowStream();
  };

  return (
    <section data-testid="context-view" aria-label="What the model saw, run by run" className="flex min-h-0 flex-1 flex-col gap-3 overflow-auto py-3 md:flex-row">
      <nav aria-label="The mind's runs" className="flex shrink-0 flex-col gap-1 md:max-h-full md:w-80 md:overflow-auto">
        {runs === undefined ? (
          <p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>
        ) : runs.length === 0 ? (
          <p className="text-sm text-stone-500 dark:text-stone-400">No runs yet: each wake of the mind is a run, listed here once it begins.</p>
        ) : (
          <>
            <ul className="flex flex-col gap-1">
              {runs.slice(0, shown).map((r) => (
                <li key={r.id}>
                  <button
                    type="button"
                    data-testid="context-run"
                    data-run-id={r.id}
                    aria-pressed={chosen === r.id}
                    onClick={() => setChosen((c) => (c === r.id ? null : r.id))}
                    title={r.outcome}
                    className={`min-h-10 w-full rounded border px-2 py-1 text-left text-sm ${chosen === r.id ? "border-indigo-500 bg-indigo-50 dark:bg-indigo-950" : "border-stone-200 hover:bg-stone-50 dark:border-stone-800 dark:hover:bg-stone-900"}`}
                  >
                    <span className="flex flex-wrap items-baseline gap-x-2">
                      <time className="font-mono text-xs" dateTime={r.at === null ? undefined : new Date(r.at).toISOString()}>
                        {when(r.at)}
                      </time>
                      <span className="text-xs text-stone-500 dark:text-stone-400" data-testid="context-run-steps">
                        {r.steps === 1 ? "1 step" : `${r.steps} steps`}
                      </span>
                    </span>
                    <span className="block break-words" data-testid="context-run-woke">
                      {r.woke}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
            {runs.length > shown && (
              <button type="button" className="min-h-10 rounded border border-stone-300 px-2 text-sm dark:border-stone-700" onClick={() => setShown((n) => n + PAGE)}>
                Show {Math.min(PAGE, runs.length - shown)} older runs
              </button>
            )}
          </>
        )}
      </nav>
      <div className="min-w-0 flex-1">
        {chosen ? (
          <ContextInspector key={chosen} owner={mindId} target={{ runId: chosen }} onClose={() => setChosen(null)} onShowStep={showStep} />
        ) : (
          runs !== undefined && runs.length > 0 && <p className="text-sm text-stone-500 dark:text-stone-400">Choose a run to see the exact messages its model calls were sent.</p>
        )}
      </div>
    </section>
  );
}
