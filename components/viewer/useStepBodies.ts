"use client";
// Full step bodies, loaded on demand for the rows on screen and kept in a
// bounded cache (steps never change, so a cached body is never stale). New
// steps of a followed live stream are loaded before they are shown, so their
// rows are drawn once, with their bodies, not as a preview and again.
import { useEffect, useMemo, useRef, useState } from "react";
import type { StepSource } from "@/lib/trajectory/source";
import type { StepLine } from "@/lib/trajectory/headlong";

const CACHE = 4000;

export interface BodyCache {
  readonly bodies: ReadonlyMap<number, StepLine>;
  /** Load the bodies not in the cache yet; resolves once they are in (or could not be read). */
  load(seqs: readonly number[]): Promise<void>;
}

export function useBodyCache(source: StepSource): BodyCache {
  return useMemo(() => {
    const bodies = new Map<number, StepLine>();
    return {
      bodies,
      async load(seqs) {
        const missing = seqs.filter((s) => !bodies.has(s));
        if (missing.length === 0) return;
        try {
          for (const [seq, step] of await source.bodies(missing)) bodies.set(seq, step);
        } catch {
          return; // shown as previews; the next render asks again
        }
        // Drop the oldest entries past the bound (Map keeps insertion order).
        for (const k of bodies.keys()) {
          if (bodies.size <= CACHE) break;
          bodies.delete(k);
        }
      },
    };
  }, [source]);
}

/** The cached bodies, loading those of `seqs` not in the cache (and re-rendering once they are). */
export function useStepBodies(cache: BodyCache, seqs: readonly number[]): ReadonlyMap<number, StepLine> {
  const mounted = useRef(true);
  const [, setVersion] = useState(0);
  const key = seqs.join(",");

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  useEffect(() => {
    if (seqs.every((s) => cache.bodies.has(s))) return;
    // Results are kept even if the reader has scrolled on: they are valid bodies.
    void cache.load(seqs).then(() => {
      if (mounted.current) setVersion((v) => v + 1);
    });
    // `key` stands for `seqs` (a new array each render).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, cache]);

  return cache.bodies;
}
