"use client";
// The "Test connection" button under a model's fields: one tiny real call
// with the settings as typed in the surrounding form (lib/llm/connection-test),
// from this tab, or through the host's proxy when that is the provider.
import { useState, type MouseEvent } from "react";
import type { ConnectionTestResult } from "@/lib/llm/connection-test";
import type { ModelSettings } from "@/lib/mind/settings/model";

export function ConnectionTest({ read, buttonTestId, resultTestId }: { read: (form: HTMLFormElement) => ModelSettings; buttonTestId: string; resultTestId: string }) {
  const [result, setResult] = useState<ConnectionTestResult | "testing" | null>(null);

  async function onTest(e: MouseEvent<HTMLButtonElement>) {
    const form = e.currentTarget.form;
    if (!form) return;
    const settings = read(form);
    setResult("testing");
    // Loaded when asked for: the AI SDK and its providers are not part of the page's first load.
    const { testModelSettings } = await import("@/lib/llm/connection-test");
    setResult(await testModelSettings(settings, { origin: window.location.origin }));
  }

  return (
    <div className="flex flex-wrap items-center gap-2 text-sm sm:col-span-2">
      <button
        type="button"
        data-testid={buttonTestId}
        onClick={onTest}
        disabled={result === "testing"}
        className="rounded border border-stone-300 px-3 py-1 hover:bg-stone-100 focus:outline-none focus:ring-2 focus:ring-indigo-400 disabled:opacity-50 dark:border-stone-700 dark:hover:bg-stone-900"
      >
        {result === "testing" ? "Testing…" : "Test connection"}
      </button>
      <span role="status" aria-live="polite" className="min-w-0 flex-1">
        {result && result !== "testing" && (
          <span
            data-testid={resultTestId}
            data-ok={result.ok}
            data-failure={result.ok ? undefined : result.failure}
            className={result.ok ? "text-green-700 dark:text-green-400" : "text-red-700 dark:text-red-400"}
          >
            {result.ok
              ? `Connected in ${seconds(result.ms)}: the model answered ${result.answer ? `“${result.answer}”` : "with no text (it may have spent its few tokens thinking)"}.`
              : `Failed${result.ms ? ` after ${seconds(result.ms)}` : ""}: ${result.error}`}
          </span>
        )}
      </span>
    </div>
  );
}

/** 240 ms, 3.1 s: a refused connection answers in milliseconds, a model in seconds. */
const seconds = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
