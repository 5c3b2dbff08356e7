"use client";
// The viewer's rows and type counts, kept up to date as a live trajectory
// grows at the cost of the new steps, not of the whole history: a mind on a
// fast model brings a batch of new steps four times a second to a stream of thousands.
import { useMemo, useRef } from "react";
import { extendRows, type DisplayRow, type IndexEntry, type RowBuild, type RowOptions } from "@/lib/trajectory/rows";

/** `buildRows(entries, opts)`, extended from the last rows when only new entries were appended. */
export function useRows(entries: readonly IndexEntry[], { collapsedRuns, openFolds, types }: RowOptions): readonly DisplayRow[] {
  const build = useRef<RowBuild | null>(null);
  return useMemo(() => {
    build.current = extendRows(build.current, entries, { collapsedRuns, openFolds, types });
    return build.current.rows;
  }, [entries, collapsedRuns, openFolds, types]);
}

interface Counted {
  n: number;
  first: IndexEntry | undefined;
  last: IndexEntry | undefined;
  counts: ReadonlyMap<string, number>;
}

/** How many steps of each type; counts only the appended entries when the rest are those counted before. */
export function useTypeCounts(entries: readonly IndexEntry[]): ReadonlyMap<string, number> {
  const counted = useRef<Counted | null>(null);
  return useMemo(() => {
    const prev = counted.current;
    const appended = prev !== null && entries.length >= prev.n && (prev.n === 0 || (entries[0] === prev.first && entries[prev.n - 1] === prev.last));
    if (appended && entries.length === prev.n) return prev.counts;
    const counts = new Map(appended ? prev.counts : []);
    for (let i = appended ? prev.n : 0; i < entries.length; i++) {
      const type = (entries[i] as IndexEntry).type;
      counts.set(type, (counts.get(type) ?? 0) + 1);
    }
    counted.current = { n: entries.length, first: entries[0], last: entries[entries.length - 1], counts };
    return counts;
  }, [entries]);
}
