"use client";
// What the mind's sandbox may do, in one line under the status bar. Read-only:
// only the human changes permissions, in Settings.
import { memo, useMemo } from "react";
import type { Permissions } from "@/lib/trajectory/permissions";
import { summarize } from "./permissions-form";

// Memoized: its numbers are formatted by Intl, dearly, and the mind's page re-renders far more often than permissions change.
export const PermissionsSummary = memo(function PermissionsSummary({ permissions }: { permissions: Permissions }) {
  const text = useMemo(() => summarize(permissions), [permissions]);
  return (
    <p
      data-testid="permissions-summary"
      className="truncate text-xs text-stone-500 dark:text-stone-400"
      title={`${text}\nSet by this mind's human in Settings; the mind cannot change them.`}
    >
      {text}
    </p>
  );
});
