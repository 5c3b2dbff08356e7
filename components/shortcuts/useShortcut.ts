"use client";
// Register a keyboard shortcut for as long as the component is mounted; it is
// listed in the help overlay (`?`) with its description. Keystrokes in text
// fields are ignored unless `inInputs` is set. The handler returns false when
// it did nothing, so the keystroke is not swallowed.
import { useContext, useEffect, useId, useRef } from "react";
import { parseCombo } from "./keys";
import { RegistryContext } from "./registry";

export interface ShortcutOptions {
  inInputs?: boolean;
  /** Unregistered (and not listed) while false. */
  enabled?: boolean;
}

export function useShortcut(keys: string | readonly string[], handler: (e: KeyboardEvent) => boolean | void, description: string, options: ShortcutOptions = {}) {
  const registry = useContext(RegistryContext);
  const id = useId();
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  // One string, so a new array of the same keys does not re-register.
  const spec = typeof keys === "string" ? keys : keys.join("\0");
  const { inInputs = false, enabled = true } = options;
  useEffect(() => {
    if (!registry || !enabled) return;
    const combos = spec.split("\0").map(parseCombo);
    return registry.register({ id, combos, description, inInputs, run: (e) => latest.current(e) });
  }, [registry, id, spec, description, inInputs, enabled]);
}
