"use client";
// What a mind spent, read through an operator's invite: fetched once, and
// again on each refresh (the figures shown stay until the new ones arrive).
import { useCallback, useEffect, useState } from "react";
import type { MindUsage } from "@/lib/sharing/wire";
import { ApiRequestError, OfflineError } from "@/lib/sync/client/http";
import { type ShareClient } from "@/lib/sharing/client";

export interface SharedUsageState {
  usage: MindUsage | null;
  /** Why the last read failed, in words; null when it did not. */
  error: string | null;
  loading: boolean;
  refresh: () => void;
}

function why(e: unknown): string {
  if (e instanceof ApiRequestError && e.status === 403) return "this link may not see what the mind spends: only an operator's invite may.";
  if (e instanceof ApiRequestError && e.status === 404) return "this link does not exist or was revoked.";
  if (e instanceof ApiRequestError || e instanceof OfflineError) return e.message;
  return e instanceof Error ? e.message : String(e);
}

export function useSharedUsage(client: ShareClient): SharedUsageState {
  const [attempt, setAttempt] = useState(0);
  const [usage, setUsage] = useState<MindUsage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const refresh = useCallback(() => {
    setLoading(true);
    setAttempt((n) => n + 1);
  }, []);

  useEffect(() => {
    // A later read (or leaving the page) makes this one's answer stale: it is dropped.
    let current = true;
    client
      .usage()
      .then((u) => {
        if (!current) return;
        setUsage(u);
        setError(null);
      })
      .catch((e: unknown) => current && setError(why(e)))
      .finally(() => current && setLoading(false));
    return () => {
      current = false;
    };
  }, [client, attempt]);

  return { usage, error, loading, refresh };
}
