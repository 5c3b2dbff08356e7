"use client";
// A button that makes a file in the browser and downloads it, saying "…" while
// it works and what went wrong when it fails (Export, Bug report).
import { useState } from "react";

export interface DownloadButtonProps {
  testId: string;
  label: string;
  busyLabel: string;
  /** Names the failure: "<what> failed: <error>". */
  what: string;
  title?: string;
  make: () => Promise<{ blob: Blob; fileName: string }>;
}

export function DownloadButton({ testId, label, busyLabel, what, title, make }: DownloadButtonProps) {
  const [state, setState] = useState<"idle" | "busy" | { error: string }>("idle");
  async function onClick() {
    setState("busy");
    try {
      const { blob, fileName } = await make();
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
          {what} failed: {state.error}
        </span>
      )}
      <button
        type="button"
        data-testid={testId}
        title={title}
        onClick={() => void onClick()}
        disabled={state === "busy"}
        className="rounded border border-stone-300 px-3 py-1 text-sm hover:bg-stone-100 disabled:opacity-50 dark:border-stone-700 dark:hover:bg-stone-900"
      >
        {state === "busy" ? busyLabel : label}
      </button>
    </span>
  );
}
