"use client";
import Link from "next/link";
import { useEffect, useRef } from "react";
import { useMind, useStepTail } from "@/lib/store/hooks";
import { useMindRunner } from "./hooks/useMindRunner";
import { MessageBox } from "./MessageBox";
import { StatusBar } from "./StatusBar";
import { StepView } from "./StepView";

/** Steps shown live; older ones stay in the trajectory (the viewer of issue 3 pages through them). */
const SHOWN = 400;

export function MindView({ mindId }: { mindId: string }) {
  const mind = useMind(mindId);
  const runner = useMindRunner(mindId, mind ? mind.running : mind === null ? false : undefined);
  const tail = useStepTail(mindId, SHOWN);
  const listEnd = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  // Follow the stream while the reader is at the bottom; stay put when they scroll up.
  useEffect(() => {
    const onScroll = () => {
      stick.current = window.innerHeight + window.scrollY >= document.body.scrollHeight - 80;
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => window.removeEventListener("scroll", onScroll);
  }, []);
  useEffect(() => {
    if (stick.current) listEnd.current?.scrollIntoView({ block: "end" });
  }, [tail?.steps.length, runner.partial]);

  if (mind === null) {
    return (
      <main className="mx-auto max-w-3xl px-4 py-10">
        <p role="alert">There is no mind with this id in this browser.</p>
        <Link href="/" className="text-indigo-600 underline">
          Back to your minds
        </Link>
      </main>
    );
  }

  return (
    <main className="mx-auto flex min-h-screen max-w-4xl flex-col px-4">
      <header className="sticky top-0 z-10 border-b border-stone-200 bg-stone-50/95 py-3 backdrop-blur dark:border-stone-800 dark:bg-stone-950/95">
        <div className="mb-2 flex items-baseline gap-3">
          <Link href="/" className="text-sm text-stone-500 hover:underline">
            ← minds
          </Link>
          <h1 className="text-xl font-semibold">{mind?.name ?? "…"}</h1>
          {mind && (
            <span className="truncate text-xs text-stone-500">
              {mind.model.provider}/{mind.model.model}
            </span>
          )}
        </div>
        <StatusBar status={runner.status} role={runner.role} onStart={() => void runner.start()} onStop={() => void runner.stop()} />
        {runner.fatal && (
          <p role="alert" data-testid="mind-fatal" className="mt-2 rounded bg-red-50 px-2 py-1 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
            {runner.fatal}
          </p>
        )}
      </header>

      <section className="flex-1 py-4" aria-label="Thought stream">
        {tail && tail.skipped > 0 && <p className="mb-2 text-xs text-amber-700">{tail.skipped} damaged step(s) could not be read and are not shown.</p>}
        <ol data-testid="thought-stream" className="flex flex-col gap-2">
          {tail?.steps.map((s) => <StepView key={s.step_id} step={s} />)}
        </ol>
        {runner.partial && (
          <p data-testid="partial-reply" className="mt-2 whitespace-pre-wrap border-l-2 border-dashed border-indigo-300 pl-3 text-sm text-stone-500">
            {runner.partial}
          </p>
        )}
        <div ref={listEnd} />
      </section>

      <footer className="sticky bottom-0 border-t border-stone-200 bg-stone-50/95 py-3 backdrop-blur dark:border-stone-800 dark:bg-stone-950/95">
        {mind && <MessageBox mindId={mindId} mindName={mind.name} />}
      </footer>
    </main>
  );
}
