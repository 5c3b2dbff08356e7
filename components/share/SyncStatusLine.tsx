"use client";
// What sync is doing: off, or how many steps wait, when it last synced, and why it last failed.
import type { SyncStatus } from "@/lib/store/view/hooks";

const time = (iso: string) => new Date(iso).toLocaleTimeString();

export function SyncStatusLine({ status }: { status: SyncStatus | undefined }) {
  const r = status?.record;
  let text: string;
  if (status === undefined) text = "…";
  else if (!r?.enabled) text = "Sync is off: nothing leaves this browser.";
  else text = `${status.pending} step${status.pending === 1 ? "" : "s"} pending · ${r.last_sync ? `last sync ${time(r.last_sync)}` : "not synced yet"}`;
  return (
    <span data-testid="sync-status" role="status" className="text-stone-500 dark:text-stone-400">
      {text}
      {r?.enabled && r.last_error && <span className="ml-1 text-red-700 dark:text-red-300">· error: {r.last_error}</span>}
    </span>
  );
}
