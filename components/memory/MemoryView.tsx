"use client";
// What the mind keeps with `focus` (its goals) and `mem` (its long-term
// memories), searchable, following its saves. Everything shown is the mind's
// own text: React escapes it, nothing is rendered as HTML or Markdown.
import { useDeferredValue, useState } from "react";
import { useMindNotes } from "@/lib/store/view/hooks";
import type { Goal } from "@/lib/shell/focus-file";
import type { Memory } from "@/lib/shell/memory-file";

const muted = "text-sm text-stone-500 dark:text-stone-400";

export function MemoryView({ mindId }: { mindId: string }) {
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query);
  const shown = useMindNotes(mindId, deferred);
  const searching = deferred.trim() !== "";

  return (
    <section data-testid="memory-view" aria-label="Memory and goals" className="flex min-h-0 flex-1 flex-col gap-3 overflow-auto py-3">
      <label className="flex flex-col gap-1 text-sm sm:flex-row sm:items-center sm:gap-2">
        Search memories and goals
        <input
          type="search"
          data-testid="memory-search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          placeholder="text or tag"
          className="min-h-10 w-full rounded border border-stone-300 bg-white px-2 py-1 sm:min-h-0 sm:w-72 dark:border-stone-700 dark:bg-stone-950"
        />
      </label>
      {!shown ? (
        <p className={muted}>Loading…</p>
      ) : (
        <>
          <Goals goals={shown.goals} empty={searching ? "No goal matches." : "No goals yet: the mind sets them with focus set."} />
          <Memories memories={shown.memories} empty={searching ? "No memory matches." : "No memories yet: the mind keeps them with mem add."} />
        </>
      )}
    </section>
  );
}

function Goals({ goals, empty }: { goals: Goal[]; empty: string }) {
  return (
    <section aria-labelledby="memory-goals-heading">
      <h2 id="memory-goals-heading" className="mb-1 text-sm font-medium">
        Goals <span className={muted}>(focus.md)</span>
      </h2>
      {goals.length === 0 ? (
        <p className={muted}>{empty}</p>
      ) : (
        <ul className="flex flex-col gap-1">
          {goals.map((g) => (
            <li key={`${g.line}:${g.id}`} data-testid="goal-item" data-done={g.done} data-goal-id={g.id} className="flex items-baseline gap-2 text-sm">
              <span aria-hidden className={g.done ? "text-emerald-600 dark:text-emerald-400" : "text-stone-400"}>
                {g.done ? "☑" : "☐"}
              </span>
              <span className="sr-only">{g.done ? "done:" : "open:"}</span>
              <span className="font-mono text-xs text-stone-500 dark:text-stone-400">{g.id}</span>
              <span data-testid="goal-text" className={`min-w-0 break-words ${g.done ? "text-stone-500 line-through dark:text-stone-400" : ""}`}>{g.goal}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** `YYYY-MM-DD HH:MM` UTC, as `mem list` prints it; a hand-written time that does not parse is shown as written. */
function stamp(created: string): string {
  const t = Date.parse(created);
  if (Number.isNaN(t)) return created;
  const iso = new Date(t).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function Memories({ memories, empty }: { memories: Memory[]; empty: string }) {
  return (
    <section aria-labelledby="memory-memories-heading">
      <h2 id="memory-memories-heading" className="mb-1 text-sm font-medium">
        Memories <span className={muted}>(memory/, newest first)</span>
      </h2>
      {memories.length === 0 ? (
        <p className={muted}>{empty}</p>
      ) : (
        <ul className="flex flex-col gap-2">
          {memories.map((m) => (
            <li key={m.id} data-testid="memory-item" data-memory-id={m.id} className="rounded border border-stone-200 p-2 dark:border-stone-800">
              <div className="flex flex-wrap items-baseline gap-2 text-xs text-stone-500 dark:text-stone-400">
                <span className="font-mono" data-testid="memory-id">
                  {m.id}
                </span>
                <time dateTime={Number.isNaN(Date.parse(m.created)) ? undefined : m.created} data-testid="memory-date">
                  {stamp(m.created)}
                </time>
                {m.tags.map((t) => (
                  <span key={t} data-testid="memory-tag" className="rounded bg-stone-100 px-1.5 text-stone-700 dark:bg-stone-800 dark:text-stone-300">
                    {t}
                  </span>
                ))}
              </div>
              <p data-testid="memory-text" className="mt-1 whitespace-pre-wrap break-words text-sm">
                {m.text.replace(/\s+$/, "")}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
