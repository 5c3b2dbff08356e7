"use client";
// One workspace file, as text (never as HTML). While the mind is stopped its
// human may edit a text file; while it runs the worker owns the workspace.
import { useMemo, useState } from "react";
import { useWorkspaceActions, useWorkspaceFile } from "@/lib/store/view/hooks";
import { fileText, sizeText, VIEW_LIMIT } from "./file-text";

const button = "rounded border border-stone-300 px-3 py-1 text-sm hover:bg-stone-100 disabled:opacity-40 dark:border-stone-700 dark:hover:bg-stone-900";

/** `readOnly`: why the file cannot be edited now, or null when it can. */
export function FileViewer({ mindId, path, readOnly }: { mindId: string; path: string | null; readOnly: string | null }) {
  const file = useWorkspaceFile(mindId, path);
  const editable = readOnly === null;
  // Decoded once per version of the file, not on every keystroke of an edit.
  const content = useMemo(() => (file?.kind === "file" ? fileText(file.data ?? new Uint8Array()) : null), [file]);
  const { save } = useWorkspaceActions(mindId);
  // The draft of the file being edited, kept if the mind starts meanwhile (then it cannot be saved).
  const [draft, setDraft] = useState<{ path: string; text: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const editing = draft !== null && draft.path === path;

  let body: React.ReactNode;
  if (path === null) body = <p className="text-sm text-stone-500 dark:text-stone-400">Choose a file in the tree to see it.</p>;
  else if (file === undefined) body = <p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>;
  else if (file === null) body = <p className="text-sm text-stone-500 dark:text-stone-400">This file is not in the workspace (any more).</p>;
  else if (file.kind === "symlink") body = <p className="text-sm">A symbolic link to {file.target}</p>;
  else if (!content) body = <p className="text-sm text-stone-500 dark:text-stone-400">A directory.</p>;
  else {
    body =
      content.kind === "binary" ? (
        <p className="text-sm text-stone-500 dark:text-stone-400">binary, {content.size.toLocaleString("en-US")} bytes</p>
      ) : (
        <>
          {content.truncated && (
            <p className="mb-2 text-xs text-amber-700 dark:text-amber-300" data-testid="file-truncated">
              Showing the first {sizeText(VIEW_LIMIT)} of {sizeText(content.size)}.
            </p>
          )}
          <pre data-testid="file-text" className="whitespace-pre-wrap break-words font-mono text-sm">
            {content.text}
          </pre>
        </>
      );
  }
  // Only a whole text file can be edited: saving part of one, or bytes shown as text, would lose data.
  const canEditThis = content?.kind === "text" && !content.truncated;

  async function onSave() {
    if (!draft) return;
    setBusy(true);
    try {
      await save(draft.path, draft.text);
      setDraft(null);
      setError(null);
    } catch (e) {
      setError(`Not saved: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section data-testid="file-viewer" aria-label={path ? `File ${path}` : "File viewer"} className="flex min-h-0 min-w-0 flex-1 flex-col gap-2">
      {path && (
        <div className="flex flex-wrap items-center gap-3 border-b border-stone-200 pb-2 dark:border-stone-800">
          <h2 className="truncate font-mono text-sm font-medium">{path}</h2>
          {file?.kind === "file" && <span className="text-xs text-stone-500 dark:text-stone-400">{sizeText(file.data?.length ?? 0)}</span>}
          <span className="ml-auto flex items-center gap-2">
            {!editable && file?.kind === "file" && (
              <span data-testid="file-readonly" className="text-xs text-stone-500 dark:text-stone-400">
                {readOnly}
              </span>
            )}
            {editable && canEditThis && !editing && (
              <button type="button" data-testid="file-edit" className={button} onClick={() => content?.kind === "text" && setDraft({ path, text: content.text })}>
                Edit
              </button>
            )}
          </span>
        </div>
      )}
      {error && (
        <p role="alert" data-testid="file-error" className="rounded bg-red-50 px-2 py-1 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
          {error}
        </p>
      )}
      <div className="min-h-0 flex-1 overflow-auto">
        {editing ? (
          <div className="flex h-full flex-col gap-2">
            <textarea
              data-testid="file-editor"
              aria-label={`Contents of ${path}`}
              value={draft.text}
              onChange={(e) => setDraft({ path: draft.path, text: e.target.value })}
              spellCheck={false}
              className="min-h-[40vh] flex-1 rounded border border-stone-300 bg-white p-2 font-mono text-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500 dark:border-stone-700 dark:bg-stone-900"
            />
            <div className="flex items-center gap-2">
              <button type="button" data-testid="file-save" className={button} disabled={!editable || busy} onClick={() => void onSave()}>
                {busy ? "Saving…" : "Save"}
              </button>
              <button type="button" data-testid="file-cancel" className={button} onClick={() => {
                  setDraft(null);
                  setError(null);
                }}>
                Cancel
              </button>
              {!editable && <span className="text-xs text-stone-500 dark:text-stone-400">Not saved: {readOnly}</span>}
            </div>
          </div>
        ) : (
          body
        )}
      </div>
    </section>
  );
}
