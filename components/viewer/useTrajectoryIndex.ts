"use client";
// The light index of one trajectory: the newest steps first (so the viewer
// shows something at once), then every older step, then, when the source can
// grow (a live mind, a live link), each new step as it is appended.
import { useEffect, useRef, useState } from "react";
import type { StepSource } from "@/lib/trajectory/source";
import { LIVE_MS, type IndexEntry } from "@/lib/trajectory/rows";

const FIRST = 150;

export interface TrajectoryIndex {
  entries: IndexEntry[];
  /** False until every older step is in the index. */
  complete: boolean;
  loaded: boolean;
}

/**
 * `prepare`, when given, is awaited with each batch of new steps before they are shown (the viewer
 * loads their bodies, so that their rows are drawn once); batches are shown in order all the same.
 */
export function useTrajectoryIndex(source: StepSource, traj: string | undefined, prepare?: (fresh: IndexEntry[]) => Promise<void>): TrajectoryIndex {
  const [state, setState] = useState<TrajectoryIndex>({ entries: [], complete: false, loaded: false });
  const prepareRef = useRef(prepare);
  prepareRef.current = prepare;

  useEffect(() => {
    if (!traj) return;
    const abort = new AbortController();
    let unwatch = () => {};
    setState({ entries: [], complete: false, loaded: false });
    (async () => {
      const newest = await source.newest(traj, FIRST);
      if (abort.signal.aborted) return;
      const partial = newest.length >= FIRST;
      setState({ entries: newest, complete: !partial, loaded: true });

      const watch = source.watch;
      if (watch) {
        // A mind on a fast model writes tens of steps a second: take them in at
        // most every LIVE_MS, so the stream re-renders at that pace, not per step.
        let pending: IndexEntry[] = [];
        let timer: ReturnType<typeof setTimeout> | null = null;
        let last = 0;
        let shown: Promise<void> = Promise.resolve();
        const flush = () => {
          timer = null;
          last = Date.now();
          const fresh = pending;
          pending = [];
          // One batch after another: a later batch must not be shown before an earlier one.
          shown = shown.then(async () => {
            await prepareRef.current?.(fresh).catch(() => undefined);
            if (abort.signal.aborted) return;
            setState((s) => {
              const known = s.entries[s.entries.length - 1]?.seq ?? 0;
              const add = fresh.filter((e) => e.seq > known);
              return add.length ? { ...s, entries: s.entries.concat(add) } : s;
            });
          });
        };
        const stop = watch(traj, newest[newest.length - 1]?.seq ?? 0, (fresh) => {
          pending.push(...fresh);
          timer ??= setTimeout(flush, Math.max(0, last + LIVE_MS - Date.now()));
        });
        unwatch = () => {
          stop();
          if (timer) clearTimeout(timer);
        };
      }

      // Then everything older, handed over once (one re-render, one layout).
      const firstSeq = newest[0]?.seq;
      if (!partial || firstSeq === undefined) return;
      const older: IndexEntry[] = [];
      await source.older(traj, firstSeq, (page) => older.push(...page), abort.signal);
      if (abort.signal.aborted) return;
      setState((s) => ({ ...s, entries: older.concat(s.entries), complete: true }));
    })().catch(() => {
      if (!abort.signal.aborted) setState((s) => ({ ...s, loaded: true, complete: true }));
    });
    return () => {
      abort.abort();
      unwatch();
    };
  }, [source, traj]);

  return state;
}
