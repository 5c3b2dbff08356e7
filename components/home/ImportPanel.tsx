"use client";
// Import a Headlong trajectory (.jsonl, or a folder tree as .zip / .tar.gz):
// streamed with a progress bar, cancellable; on success the viewer opens.
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { useImportActions } from "@/lib/store/view/hooks";

type State =
  | { phase: "idle" }
  | { phase: "running"; name: string; read: number; total: number; steps: number }
  | { phase: "done"; name: string; steps: number; skipped: number }
  | { phase: "failed"; name: string; error: string };

export function ImportPanel() {
  const router = useRouter();
  const [state, setState] = useState<State>({ phase: "idle" });
  const abort = useRef<AbortController | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const lastUpdate = useRef(0);
  const imports = useImportActions();

  useEffect(() => {
    imports.sweepUnfinished().catch(() => undefined);
  }, [imports]);

  async function onFile(file: File) {
    const ac = new AbortController();
    abort.current = ac;
    setState({ phase: "running", name: file.name, read: 0, total: file.size, steps: 0 });
    try {
      const { id, stats } = await imports.importFile(file, {
        signal: ac.signal,
        onProgress: (read, total, s) => {
          // A few updates a second are enough for a progress bar.
          const now = performance.now();
          if (now - lastUpdate.current < 100 && read < total) return;
          lastUpdate.current = now;
          setState({ phase: "running", name: file.name, read, total, steps: s.steps });
        },
      });
      setState({ phase: "done", name: file.name, steps: stats.steps, skipped: stats.skipped });
      router.push(`/view/${id}`);
    } catch (e) {
      const cancelled = ac.signal.aborted;
      setState({ phase: "failed", name: file.name, error: cancelled ? "Import cancelled; nothing was kept." : e instanceof Error ? e.message : String(e) });
    } finally {
      abort.current = null;
      if (input.current) input.current.value = "";
    }
  }

  const pct = state.phase === "running" && state.total > 0 ? Math.min(100, Math.round((state.read / state.total) * 100)) : 0;
  return (
    <section className="mt-10" aria-labelledby="import-heading">
      <h2 id="import-heading" className="text-lg font-medium">
        Open a trajectory
      </h2>
      <p className="mt-1 text-sm text-stone-500 dark:text-stone-400">A Headlong or Reverie trajectory: a trajectory.jsonl, or a folder tree packed as .zip or .tar.gz. It opens read-only.</p>
      <input
        ref={input}
        type="file"
        data-testid="import-file"
        aria-labelledby="import-heading"
        accept=".jsonl,.ndjson,.json,.zip,.tar.gz,.tgz,.tar,application/zip,application/gzip"
        disabled={state.phase === "running"}
        className="mt-2 block w-full max-w-full text-sm file:mr-3 file:min-h-10 file:rounded file:border-0 file:bg-stone-200 file:px-3 file:py-1.5 sm:file:min-h-0 dark:file:bg-stone-800"
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) void onFile(f);
        }}
      />
      {state.phase === "running" && (
        <div className="mt-2 flex flex-wrap items-center gap-3 text-sm" data-testid="import-progress" role="status" aria-live="polite">
          <progress max={100} value={pct} className="w-64 max-w-full" aria-label={`Importing ${state.name}`} />
          <span>
            {pct}% · {state.steps.toLocaleString()} steps
          </span>
          <button type="button" data-testid="import-cancel" className="min-h-10 rounded border border-stone-300 px-2 py-0.5 sm:min-h-0 dark:border-stone-700" onClick={() => abort.current?.abort()}>
            Cancel
          </button>
        </div>
      )}
      {state.phase === "done" && (
        <p className="mt-2 text-sm" role="status">
          Imported {state.steps.toLocaleString()} steps from {state.name}
          {state.skipped ? ` (${state.skipped} unreadable line(s) skipped)` : ""}. Opening…
        </p>
      )}
      {state.phase === "failed" && (
        <p className="mt-2 rounded bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200" role="alert" data-testid="import-error">
          {state.name}: {state.error}
        </p>
      )}
    </section>
  );
}
