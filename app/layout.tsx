import type { Metadata } from "next";
import type { ReactNode } from "react";
import { MindHost } from "@/components/runner/MindHost";
import "./globals.css";

export const metadata: Metadata = {
  title: "Reverie",
  description: "A persistent mind that lives in a browser tab.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-stone-50 text-stone-900 dark:bg-stone-950 dark:text-stone-100">
        <MindHost>{children}</MindHost>
      </body>
    </html>
  );
}
