"use client";
// The viewer's shareable state lives in the URL: the trajectory (`traj`), the
// selected step (`step`, for deep links), the search (`q`) and the type
// filter (`types`). Changing it replaces the history entry, not the page.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo, useRef } from "react";

export interface ViewerUrl {
  traj: string | null;
  step: string | null;
  q: string;
  types: ReadonlySet<string> | null;
}

export function useViewerUrl(): [ViewerUrl, (change: Partial<{ traj: string | null; step: string | null; q: string; types: string[] | null }>) => void] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  // Changes made in one event (e.g. the query, then the hit) must build on
  // each other before the router has updated the URL.
  const latest = useRef<string | null>(null);
  const current = params.toString();
  const seen = useRef(current);
  if (seen.current !== current) {
    seen.current = current;
    latest.current = null;
  }
  const state = useMemo<ViewerUrl>(() => {
    const types = params.get("types");
    return {
      traj: params.get("traj"),
      step: params.get("step"),
      q: params.get("q") ?? "",
      types: types ? new Set(types.split(",").filter(Boolean)) : null,
    };
  }, [params]);
  const update = useCallback(
    (change: Partial<{ traj: string | null; step: string | null; q: string; types: string[] | null }>) => {
      const next = new URLSearchParams(latest.current ?? window.location.search);
      for (const [k, v] of Object.entries(change)) {
        const value = Array.isArray(v) ? v.join(",") : v;
        if (value === null || value === undefined || value === "") next.delete(k);
        else next.set(k, value);
      }
      const qs = next.toString();
      latest.current = qs;
      router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
    },
    [router, pathname],
  );
  return [state, update];
}
