// The theme choice and what it resolves to. Pure, so the inline pre-paint
// script, the live store and the tests agree on one set of rules.

export const THEME_CHOICES = ["system", "light", "dark"] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];
export type Scheme = "light" | "dark";

/** Where the choice is kept in localStorage. */
export const THEME_STORAGE_KEY = "reverie.theme";
/** The system's preference, as matchMedia asks for it. */
export const DARK_QUERY = "(prefers-color-scheme: dark)";

/** Anything read back from storage: an unknown or missing value means "follow the system". */
export function parseThemeChoice(value: unknown): ThemeChoice {
  return THEME_CHOICES.find((c) => c === value) ?? "system";
}

export function resolveScheme(choice: ThemeChoice, systemDark: boolean): Scheme {
  if (choice === "system") return systemDark ? "dark" : "light";
  return choice;
}

/** The toggle cycles System → Light → Dark → System. */
export function nextThemeChoice(choice: ThemeChoice): ThemeChoice {
  return THEME_CHOICES[(THEME_CHOICES.indexOf(choice) + 1) % THEME_CHOICES.length] ?? "system";
}

const NAMES: Record<ThemeChoice, string> = { system: "System", light: "Light", dark: "Dark" };

/** The toggle's accessible name: the current choice, what it shows now, and what a press does. */
export function themeToggleLabel(choice: ThemeChoice, scheme: Scheme): string {
  const now = choice === "system" ? `System (${scheme})` : NAMES[choice];
  return `Theme: ${now}. Switch to ${NAMES[nextThemeChoice(choice)]}`;
}

export function themeName(choice: ThemeChoice): string {
  return NAMES[choice];
}
