"use client";
// The visible way to the shortcuts overlay, for those who do not know `?`.
import { useContext } from "react";
import { HelpContext } from "./registry";

export function ShortcutsButton() {
  const help = useContext(HelpContext);
  if (!help) return null;
  return (
    <button
      type="button"
      data-testid="shortcuts-button"
      aria-haspopup="dialog"
      onClick={help.show}
      title="Keyboard shortcuts (?)"
      className="inline-flex min-h-10 min-w-10 items-center justify-center gap-1 rounded px-2 text-sm text-stone-600 hover:bg-stone-200 hover:text-stone-900 dark:text-stone-300 dark:hover:bg-stone-800 dark:hover:text-stone-100"
    >
      <span aria-hidden>⌨</span>
      <span className="sr-only sm:not-sr-only">Keyboard shortcuts</span>
    </button>
  );
}
