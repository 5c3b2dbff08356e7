"use client";
// Download a mind or an imported trajectory as a Headlong-layout .tar.gz
// (trajectory folders, blobs, mind.json without keys).
import { useState } from "react";
import { exportArchive } from "@/lib/store/export-file";

export function ExportButton({ owner, name }: { owner: string; name: string }) {
  const [state, setState] = useState<"idle" | "busy" | { error: string }>("idle");
  async function onClick() {
    setState("busy");
    try {
      const { blob, fileName } = await exportArchive(owner, name);
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
          Export failed: {state.error}
        </span>
      )}
      <button
        type="button"
        data-testid="export-mind"
        onClick={() => void onClick()}
        disabled={state === "busy"}
        className="rounded border border-stone-300 px-3 py-1 text-sm hover:bg-stone-100 disabled:opacity-50 dark:border-stone-700 dark:hover:bg-stone-900"
      >
        {state === "busy" ? "Exporting…" : "Export"}
      </button>
    </span>
  );
}
