"use client";
// When each probe decided by nothing happening was asked: the time of its
// first evidence step (the person's message), read from the archive, so the
// timeline can place it. results.json gives no time for such a probe.
import { useEffect, useState } from "react";
import type { EvalProbe } from "@/lib/eval/results";
import { simHours } from "@/lib/eval/scoreboard";
import type { StepSource } from "@/lib/trajectory/source";

/** Probe id → simulated hours; empty until read (and for probes with nothing to read). */
export function useAskedHours(source: StepSource, start: string, probes: readonly EvalProbe[]): ReadonlyMap<string, number> {
  const [hours, setHours] = useState<ReadonlyMap<string, number>>(new Map());
  useEffect(() => {
    let live = true;
    const wanted = probes.filter((p) => p.at_h === null && p.evidence[0] !== undefined);
    void (async () => {
      const out = new Map<string, number>();
      for (const p of wanted) {
        const where = await source.locate(p.evidence[0] as string).catch(() => null);
        if (!where) continue;
        const step = (await source.bodies([where.seq]).catch(() => new Map())).get(where.seq);
        const h = step && typeof step.ts === "string" ? simHours(start, step.ts) : null;
        if (h !== null) out.set(p.id, h);
      }
      if (live && out.size) setHours(out);
    })();
    return () => {
      live = false;
    };
  }, [source, start, probes]);
  return hours;
}
