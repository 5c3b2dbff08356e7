"use client";
// The light index of one trajectory: the newest steps first (so the viewer
// shows something at once), then every older step in pages, then, for a live
// mind, each new step as it is appended.
import { liveQuery } from "dexie";
import { useEffect, useState } from "react";
import { db } from "@/lib/store/db";
import { entriesAfter, entriesBetween, newestEntries } from "@/lib/store/view";
import type { IndexEntry } from "@/lib/trajectory/rows";

const FIRST = 300;
const PAGE = 10_000;

export interface TrajectoryIndex {
  entries: IndexEntry[];
  /** False until every older step is in the index. */
  complete: boolean;
  loaded: boolean;
}

export function useTrajectoryIndex(owner: string, traj: string | undefined): TrajectoryIndex {
  const [state, setState] = useState<TrajectoryIndex>({ entries: [], complete: false, loaded: false });

  useEffect(() => {
    if (!traj) return;
    let cancelled = false;
    let unsubscribe = () => {};
    setState({ entries: [], complete: false, loaded: false });
    (async () => {
      const newest = await newestEntries(db(), owner, traj, FIRST);
      if (cancelled) return;
      setState({ entries: newest, complete: newest.length < FIRST, loaded: true });

      // Follow new steps from the newest known one on.
      let last = newest[newest.length - 1]?.seq ?? 0;
      const sub = liveQuery(() => entriesAfter(db(), owner, traj, last)).subscribe({
        next: (fresh) => {
          if (cancelled || fresh.length === 0) return;
          last = Math.max(last, fresh[fresh.length - 1]?.seq ?? last);
          setState((s) => {
            const known = s.entries[s.entries.length - 1]?.seq ?? 0;
            const add = fresh.filter((e) => e.seq > known);
            return add.length ? { ...s, entries: s.entries.concat(add) } : s;
          });
        },
        error: () => undefined,
      });
      unsubscribe = () => sub.unsubscribe();

      // Then everything older, in pages, handed over once (one re-render).
      const firstSeq = newest[0]?.seq;
      if (firstSeq === undefined || newest.length < FIRST) return;
      const older: IndexEntry[] = [];
      let from = 0;
      for (;;) {
        const page = await entriesBetween(db(), owner, traj, from, firstSeq, PAGE);
        if (cancelled) return;
        older.push(...page);
        if (page.length < PAGE) break;
        from = (page[page.length - 1]?.seq ?? firstSeq) + 1;
      }
      setState((s) => ({ ...s, entries: older.concat(s.entries), complete: true }));
    })().catch(() => setState((s) => ({ ...s, loaded: true, complete: true })));
    return () => {
      cancelled = true;
      unsubscribe();
    };
  }, [owner, traj]);

  return state;
}
