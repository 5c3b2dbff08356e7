"use client";
// The help overlay: a modal dialog listing the page's shortcuts. A native
// <dialog> opened with showModal() makes the rest of the page inert; Tab
// wraps inside it, Esc closes it, and focus goes back where it was.
import { useEffect, useId, useRef, type KeyboardEvent } from "react";
import { comboKeys, type ShortcutEntry } from "./keys";

export function ShortcutsHelp({ shortcuts, onClose }: { shortcuts: readonly ShortcutEntry[]; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const el = dialog.current;
    const returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (el && !el.open) el.showModal();
    el?.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    return () => {
      if (el?.open) el.close();
      if (returnTo?.isConnected) returnTo.focus();
    };
  }, []);

  // Keep Tab inside: from the last focusable element back to the first, and the other way.
  const onKeyDown = (e: KeyboardEvent<HTMLDialogElement>) => {
    if (e.key !== "Tab") return;
    const focusable = [...(dialog.current?.querySelectorAll<HTMLElement>("button, [href], [tabindex]:not([tabindex='-1'])") ?? [])];
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return (
    <dialog
      ref={dialog}
      data-testid="shortcuts-help"
      role="dialog"
      aria-modal="true"
      aria-labelledby={titleId}
      onKeyDown={onKeyDown}
      // Esc (the dialog's cancel) and the close button both end here.
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onClick={(e) => {
        if (e.target === dialog.current) onClose();
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-lg border border-stone-300 bg-white p-0 text-stone-900 shadow-xl backdrop:bg-stone-950/50 dark:border-stone-700 dark:bg-stone-900 dark:text-stone-100"
    >
      <div className="flex flex-col gap-3 p-4">
        <div className="flex items-center justify-between gap-2">
          <h2 id={titleId} className="text-lg font-semibold">
            Keyboard shortcuts
          </h2>
          <button
            type="button"
            data-autofocus
            data-testid="shortcuts-close"
            onClick={onClose}
            className="min-h-10 rounded border border-stone-300 px-3 text-sm hover:bg-stone-100 dark:border-stone-700 dark:hover:bg-stone-800"
          >
            Close
          </button>
        </div>
        <p className="text-xs text-stone-600 dark:text-stone-400">On this page. Keys are ignored while you type in a field, unless noted.</p>
        <ul className="flex flex-col divide-y divide-stone-200 dark:divide-stone-800">
          {shortcuts.map((s) => (
            <li key={s.id} data-testid="shortcut-item" className="flex items-center justify-between gap-4 py-2 text-sm">
              <span>
                {s.description}
                {s.inInputs && <span className="text-stone-600 dark:text-stone-400"> (also while typing)</span>}
              </span>
              <span className="flex shrink-0 items-center gap-1">
                {s.combos.map((c, i) => (
                  <span key={i} className="flex items-center gap-1">
                    {i > 0 && <span className="text-xs text-stone-600 dark:text-stone-400">or</span>}
                    {comboKeys(c).map((k) => (
                      <kbd key={k} className="rounded border border-stone-300 bg-stone-100 px-1.5 py-0.5 font-mono text-xs dark:border-stone-600 dark:bg-stone-800">
                        {k}
                      </kbd>
                    ))}
                  </span>
                ))}
              </span>
            </li>
          ))}
        </ul>
      </div>
    </dialog>
  );
}
