"use client";
// Download a bug report for a mind: one JSON file with the app's version, this
// browser, the mind's settings without its key, every trajectory line and
// sealed summary, and this tab's recent worker log, scrubbed of every key this
// browser holds (lib/report).
import { useState } from "react";
import { collectBugReportFile } from "@/lib/report/collect";
import pkg from "@/package.json";
import { runnerLog } from "./runner/runner-store";

export function BugReportButton({ mindId }: { mindId: string }) {
  const [state, setState] = useState<"idle" | "busy" | { error: string }>("idle");
  async function onClick() {
    setState("busy");
    try {
      const { blob, fileName } = await collectBugReportFile(mindId, { now: Date.now(), appVersion: pkg.version, userAgent: navigator.userAgent, log: runnerLog(mindId) });
      const url = URL.createObjectURL(blob);
      const a = document.createElement("a");
      a.href = url;
      a.download = fileName;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setState("idle");
    } catch (e) {
      setState({ error: e instanceof Error ? e.message : String(e) });
    }
  }
  return (
    <span className="flex items-center gap-2">
      {typeof state === "object" && (
        <span role="alert" className="text-xs text-red-700 dark:text-red-300">
          Bug report failed: {state.error}
        </span>
      )}
      <button
        type="button"
        data-testid="bug-report"
        title="Download a bug report: settings (no key), the trajectory and this tab's recent log, with keys scrubbed"
        onClick={() => void onClick()}
        disabled={state === "busy"}
        className="rounded border border-stone-300 px-3 py-1 text-sm hover:bg-stone-100 disabled:opacity-50 dark:border-stone-700 dark:hover:bg-stone-900"
      >
        {state === "busy" ? "Collecting…" : "Bug report"}
      </button>
    </span>
  );
}
