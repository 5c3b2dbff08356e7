"use client";
// A mind's life as lanes over time: messages, wakes (and what caused each),
// runs and the idle stretches between, over the last hour, day or its whole
// life, read from this browser's storage (TimelineLanes draws them). Every
// mark is a button that says what it is and opens its step in the stream. It
// follows new steps as they are appended.
import { useEffect, useMemo, useState } from "react";
import { useTimelineSteps } from "@/lib/store/view/hooks";
import { timelineOf } from "@/lib/trajectory/timeline";
import { useViewerUrl } from "../viewer/useViewerUrl";
import { TimelineLanes } from "./TimelineLanes";

const ZOOMS = [
  { key: "hour", label: "Last hour", ms: 3_600_000 },
  { key: "day", label: "Last day", ms: 86_400_000 },
  { key: "all", label: "All", ms: null },
] as const;
type Zoom = (typeof ZOOMS)[number]["key"];

/** The axis moves on with the clock at this pace (new steps redraw at once). */
const TICK_MS = 5000;

function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(t);
  }, []);
  return now;
}

/** `onShowStream`: bring the stream into view; the step to open is set in the URL (`?step=`), as a deep link. */
export function TimelineView({ mindId, onShowStream }: { mindId: string; onShowStream: () => void }) {
  const [, setUrl] = useViewerUrl();
  const onOpenStep = (stepId: string) => {
    setUrl({ step: stepId });
    onShowStream();
  };
  const [zoom, setZoom] = useState<{ key: Zoom; since: number | null }>(() => ({ key: "hour", since: Date.now() - 3_600_000 }));
  const steps = useTimelineSteps(mindId, zoom.since);
  const now = useNow();
  const timeline = useMemo(() => (steps ? timelineOf(steps) : null), [steps]);

  const ms = ZOOMS.find((z) => z.key === zoom.key)?.ms ?? null;
  const to = Math.max(now, timeline?.end ?? now);
  const from = ms !== null ? to - ms : Math.min(timeline?.start ?? to - 60_000, to - 60_000);

  return (
    <section data-testid="timeline" aria-label="Timeline" className="flex min-h-0 flex-1 flex-col gap-3 overflow-auto py-3">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="text-stone-500 dark:text-stone-400">Zoom:</span>
        {ZOOMS.map((z) => (
          <button
            key={z.key}
            type="button"
            data-testid={`timeline-zoom-${z.key}`}
            aria-pressed={zoom.key === z.key}
            onClick={() => setZoom({ key: z.key, since: z.ms === null ? null : Date.now() - z.ms })}
            className={`rounded border px-2 py-0.5 ${zoom.key === z.key ? "border-indigo-500 bg-indigo-50 dark:bg-indigo-950" : "border-stone-300 hover:bg-stone-100 dark:border-stone-700 dark:hover:bg-stone-900"}`}
          >
            {z.label}
          </button>
        ))}
        <span className="ml-auto text-xs text-stone-500 dark:text-stone-400">Times in UTC. Click a mark to open its step in the stream.</span>
      </div>
      {!timeline ? (
        <p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>
      ) : (
        <TimelineLanes timeline={timeline} from={from} to={to} now={Math.max(now, timeline.end ?? now)} onOpen={onOpenStep} />
      )}
    </section>
  );
}
