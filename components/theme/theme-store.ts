"use client";
// The live theme: the stored choice and the system's preference, applied to
// <html> whenever either changes (the toggle, another tab's toggle, or the
// system switching while the choice is System). Components read it through
// useTheme(); the server (and the first, hydrating render) sees "system".
import { useSyncExternalStore } from "react";
import { DARK_QUERY, THEME_STORAGE_KEY, parseThemeChoice, resolveScheme, type Scheme, type ThemeChoice } from "./theme";

export interface ThemeState {
  choice: ThemeChoice;
  scheme: Scheme;
}

const SERVER: ThemeState = { choice: "system", scheme: "light" };
const listeners = new Set<() => void>();
let current: ThemeState | null = null;

function readChoice(): ThemeChoice {
  try {
    return parseThemeChoice(localStorage.getItem(THEME_STORAGE_KEY));
  } catch {
    // Storage blocked (a locked-down browser): the system decides.
    return "system";
  }
}

function compute(): ThemeState {
  const choice = readChoice();
  return { choice, scheme: resolveScheme(choice, window.matchMedia(DARK_QUERY).matches) };
}

function apply(state: ThemeState) {
  const root = document.documentElement;
  root.classList.toggle("dark", state.scheme === "dark");
  root.dataset.theme = state.choice;
}

function refresh() {
  const next = compute();
  if (current && current.choice === next.choice && current.scheme === next.scheme) return;
  current = next;
  apply(next);
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (listeners.size === 1) {
    window.matchMedia(DARK_QUERY).addEventListener("change", refresh);
    window.addEventListener("storage", onStorage);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      window.matchMedia(DARK_QUERY).removeEventListener("change", refresh);
      window.removeEventListener("storage", onStorage);
    }
  };
}

function onStorage(e: StorageEvent) {
  if (e.key === null || e.key === THEME_STORAGE_KEY) refresh();
}

function snapshot(): ThemeState {
  if (!current) {
    current = compute();
    apply(current);
  }
  return current;
}

export function setThemeChoice(choice: ThemeChoice) {
  try {
    if (choice === "system") localStorage.removeItem(THEME_STORAGE_KEY);
    else localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // Not remembered, but still applied to this page.
  }
  const next = { choice, scheme: resolveScheme(choice, window.matchMedia(DARK_QUERY).matches) };
  current = next;
  apply(next);
  for (const l of listeners) l();
}

export function useTheme(): ThemeState {
  return useSyncExternalStore(subscribe, snapshot, () => SERVER);
}
