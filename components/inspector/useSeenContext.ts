"use client";
// What one run's model calls saw: its records read from this browser's store,
// and the chosen call's messages rebuilt from the steps and sealed summaries
// it cites (lib/context/replay.ts). Records are written once and never change,
// so each is read when asked for and kept.
import { useEffect, useMemo, useState } from "react";
import { replay, tokenLines, type Replayed, type TokenLine } from "@/lib/context/replay";
import type { StoredSeen } from "@/lib/store/derived/contexts";
import { useSeenRecords } from "@/lib/store/view/hooks";

/** Which run to show, and which of its calls first (the one that led to `stepId`; else its first). */
export interface InspectTarget {
  runId: string;
  stepId?: string;
}

export type SeenState =
  | { state: "loading" }
  | { state: "none" }
  | { state: "failed"; error: string }
  | { state: "ready"; calls: StoredSeen[]; at: number; replayed: Replayed | null; lines: TokenLine[]; total: number };

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The call to open first: the one that led to the step, or the run's first; a step no call led to (a stall, a final) opens the last. */
export function firstCall(calls: readonly StoredSeen[], stepId: string | undefined): number {
  if (!stepId) return 0;
  const at = calls.findIndex((c) => c.call.step_id === stepId);
  return at >= 0 ? at : calls.length - 1;
}

export function useSeenContext(owner: string | undefined, target: InspectTarget): { seen: SeenState; choose: (at: number) => void } {
  const [calls, setCalls] = useState<StoredSeen[] | null | { error: string }>(null);
  const [at, setAt] = useState(0);
  const [replayed, setReplayed] = useState<{ at: number; value: Replayed } | { at: number; error: string } | null>(null);
  const records = useSeenRecords(owner);

  useEffect(() => {
    let cancelled = false;
    setCalls(null);
    setReplayed(null);
    // A source without an owner in this browser (an imported archive) has no records.
    if (!records) {
      setCalls([]);
      return;
    }
    (async () => {
      let found = await records.ofRun(target.runId);
      // A step's own record names its run, should the step not carry one.
      if (!found.length && target.stepId) {
        const own = await records.ofStep(target.stepId);
        if (own) found = await records.ofRun(own.call.run_id);
      }
      if (cancelled) return;
      setCalls(found);
      setAt(firstCall(found, target.stepId));
    })().catch((e) => !cancelled && setCalls({ error: message(e) }));
    return () => {
      cancelled = true;
    };
  }, [records, target.runId, target.stepId]);

  const chosen = Array.isArray(calls) ? calls[at] : undefined;
  useEffect(() => {
    if (!chosen || !records) return;
    let cancelled = false;
    records
      .lookups(chosen.call)
      .then((look) => !cancelled && setReplayed({ at, value: replay(chosen.call, look) }))
      .catch((e) => !cancelled && setReplayed({ at, error: message(e) }));
    return () => {
      cancelled = true;
    };
  }, [chosen, records, at]);

  const seen = useMemo<SeenState>(() => {
    if (calls === null) return { state: "loading" };
    if (!Array.isArray(calls)) return { state: "failed", error: calls.error };
    const call = calls[at];
    if (!call) return { state: "none" };
    if (replayed && replayed.at === at && "error" in replayed) return { state: "failed", error: replayed.error };
    const { lines, total } = tokenLines(call.call);
    return { state: "ready", calls, at, replayed: replayed && replayed.at === at && "value" in replayed ? replayed.value : null, lines, total };
  }, [calls, at, replayed]);

  return { seen, choose: setAt };
}
