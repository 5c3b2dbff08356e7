"use client";
// Chips to show only some kinds of step; none selected shows all.
import { memo } from "react";
import { typeColour } from "./StepRow";

export const TypeFilter = memo(function TypeFilter({ counts, selected, onChange }: { counts: ReadonlyMap<string, number>; selected: ReadonlySet<string> | null; onChange: (types: string[] | null) => void }) {
  const types = [...counts.keys()].sort();
  const toggle = (t: string) => {
    const next = new Set(selected ?? []);
    if (!next.delete(t)) next.add(t);
    onChange(next.size ? [...next] : null);
  };
  return (
    <div className="flex flex-wrap gap-1" role="group" aria-label="Show only these kinds of step" data-testid="type-filter">
      {types.map((t) => {
        const on = selected?.has(t) ?? false;
        return (
          <button
            key={t}
            type="button"
            aria-pressed={on}
            data-type={t}
            onClick={() => toggle(t)}
            className={`rounded border-l-4 ${typeColour(t)} px-2 py-0.5 text-xs ${on ? "bg-indigo-100 font-medium dark:bg-indigo-950" : "bg-stone-100 dark:bg-stone-900"}`}
          >
            {t} <span className="text-stone-600 dark:text-stone-400">{counts.get(t)}</span>
          </button>
        );
      })}
      {selected && (
        <button type="button" className="text-xs underline" onClick={() => onChange(null)}>
          show all
        </button>
      )}
    </div>
  );
});
