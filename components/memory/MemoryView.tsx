"use client";
// What the mind keeps with `focus` (its goals) and `mem` (its long-term
// memories), searchable, following its saves; and its owner's changes to
// them, each a step the mind reads (lib/shell/curation.ts). A stopped mind's
// files change at once; a running one's when its worker takes the change.
import { useDeferredValue, useState } from "react";
import { useMindNotes } from "@/lib/store/view/hooks";
import { useMemoryCuration, type CurationOutcome } from "@/lib/store/view/hooks-memory";
import { CurationStatus, Goals, Memories, useCurator, type CurationAnswer } from "./MemoryLists";

const muted = "text-sm text-stone-500 dark:text-stone-400";

/** How a change went, from its step (or from its wait). */
export function ownerAnswer(o: CurationOutcome): CurationAnswer {
  if (o.state === "waiting") return { state: "waiting", text: "Waiting for the mind to take the change: it is made as soon as it does." };
  return o.step.failed ? { state: "failed", text: `Not changed: ${o.step.failed}.` } : { state: "done", text: `Done. The mind reads: “${o.step.content}”` };
}

export function MemoryView({ mindId, running }: { mindId: string; running: boolean }) {
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query);
  const shown = useMindNotes(mindId, deferred);
  const searching = deferred.trim() !== "";
  const curation = useMemoryCuration(mindId, running);
  const curator = useCurator(async (req) => ownerAnswer(await curation.curate(req)));
  const queued = curation.queued.length;

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
      <CurationStatus curator={curator} queued={queued} />
      {!shown ? (
        <p className={muted}>Loading…</p>
      ) : (
        <>
          <Goals goals={shown.goals} empty={searching ? "No goal matches." : "No goals yet: the mind sets them with focus set, and you can set one here."} curator={curator} />
          <Memories memories={shown.memories} empty={searching ? "No memory matches." : "No memories yet: the mind keeps them with mem add, and you can add one here."} curator={curator} />
        </>
      )}
    </section>
  );
}
