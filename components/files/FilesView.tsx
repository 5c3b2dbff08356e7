"use client";
// The mind's workspace on its page: a tree of what is saved (following the
// worker's saves after each block) and the chosen file beside it.
import { useCallback, useMemo, useState } from "react";
import { useWorkspaceTree } from "@/lib/store/view/hooks";
import { FileTree } from "./FileTree";
import { FileViewer } from "./FileViewer";
import { buildTree } from "./tree";

/** `readOnly`: why files cannot be edited now (the mind runs), or null when they can. */
export function FilesView({ mindId, readOnly }: { mindId: string; readOnly: string | null }) {
  const entries = useWorkspaceTree(mindId);
  const roots = useMemo(() => buildTree(entries ?? []), [entries]);
  // The workspace is where the mind keeps its things: open from the start.
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set(["/workspace"]));
  const [focused, setFocused] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const toggle = useCallback((path: string) => {
    setOpen((o) => {
      const n = new Set(o);
      if (!n.delete(path)) n.add(path);
      return n;
    });
  }, []);

  // On a phone the tree sits above the file, so the file keeps the whole width. It takes the height the page leaves it
  // (min-h-0), never more: a tall header must not push it under the message box.
  return (
    <div data-testid="files-view" className="flex min-h-0 flex-1 flex-col gap-3 overflow-hidden sm:flex-row">
      <nav aria-label="Workspace" className="max-h-48 shrink-0 overflow-auto rounded sm:max-h-none sm:w-64 border border-stone-200 p-1 dark:border-stone-800">
        {entries === undefined ? (
          <p className="p-1 text-sm text-stone-500 dark:text-stone-400">Loading…</p>
        ) : roots.length === 0 ? (
          <p className="p-1 text-sm text-stone-500 dark:text-stone-400">No files yet: the workspace is saved after the mind&apos;s first shell block.</p>
        ) : (
          <FileTree roots={roots} open={open} onToggle={toggle} focused={focused} onFocus={setFocused} selected={selected} onSelect={setSelected} />
        )}
      </nav>
      <div className="flex min-h-0 min-w-0 flex-1 rounded border border-stone-200 p-2 dark:border-stone-800">
        <FileViewer mindId={mindId} path={selected} readOnly={readOnly} />
      </div>
    </div>
  );
}

/**
 * Why a mind's files cannot be edited now, or null. The running worker holds
 * the workspace in memory and saves over it, so only a stopped mind's files
 * are edited: the flag off, and (in the tab that runs it) the worker done.
 */
export function filesReadOnly(running: boolean | undefined, runner: { role: string; status: { state: string } }): string | null {
  if (running !== false) return "read-only while the mind runs — Stop it to edit";
  if (runner.role === "runner" ? runner.status.state !== "stopped" : runner.role !== "viewer") return "read-only until the mind has stopped";
  return null;
}
