"use client";
// What sync is doing: off, or how many steps wait, when it last synced, how
// much of the server's quota the mind uses, and why it last failed.
import { byteSize as size } from "@/lib/archive/limits";
import type { SyncQuota } from "@/lib/sync/wire";
import type { SyncStatus } from "@/lib/store/view/hooks";

const time = (iso: string) => new Date(iso).toLocaleTimeString();

/** The fullest of the mind's limits, as a share of it. */
const fullest = (q: SyncQuota) => Math.max(q.bytes / q.max_bytes, q.steps / q.max_steps, q.blobs / q.max_blobs);

function QuotaUse({ quota }: { quota: SyncQuota }) {
  const share = fullest(quota);
  const title = `${quota.steps} of ${quota.max_steps} steps, ${quota.blobs} of ${quota.max_blobs} blobs, ${size(quota.bytes)} of ${size(quota.max_bytes)} on the server`;
  return (
    <span data-testid="sync-quota" data-quota-used={share.toFixed(4)} title={title} className={share >= 0.9 ? "ml-1 text-amber-700 dark:text-amber-300" : "ml-1"}>
      · {size(quota.bytes)} of {size(quota.max_bytes)} used{share >= 0.9 ? ` (${Math.floor(share * 100)}% of a limit)` : ""}
    </span>
  );
}

export function SyncStatusLine({ status }: { status: SyncStatus | undefined }) {
  const r = status?.record;
  let text: string;
  if (status === undefined) text = "…";
  else if (!r?.enabled) text = "Sync is off: nothing leaves this browser.";
  else text = `${status.pending} step${status.pending === 1 ? "" : "s"} pending · ${r.last_sync ? `last sync ${time(r.last_sync)}` : "not synced yet"}`;
  return (
    <span data-testid="sync-status" role="status" className="text-stone-500 dark:text-stone-400">
      {text}
      {r?.enabled && r.quota && <QuotaUse quota={r.quota} />}
      {r?.enabled && r.last_error && <span className="ml-1 text-red-700 dark:text-red-300">· error: {r.last_error}</span>}
    </span>
  );
}
