"use client";
// The recent changes to a mind's settings, read from its `config` steps (each
// save in Settings is one): when, and what changed from the step before.
import { useConfigSteps } from "@/lib/store/view/hooks-settings";
import { configChanges } from "./config-changes";

/** Changes shown; one more step is read, to say what the oldest shown one changed. */
const SHOWN = 10;

export function ConfigHistory({ mindId }: { mindId: string }) {
  const steps = useConfigSteps(mindId, SHOWN + 1);
  return (
    <section data-testid="config-history" aria-labelledby="config-history-heading" className="rounded border border-stone-200 p-3 dark:border-stone-800">
      <h2 id="config-history-heading" className="mb-2 text-sm font-medium">
        Recent changes <span className="font-normal text-stone-500 dark:text-stone-400">(config steps in the trajectory)</span>
      </h2>
      {steps === undefined ? (
        <p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>
      ) : steps.length === 0 ? (
        <p className="text-sm text-stone-500 dark:text-stone-400">No config steps yet.</p>
      ) : (
        <ol className="flex flex-col gap-2">
          {steps.slice(0, SHOWN).map((step, i) => {
            const lines = configChanges(steps[i + 1], step);
            return (
              <li key={step.step_id} data-testid="config-change" data-step-id={step.step_id} className="text-sm">
                <time dateTime={step.ts} className="font-mono text-xs text-stone-500 dark:text-stone-400">
                  {new Date(step.ts).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" })}
                </time>
                {lines.length ? (
                  <ul className="ml-4 list-disc break-words">
                    {lines.map((l) => (
                      <li key={l} data-testid="config-change-line">
                        {l}
                      </li>
                    ))}
                  </ul>
                ) : (
                  <p className="ml-4 text-stone-500 dark:text-stone-400" data-testid="config-change-line">
                    saved, no recorded setting changed (a key, a base URL or a price is not recorded in the step)
                  </p>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
