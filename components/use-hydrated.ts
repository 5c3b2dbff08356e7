"use client";
// False in the server's HTML and while React hydrates it, true from then on.
// A form whose fields are controlled by React is disabled until then: text
// typed into the server's HTML before hydration would be overwritten (or, with
// the caret moved by React's reset, joined to the default text).
import { useSyncExternalStore } from "react";

const never = () => () => {};

export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
