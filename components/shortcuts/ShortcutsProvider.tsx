"use client";
// Holds every shortcut the page's components register, dispatches keydown
// on the window to them (after the page's own handlers: a key a field or a
// tab list already handled is left alone), and owns the help overlay, which
// `?` and the "Keyboard shortcuts" button open.
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { isTypingTarget, shortcutsFor, type ShortcutEntry } from "./keys";
import { HelpContext, RegistryContext, type RegisteredShortcut, type ShortcutHelp, type ShortcutRegistry } from "./registry";
import { ShortcutsHelp } from "./ShortcutsHelp";
import { useShortcut } from "./useShortcut";

export function ShortcutsProvider({ children }: { children: ReactNode }) {
  const entries = useRef(new Map<string, RegisteredShortcut>());
  const [listed, setListed] = useState<readonly ShortcutEntry[]>([]);
  const [open, setOpen] = useState(false);
  const openRef = useRef(false);
  useEffect(() => {
    openRef.current = open;
  }, [open]);

  const registry = useMemo<ShortcutRegistry>(() => {
    const publish = () => setListed([...entries.current.values()].map(({ id, combos, description, inInputs }) => ({ id, combos, description, inInputs })));
    return {
      register(shortcut) {
        entries.current.delete(shortcut.id);
        entries.current.set(shortcut.id, shortcut);
        publish();
        return () => {
          if (entries.current.get(shortcut.id) === shortcut) entries.current.delete(shortcut.id);
          publish();
        };
      },
    };
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // The overlay is modal: its own keys (Esc, Tab) are all that apply while it is open.
      if (e.defaultPrevented || e.isComposing || openRef.current) return;
      const typing = isTypingTarget(e.target instanceof HTMLElement ? e.target : null);
      for (const s of shortcutsFor([...entries.current.values()], e, typing)) {
        if (s.run(e) !== false) {
          e.preventDefault();
          return;
        }
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const show = useCallback(() => setOpen(true), []);
  const close = useCallback(() => setOpen(false), []);
  const help = useMemo<ShortcutHelp>(() => ({ shortcuts: listed, open, show, close }), [listed, open, show, close]);

  return (
    <RegistryContext.Provider value={registry}>
      <HelpContext.Provider value={help}>
        <HelpShortcut show={show} />
        {children}
        {open && <ShortcutsHelp shortcuts={listed} onClose={close} />}
      </HelpContext.Provider>
    </RegistryContext.Provider>
  );
}

/** `?` opens the overlay; registered like any other shortcut, so it is listed too. */
function HelpShortcut({ show }: { show: () => void }) {
  useShortcut("?", show, "Show the keyboard shortcuts");
  return null;
}
