"use client";
// A list of minds or opened trajectories, each a link with a one-line detail.
import Link from "next/link";

export function OwnerList({ items, testId }: { items: { id: string; href: string; name: string; detail: string }[]; testId: string }) {
  return (
    <ul className="mt-2 divide-y divide-stone-200 rounded border border-stone-200 dark:divide-stone-800 dark:border-stone-800" data-testid={testId}>
      {items.map((it) => (
        <li key={it.id}>
          <Link href={it.href} className="flex min-h-10 flex-col gap-0.5 px-3 py-2 hover:bg-stone-100 sm:flex-row sm:items-baseline sm:justify-between sm:gap-4 focus:bg-stone-100 focus:outline-none dark:hover:bg-stone-900 dark:focus:bg-stone-900">
            <span className="min-w-0 truncate font-medium">{it.name}</span>
            <span className="min-w-0 truncate text-xs text-stone-500 dark:text-stone-400">{it.detail}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Shown when a page's id names nothing in this browser. */
export function NotFound({ what }: { what: string }) {
  return (
    <main className="mx-auto max-w-3xl px-4 py-10">
      <p role="alert">There is no {what} with this id in this browser.</p>
      <Link href="/" className="text-indigo-600 underline dark:text-indigo-400">
        Back home
      </Link>
    </main>
  );
}
