// Key combinations: written as "Mod+Enter", "?", "End" or "G"; matched
// against keydown events; shown in the help overlay. Pure.

export interface Combo {
  /** A printable character ("?", "/", ".", "G") or a key name ("Enter", "End"). */
  key: string;
  /** Ctrl, or ⌘ on a Mac. */
  mod: boolean;
  shift: boolean;
  alt: boolean;
}

/** The parts of a KeyboardEvent a match reads. */
export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

const MODIFIERS = new Set(["mod", "shift", "alt"]);

export function parseCombo(text: string): Combo {
  // "+" alone (or as the last part, "Mod++") is the key itself.
  const parts = text === "+" ? ["+"] : text.endsWith("++") ? [...text.slice(0, -2).split("+"), "+"] : text.split("+");
  const key = parts[parts.length - 1] ?? "";
  const mods = parts.slice(0, -1).map((m) => m.toLowerCase());
  const unknown = mods.find((m) => !MODIFIERS.has(m));
  if (!key || unknown !== undefined) throw new Error(`Not a key combination: "${text}" (write e.g. "Mod+Enter", "?", "End")`);
  return { key, mod: mods.includes("mod"), shift: mods.includes("shift"), alt: mods.includes("alt") };
}

export function matchesCombo(combo: Combo, e: KeyLike): boolean {
  if (combo.mod !== (e.ctrlKey || e.metaKey) || combo.alt !== e.altKey) return false;
  // A printable character already says whether Shift was held ("?" is Shift+/, "G" is Shift+g).
  if ([...combo.key].length === 1) return e.key === combo.key;
  return combo.shift === e.shiftKey && e.key.toLowerCase() === combo.key.toLowerCase();
}

/** The keys of a combination as they are shown, one <kbd> each. */
export function comboKeys(combo: Combo): string[] {
  return [...(combo.mod ? ["Ctrl/⌘"] : []), ...(combo.alt ? ["Alt"] : []), ...(combo.shift ? ["Shift"] : []), combo.key === " " ? "Space" : combo.key];
}

/** The parts of an event target that tell whether a keystroke is typing. */
export interface TargetLike {
  tagName?: string;
  type?: string;
  isContentEditable?: boolean;
}

// Inputs where a keystroke is not text: a shortcut still applies there.
const NOT_TEXT = new Set(["checkbox", "radio", "button", "submit", "reset", "file", "color", "image"]);

/** True when the keystroke belongs to a field being typed in (or a select or slider that uses the keys itself). */
export function isTypingTarget(t: TargetLike | null | undefined): boolean {
  if (!t) return false;
  if (t.isContentEditable) return true;
  const tag = (t.tagName ?? "").toUpperCase();
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  return tag === "INPUT" && !NOT_TEXT.has((t.type ?? "text").toLowerCase());
}

export interface ShortcutEntry {
  id: string;
  combos: Combo[];
  description: string;
  /** Also while typing in a field (e.g. Ctrl+Enter to send). */
  inInputs: boolean;
}

/** The entries a keystroke triggers, the latest registered first (a page's own shortcut wins over the app's). */
export function shortcutsFor<E extends ShortcutEntry>(entries: readonly E[], e: KeyLike, typing: boolean): E[] {
  return entries.filter((s) => (s.inInputs || !typing) && s.combos.some((c) => matchesCombo(c, e))).reverse();
}
