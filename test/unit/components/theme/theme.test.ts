// The theme rules (choice → light or dark, the toggle's cycle and its name)
// and the pre-paint script that applies them, run against a stand-in
// document, storage and system preference.
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { nextThemeChoice, parseThemeChoice, resolveScheme, themeToggleLabel, THEME_STORAGE_KEY } from "@/components/theme/theme";
import { THEME_SCRIPT } from "@/components/theme/theme-script";

describe("theme rules", () => {
  it("reads a stored choice, anything else meaning System", () => {
    expect(["light", "dark", "system", null, "Dark", "blue", 1].map(parseThemeChoice)).toEqual(["light", "dark", "system", "system", "system", "system", "system"]);
  });

  it("resolves System by the system's preference and the others by themselves", () => {
    expect([resolveScheme("system", true), resolveScheme("system", false), resolveScheme("light", true), resolveScheme("dark", false)]).toEqual(["dark", "light", "light", "dark"]);
  });

  it("cycles System → Light → Dark → System, the toggle's name saying where it is and where it goes", () => {
    expect([nextThemeChoice("system"), nextThemeChoice("light"), nextThemeChoice("dark")]).toEqual(["light", "dark", "system"]);
    expect([themeToggleLabel("system", "dark"), themeToggleLabel("light", "light"), themeToggleLabel("dark", "dark")]).toEqual([
      "Theme: System (dark). Switch to Light",
      "Theme: Light. Switch to Dark",
      "Theme: Dark. Switch to System",
    ]);
  });
});

/** Runs the pre-paint script with a stored value (or a throwing storage) and a system preference; returns what it set on <html>. */
function runScript(stored: string | null | "throws", systemDark: boolean) {
  const classes = new Set<string>(["dark"]);
  const root = {
    classList: { toggle: (c: string, on: boolean) => (on ? classes.add(c) : classes.delete(c)) },
    dataset: {} as Record<string, string>,
  };
  const queries: string[] = [];
  const storage = {
    getItem(k: string) {
      if (stored === "throws") throw new Error("SecurityError");
      return k === THEME_STORAGE_KEY ? stored : null;
    },
  };
  const window = { matchMedia: (q: string) => (queries.push(q), { matches: systemDark }) };
  runInNewContext(THEME_SCRIPT, { window, document: { documentElement: root }, localStorage: storage });
  return { dark: classes.has("dark"), theme: root.dataset.theme, queries };
}

describe("the pre-paint theme script", () => {
  it("follows the system when nothing is stored, or storage is blocked", () => {
    expect(runScript(null, true)).toEqual({ dark: true, theme: "system", queries: ["(prefers-color-scheme: dark)"] });
    expect(runScript(null, false)).toEqual({ dark: false, theme: "system", queries: ["(prefers-color-scheme: dark)"] });
    expect(runScript("throws", true)).toEqual({ dark: true, theme: "system", queries: ["(prefers-color-scheme: dark)"] });
    expect(runScript("sepia", false)).toEqual({ dark: false, theme: "system", queries: ["(prefers-color-scheme: dark)"] });
  });

  it("applies a stored Light or Dark whatever the system prefers", () => {
    expect(runScript("light", true)).toEqual({ dark: false, theme: "light", queries: [] });
    expect(runScript("dark", false)).toEqual({ dark: true, theme: "dark", queries: [] });
  });
});
