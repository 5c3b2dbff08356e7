"use client";
// The viewer's shareable state lives in the URL: the trajectory (`traj`), the
// selected step (`step`, for deep links), the search (`q`) and the type
// filter (`types`). Changing it replaces the history entry, not the page.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";

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
      const next = new URLSearchParams(window.location.search);
      for (const [k, v] of Object.entries(change)) {
        const value = Array.isArray(v) ? v.join(",") : v;
        if (value === null || value === undefined || value === "") next.delete(k);
        else next.set(k, value);
      }
      const qs = next.toString();
      router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
    },
    [router, pathname],
  );
  return [state, update];
}
