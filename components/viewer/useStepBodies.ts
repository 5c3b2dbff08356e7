"use client";
// Full step bodies, loaded on demand for the rows on screen and kept in a
// bounded cache (steps never change, so a cached body is never stale).
import { useEffect, useRef, useState } from "react";
import type { StepSource } from "@/lib/store/view";
import type { Step } from "@/lib/trajectory/schema";

const CACHE = 4000;

export function useStepBodies(source: StepSource, seqs: readonly number[]): Map<number, Step> {
  const cache = useRef(new Map<number, Step>());
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
    const missing = seqs.filter((s) => !cache.current.has(s));
    if (missing.length === 0) return;
    // Results are kept even if the reader has scrolled on: they are valid bodies.
    source
      .bodies(missing)
      .then((bodies) => {
        const c = cache.current;
        for (const [seq, step] of bodies) c.set(seq, step);
        // Drop the oldest entries past the bound (Map keeps insertion order).
        for (const k of c.keys()) {
          if (c.size <= CACHE) break;
          c.delete(k);
        }
        if (mounted.current) setVersion((v) => v + 1);
      })
      .catch(() => undefined);
    // `key` stands for `seqs` (a new array each render).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, source]);

  return cache.current;
}
