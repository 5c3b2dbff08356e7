import type { Metadata } from "next";
import type { ReactNode } from "react";
import { MindHost } from "@/components/runner/MindHost";
import { ShortcutsButton } from "@/components/shortcuts/ShortcutsButton";
import { ShortcutsProvider } from "@/components/shortcuts/ShortcutsProvider";
import { THEME_SCRIPT } from "@/components/theme/theme-script";
import { ThemeToggle } from "@/components/theme/ThemeToggle";
import "./globals.css";

export const metadata: Metadata = {
  title: "Reverie",
  description: "A persistent mind that lives in a browser tab.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // The theme script sets <html>'s class and data-theme before React hydrates.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-screen bg-stone-50 text-stone-900 dark:bg-stone-950 dark:text-stone-100">
        <ShortcutsProvider>
          {/* The app's own controls, in a slim bar of their own so they never cover a page's. */}
          <header aria-label="Reverie" className="mx-auto flex h-(--app-bar-height) max-w-5xl items-center justify-end gap-1 px-4">
            <ShortcutsButton />
            <ThemeToggle />
          </header>
          <MindHost>{children}</MindHost>
        </ShortcutsProvider>
      </body>
    </html>
  );
}
