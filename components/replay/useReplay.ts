"use client";
// A replay's state: the trajectory read once, the cursor over it, and play
// (a timer that moves the cursor one step at a time, waiting what the speed
// says, long silences cut short). The viewer reads `source`; forward moves
// reach it through its watch, a move back hands it a new source.
import { useCallback, useEffect, useRef, useState } from "react";
import { loadReplay, loadTimelineSteps, ReplayCursor, type ReplayLoad } from "@/lib/trajectory/replay-source";
import type { StepSource } from "@/lib/trajectory/source";
import { clampShown, waitBefore, type ReplaySpeed, type Wait } from "@/lib/trajectory/replay-cursor";
import type { Step } from "@/lib/trajectory/schema";

export type ReplayState =
  | { state: "loading" }
  | { state: "error"; message: string }
  | {
      state: "ready";
      load: ReplayLoad;
      source: StepSource;
      shown: number;
      total: number;
      /** The timeline's steps (its kinds only), with their seqs; null while they load. */
      timelineSteps: { seq: number; step: Step }[] | null;
      playing: boolean;
      speed: ReplaySpeed;
      /** The wait before the step last shown in play (to say when a silence was cut). */
      lastWait: Wait | null;
    };

export interface ReplayControls {
  moveTo: (shown: number) => void;
  step: (by: number) => void;
  setPlaying: (playing: boolean) => void;
  setSpeed: (speed: ReplaySpeed) => void;
}

export function useReplay(inner: StepSource | null): [ReplayState, ReplayControls] {
  const [failure, setFailure] = useState<string | null>(null);
  const [load, setLoad] = useState<ReplayLoad | null>(null);
  const cursor = useRef<ReplayCursor | null>(null);
  const [source, setSource] = useState<StepSource | null>(null);
  const [shown, setShown] = useState(0);
  const [timelineSteps, setTimelineSteps] = useState<{ seq: number; step: Step }[] | null>(null);
  const [playing, setPlayingState] = useState(false);
  const [speed, setSpeed] = useState<ReplaySpeed>("100");
  const [lastWait, setLastWait] = useState<Wait | null>(null);

  useEffect(() => {
    if (!inner) return;
    const abort = new AbortController();
    setLoad(null);
    setFailure(null);
    setTimelineSteps(null);
    loadReplay(inner, abort.signal)
      .then((read) => {
        if (abort.signal.aborted) return;
        // A replay opens at its first step, ready to play.
        const c = new ReplayCursor(inner, read, Math.min(1, read.entries.length));
        cursor.current = c;
        setLoad(read);
        setSource(c.source);
        setShown(c.shown);
        return loadTimelineSteps(inner, read.entries, abort.signal).then((steps) => !abort.signal.aborted && setTimelineSteps(steps));
      })
      .catch((e: unknown) => {
        if (!abort.signal.aborted) setFailure(e instanceof Error ? e.message : String(e));
      });
    return () => abort.abort();
  }, [inner]);

  const moveTo = useCallback((n: number) => {
    const c = cursor.current;
    if (!c) return;
    if (c.moveTo(n)) setSource(c.source);
    setShown(c.shown);
  }, []);

  const total = load?.entries.length ?? 0;
  const setPlaying = useCallback(
    (on: boolean) => {
      const c = cursor.current;
      // Play at the end starts again from the beginning.
      if (on && c && c.shown >= c.total) moveTo(Math.min(1, c.total));
      setLastWait(null);
      setPlayingState(on);
    },
    [moveTo],
  );

  useEffect(() => {
    if (!playing || !load) return;
    if (shown >= total) {
      setPlayingState(false);
      return;
    }
    const wait = waitBefore(load.entries, shown, speed);
    const t = setTimeout(() => {
      setLastWait(wait);
      moveTo(shown + 1);
    }, wait.ms);
    return () => clearTimeout(t);
  }, [playing, shown, speed, load, total, moveTo]);

  const step = useCallback((by: number) => moveTo(clampShown((cursor.current?.shown ?? 0) + by, cursor.current?.total ?? 0)), [moveTo]);

  const controls: ReplayControls = { moveTo, step, setPlaying, setSpeed };
  if (failure) return [{ state: "error", message: failure }, controls];
  if (!load || !source) return [{ state: "loading" }, controls];
  return [{ state: "ready", load, source, shown, total, timelineSteps, playing, speed, lastWait }, controls];
}
