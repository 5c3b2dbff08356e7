"use client";
// An imported trajectory, read-only; with a Scoreboard tab beside it when the
// archive came with a `reverie eval` run's results.json.
import Link from "next/link";
import { Suspense } from "react";
import { useArchive, useLocalSource } from "@/lib/store/view/hooks";
import { useArchiveResults } from "@/lib/store/view/hooks-results";
import { ExportButton } from "../mind/ExportButton";
import { NotFound } from "../home/OwnerList";
import { Scoreboard } from "../scoreboard/Scoreboard";
import { ArchiveTabs } from "./ArchiveTabs";
import { TrajectoryViewer } from "./TrajectoryViewer";

export function ArchiveView({ id }: { id: string }) {
  const archive = useArchive(id);
  const source = useLocalSource(id, "archive");
  const results = useArchiveResults(id);
  if (archive === null) return <NotFound what="imported trajectory" />;
  return (
    <main className="mx-auto flex h-app max-w-5xl flex-col gap-3 px-4 py-3">
      <header className="flex flex-wrap items-baseline gap-3 border-b border-stone-200 pb-3 dark:border-stone-800">
        <Link href="/" className="text-sm text-stone-500 dark:text-stone-400 hover:underline">
          ← home
        </Link>
        <h1 className="text-xl font-semibold">{archive?.name ?? "…"}</h1>
        {archive && (
          <span className="text-xs text-stone-500 dark:text-stone-400" data-testid="archive-stats">
            read-only · from {archive.source} · {archive.stats.steps.toLocaleString()} steps · {archive.stats.trajectories} trajectories · {archive.stats.runs} runs
            {archive.stats.skipped ? ` · ${archive.stats.skipped} lines skipped` : ""}
          </span>
        )}
        <span className="ml-auto flex items-baseline gap-3">
          <Link href={`/replay/view/${id}`} data-testid="replay-link" className="text-sm text-indigo-700 underline dark:text-indigo-300">
            Replay
          </Link>
          {archive && <ExportButton owner={id} name={archive.name} />}
        </span>
      </header>
      {results?.ok === false && (
        <p data-testid="results-error" role="status" className="text-sm text-amber-800 dark:text-amber-300">
          This archive has a results.json, but no scoreboard: {results.error}
        </p>
      )}
      <Suspense fallback={<p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>}>
        <ArchiveTabs trajectory={<TrajectoryViewer source={source} />} scoreboard={results?.ok ? <Scoreboard archiveId={id} results={results.results} /> : null} />
      </Suspense>
    </main>
  );
}
