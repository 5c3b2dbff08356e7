"use client";
// Presentation mode, for a projector: larger type (the root font size, so
// every rem-sized thing grows), stronger contrast for muted text, and the
// page's chrome hidden. Remembered in this browser; the toggle is on the
// replay and classroom pages.
import { useEffect, useSyncExternalStore } from "react";

export const PRESENTATION_STORAGE_KEY = "reverie.presentation";
/** The root font size while presenting. */
const PRESENTING_FONT = "137.5%";

const listeners = new Set<() => void>();

function read(): boolean {
  try {
    return localStorage.getItem(PRESENTATION_STORAGE_KEY) === "on";
  } catch {
    return false;
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => {
    if (e.key === null || e.key === PRESENTATION_STORAGE_KEY) listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

export function setPresenting(on: boolean) {
  try {
    if (on) localStorage.setItem(PRESENTATION_STORAGE_KEY, "on");
    else localStorage.removeItem(PRESENTATION_STORAGE_KEY);
  } catch {
    // Storage blocked: nothing is remembered, and the mode cannot be kept either.
  }
  for (const l of listeners) l();
}

export function usePresenting(): boolean {
  return useSyncExternalStore(subscribe, read, () => false);
}

/** Grows the root font while presenting, and puts it back when the page goes. */
export function usePresentationType(on: boolean) {
  useEffect(() => {
    if (!on) return;
    const root = document.documentElement;
    const before = root.style.fontSize;
    root.style.fontSize = PRESENTING_FONT;
    root.dataset.presenting = "";
    return () => {
      root.style.fontSize = before;
      delete root.dataset.presenting;
    };
  }, [on]);
}

export function PresentationToggle() {
  const on = usePresenting();
  usePresentationType(on);
  return (
    <button
      type="button"
      data-testid="presentation-toggle"
      aria-pressed={on}
      onClick={() => setPresenting(!on)}
      className={`rounded border px-2 py-1 text-sm ${on ? "border-indigo-600 bg-indigo-600 text-white" : "border-stone-300 hover:bg-stone-100 dark:border-stone-700 dark:hover:bg-stone-900"}`}
    >
      {on ? "Leave presentation" : "Present"}
    </button>
  );
}

/** Muted text made darker (lighter in dark) while presenting: a projector washes out greys. */
export const PRESENTING_CONTRAST =
  "[&_.text-stone-500]:text-stone-800 [&_.text-stone-600]:text-stone-900 dark:[&_.text-stone-500]:text-stone-100 dark:[&_.text-stone-600]:text-stone-100";
