"use client";
// The contexts the shortcut provider offers: a stable `register` for
// useShortcut, and the list the help overlay shows.
import { createContext } from "react";
import type { ShortcutEntry } from "./keys";

export interface RegisteredShortcut extends ShortcutEntry {
  /** Returns false when it did nothing (then the key goes on to the page, not swallowed). */
  run: (e: KeyboardEvent) => boolean | void;
}

export interface ShortcutRegistry {
  register: (shortcut: RegisteredShortcut) => () => void;
}

export interface ShortcutHelp {
  shortcuts: readonly ShortcutEntry[];
  open: boolean;
  show: () => void;
  close: () => void;
}

export const RegistryContext = createContext<ShortcutRegistry | null>(null);
export const HelpContext = createContext<ShortcutHelp | null>(null);
