"use client";
import Link from "next/link";
import { useArchives, useMinds } from "@/lib/store/hooks";
import { ImportPanel } from "./ImportPanel";
import { NewMindForm } from "./NewMindForm";

export function Home() {
  const minds = useMinds();
  const archives = useArchives();
  return (
    <main className="mx-auto max-w-3xl px-4 py-10">
      <h1 className="text-3xl font-semibold tracking-tight">Reverie</h1>
      <p className="mt-2 text-stone-600 dark:text-stone-400">
        A persistent mind in a browser tab. It keeps thinking on its own, acts by writing bash in a sandbox, and records its whole
        life in an append-only trajectory. Messages land in its thought stream; it decides if and when to answer.
      </p>

      <section className="mt-8" aria-labelledby="minds-heading">
        <h2 id="minds-heading" className="text-lg font-medium">
          Minds in this browser
        </h2>
        {minds === undefined ? (
          <p className="mt-2 text-sm text-stone-500">Loading…</p>
        ) : minds.length === 0 ? (
          <p className="mt-2 text-sm text-stone-500">None yet. Create one below.</p>
        ) : (
          <ul className="mt-2 divide-y divide-stone-200 rounded border border-stone-200 dark:divide-stone-800 dark:border-stone-800" data-testid="mind-list">
            {minds.map((m) => (
              <li key={m.id}>
                <Link href={`/mind/${m.id}`} className="flex items-baseline justify-between gap-4 px-3 py-2 hover:bg-stone-100 focus:bg-stone-100 focus:outline-none dark:hover:bg-stone-900 dark:focus:bg-stone-900">
                  <span className="font-medium">{m.name}</span>
                  <span className="truncate text-xs text-stone-500">
                    {m.model.provider}/{m.model.model} · {m.running ? "running" : "stopped"} · created {m.created_at.slice(0, 10)}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </section>

      <NewMindForm />
      <ImportPanel />

      {archives && archives.length > 0 && (
        <section className="mt-8" aria-labelledby="archives-heading">
          <h2 id="archives-heading" className="text-lg font-medium">
            Opened trajectories
          </h2>
          <ul className="mt-2 divide-y divide-stone-200 rounded border border-stone-200 dark:divide-stone-800 dark:border-stone-800" data-testid="archive-list">
            {archives.map((a) => (
              <li key={a.id}>
                <Link href={`/view/${a.id}`} className="flex items-baseline justify-between gap-4 px-3 py-2 hover:bg-stone-100 focus:bg-stone-100 focus:outline-none dark:hover:bg-stone-900 dark:focus:bg-stone-900">
                  <span className="font-medium">{a.name}</span>
                  <span className="truncate text-xs text-stone-500">
                    {a.stats.steps.toLocaleString()} steps · from {a.source} · {a.created_at.slice(0, 10)}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        </section>
      )}
    </main>
  );
}
