// The Memory tab's door into the store: people's changes to a mind's memories
// and goals (lib/store/minds/curations.ts), made under this browser's sender
// name, and what waits for the mind's worker.
"use client";
import { useObservable } from "dexie-react-hooks";
import { useEffect, useMemo } from "react";
import type { Curation, CurationRequest, CurationStep } from "../../shell/curation";
import { db } from "../db/db";
import { curate, curationStep, drainCurationQueue, watchCurationQueue } from "../minds/curations";
import { DEFAULT_SENDER, getSenderName } from "../minds/settings";
import { systemIds } from "../../system/system";

/** How long the tab waits for a running mind to apply a change before it says the change still waits. */
const WAIT_MS = 15_000;

export type CurationOutcome =
  /** Made: its step (with `failed` when nothing could change). */
  | { state: "done"; step: CurationStep }
  /** Queued for the running mind, which has not taken it yet (it is made when it does). */
  | { state: "waiting" };

export interface MemoryCuration {
  /** Requests waiting for the mind's worker. */
  queued: Curation[];
  curate(req: CurationRequest): Promise<CurationOutcome>;
}

export function useMemoryCuration(mindId: string, running: boolean): MemoryCuration {
  const queued = useObservable(() => watchCurationQueue(db(), mindId), [mindId]) ?? [];
  // A queue left by a worker that stopped before it took it: a stopped mind's files are its saved rows, so it is made there.
  const waiting = queued.length > 0;
  useEffect(() => {
    if (waiting && !running) void drainCurationQueue(db(), mindId).catch(() => undefined);
  }, [waiting, running, mindId]);
  const act = useMemo(
    () => async (req: CurationRequest): Promise<CurationOutcome> => {
      const sender = await getSenderName(db());
      const c: Curation = { ...req, id: systemIds.uuid(), by: sender === DEFAULT_SENDER ? "" : sender, role: "owner" };
      const done = await curate(db(), mindId, c);
      if (done.applied) return { state: "done", step: done.step };
      const step = await curationStep(db(), mindId, c.id, AbortSignal.timeout(WAIT_MS));
      return step ? { state: "done", step } : { state: "waiting" };
    },
    [mindId],
  );
  return { queued, curate: act };
}
