"use client";
// What the mind's sandbox may do, in one line under the status bar. Read-only:
// only the human changes permissions, in Settings.
import type { Permissions } from "@/lib/trajectory/permissions";
import { summarize } from "./permissions-form";

export function PermissionsSummary({ permissions }: { permissions: Permissions }) {
  const text = summarize(permissions);
  return (
    <p
      data-testid="permissions-summary"
      className="truncate text-xs text-stone-500 dark:text-stone-400"
      title={`${text}\nSet by this mind's human in Settings; the mind cannot change them.`}
    >
      {text}
    </p>
  );
}
