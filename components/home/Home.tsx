"use client";
import Link from "next/link";
import { useArchives, useMinds } from "@/lib/store/view/hooks";
import { ImportPanel } from "./ImportPanel";
import { NewMindForm } from "./NewMindForm";
import { OwnerList } from "./OwnerList";

export function Home() {
  const minds = useMinds();
  const archives = useArchives();
  return (
    <main className="mx-auto max-w-3xl px-4 pt-4 pb-10 sm:pt-6">
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
          <p className="mt-2 text-sm text-stone-500 dark:text-stone-400">Loading…</p>
        ) : minds.length === 0 ? (
          <p className="mt-2 text-sm text-stone-500 dark:text-stone-400">None yet. Create one below.</p>
        ) : (
          <OwnerList
            testId="mind-list"
            items={minds.map((m) => ({
              id: m.id,
              href: `/mind/${m.id}`,
              name: m.name,
              detail: `${m.model.provider}/${m.model.model} · ${m.running ? "running" : "stopped"} · created ${m.created_at.slice(0, 10)}`,
            }))}
          />
        )}
      </section>

      <NewMindForm />
      <ImportPanel />

      {archives && archives.length > 0 && (
        <section className="mt-8" aria-labelledby="archives-heading">
          <h2 id="archives-heading" className="text-lg font-medium">
            Opened trajectories
          </h2>
          <OwnerList
            testId="archive-list"
            items={archives.map((a) => ({
              id: a.id,
              href: `/view/${a.id}`,
              name: a.name,
              detail: `${a.stats.steps.toLocaleString()} steps · from ${a.source} · ${a.created_at.slice(0, 10)}`,
            }))}
          />
        </section>
      )}

      <footer className="mt-10 border-t border-stone-200 pt-3 text-sm dark:border-stone-800">
        <Link href="/classroom" data-testid="classroom-link" className="text-indigo-700 underline dark:text-indigo-300">
          Classroom
        </Link>
        <span className="text-stone-500 dark:text-stone-400">: replay a mind&apos;s life, and compare harnesses on a scripted day.</span>
      </footer>
    </main>
  );
}
