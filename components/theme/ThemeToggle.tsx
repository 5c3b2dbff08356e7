"use client";
// One button that cycles System → Light → Dark; its name says the current choice.
import { nextThemeChoice, themeName, themeToggleLabel } from "./theme";
import { setThemeChoice, useTheme } from "./theme-store";

const ICON = { system: "◐", light: "☀", dark: "☾" } as const;

export function ThemeToggle() {
  const { choice, scheme } = useTheme();
  const label = themeToggleLabel(choice, scheme);
  return (
    <button
      type="button"
      data-testid="theme-toggle"
      data-theme-choice={choice}
      aria-label={label}
      title={label}
      onClick={() => setThemeChoice(nextThemeChoice(choice))}
      className="inline-flex min-h-10 min-w-10 items-center justify-center gap-1 rounded px-2 text-sm text-stone-600 hover:bg-stone-200 hover:text-stone-900 dark:text-stone-300 dark:hover:bg-stone-800 dark:hover:text-stone-100"
    >
      <span aria-hidden>{ICON[choice]}</span>
      <span aria-hidden className="hidden sm:inline">
        {themeName(choice)}
      </span>
    </button>
  );
}
