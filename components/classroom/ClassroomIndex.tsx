"use client";
// The classroom: replay any mind or imported trajectory in this browser, and
// compare harnesses on a scripted day, each in a form that reads on a projector.
import Link from "next/link";
import { useArchives, useMinds } from "@/lib/store/view/hooks";
import { OwnerList } from "../home/OwnerList";
import { replayHref } from "../replay/ReplaySources";
import { PRESENTING_CONTRAST, PresentationToggle, usePresenting } from "./presentation";

export function ClassroomIndex() {
  const minds = useMinds();
  const archives = useArchives();
  const presenting = usePresenting();
  const none = <p className="mt-2 text-sm text-stone-500 dark:text-stone-400">None in this browser yet.</p>;
  return (
    <main data-testid="classroom" className={`mx-auto max-w-3xl px-4 pt-4 pb-10 ${presenting ? PRESENTING_CONTRAST : ""}`}>
      <header className="flex flex-wrap items-baseline gap-3">
        {!presenting && (
          <Link href="/" className="text-sm text-stone-500 hover:underline dark:text-stone-400">
            ← home
          </Link>
        )}
        <h1 className="text-3xl font-semibold tracking-tight">Classroom</h1>
        <span className="ml-auto">
          <PresentationToggle />
        </span>
      </header>
      <p className="mt-2 text-stone-600 dark:text-stone-400">Show a mind&apos;s life step by step, or what waking on its own costs next to waking only when spoken to.</p>

      <section className="mt-6" aria-labelledby="harness-heading">
        <h2 id="harness-heading" className="text-lg font-medium">
          Harnesses compared
        </h2>
        <p className="mt-1 text-sm text-stone-600 dark:text-stone-400">
          <Link href="/classroom/harnesses" data-testid="classroom-harnesses" className="text-indigo-700 underline dark:text-indigo-300">
            One scripted day, three harnesses
          </Link>
          : reactive, reactive on a timer, and persistent (Reverie&apos;s real pacing), side by side with wakes and cost. A simulation.
        </p>
      </section>

      <section className="mt-6" aria-labelledby="replay-minds">
        <h2 id="replay-minds" className="text-lg font-medium">
          Replay a mind
        </h2>
        {minds === undefined ? null : minds.length === 0 ? none : <OwnerList testId="classroom-minds" items={minds.map((m) => ({ id: m.id, href: replayHref.mind(m.id), name: m.name, detail: `replay · created ${m.created_at.slice(0, 10)}` }))} />}
      </section>

      <section className="mt-6" aria-labelledby="replay-imports">
        <h2 id="replay-imports" className="text-lg font-medium">
          Replay an imported trajectory
        </h2>
        {archives === undefined ? null : archives.length === 0 ? none : <OwnerList testId="classroom-archives" items={archives.map((a) => ({ id: a.id, href: replayHref.archive(a.id), name: a.name, detail: `replay · ${a.stats.steps.toLocaleString("en")} steps` }))} />}
      </section>
    </main>
  );
}
