"use client";
// A mind's life as lanes over time: messages, wakes (and what caused each),
// runs and the idle stretches between, over the last hour, day or its whole
// life. Every mark is a button that says what it is and opens its step in
// the stream. It follows new steps as they are appended.
import { useEffect, useMemo, useState } from "react";
import { useTimelineSteps } from "@/lib/store/hooks";
import { timelineOf } from "@/lib/trajectory/timeline";
import { useViewerUrl } from "../viewer/useViewerUrl";
import { inWindow, marksOf, utcTime, type LaneKey, type Mark } from "./marks";

const ZOOMS = [
  { key: "hour", label: "Last hour", ms: 3_600_000 },
  { key: "day", label: "Last day", ms: 86_400_000 },
  { key: "all", label: "All", ms: null },
] as const;
type Zoom = (typeof ZOOMS)[number]["key"];

const LANES: { key: LaneKey; label: string }[] = [
  { key: "messages", label: "Messages" },
  { key: "wakes", label: "Wakes" },
  { key: "runs", label: "Runs" },
  { key: "idle", label: "Idle" },
];

/** The axis moves on with the clock at this pace (new steps redraw at once). */
const TICK_MS = 5000;
const AXIS_TICKS = 5;

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
  const marks = useMemo(() => (timeline ? marksOf(timeline, Math.max(now, timeline.end ?? now)) : null), [timeline, now]);
  const [focused, setFocused] = useState<string | null>(null);

  const ms = ZOOMS.find((z) => z.key === zoom.key)?.ms ?? null;
  const to = Math.max(now, timeline?.end ?? now);
  const from = ms !== null ? to - ms : Math.min(timeline?.start ?? to - 60_000, to - 60_000);
  const x = (t: number) => Math.min(100, Math.max(0, ((t - from) / (to - from)) * 100));

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
      {!marks ? (
        <p className="text-sm text-stone-500 dark:text-stone-400">Loading…</p>
      ) : (
        <div className="flex flex-col gap-2">
          {LANES.map((lane) => (
            <Lane key={lane.key} lane={lane.key} label={lane.label} marks={marks[lane.key]} from={from} to={to} x={x} onOpen={onOpenStep} onFocus={setFocused} />
          ))}
          <Axis from={from} to={to} />
        </div>
      )}
      <p data-testid="timeline-detail" aria-live="polite" className="min-h-5 text-sm text-stone-700 dark:text-stone-300">
        {focused ?? ""}
      </p>
    </section>
  );
}

function Lane({ lane, label, marks, from, to, x, onOpen, onFocus }: { lane: LaneKey; label: string; marks: Mark[]; from: number; to: number; x: (t: number) => number; onOpen: (id: string) => void; onFocus: (text: string | null) => void }) {
  const { shown, hidden } = inWindow(marks, from, to);
  return (
    <div data-testid="timeline-lane" data-lane={lane} role="group" aria-label={`${label}: ${shown.length} in view`} className="flex items-center gap-2">
      <span className="w-20 shrink-0 text-xs font-medium text-stone-600 dark:text-stone-400">{label}</span>
      <div className="relative h-6 flex-1 rounded bg-stone-100 dark:bg-stone-900">
        {shown.map((m) => {
          const left = x(m.start);
          const width = m.end === undefined ? undefined : Math.max(0, x(m.end) - left);
          return (
            <button
              key={m.key}
              type="button"
              data-testid="timeline-mark"
              data-step-id={m.stepId}
              data-kind={m.kind}
              title={m.text}
              aria-label={m.text}
              onClick={() => onOpen(m.stepId)}
              onFocus={() => onFocus(m.text)}
              onMouseEnter={() => onFocus(m.text)}
              onBlur={() => onFocus(null)}
              style={width === undefined ? { left: `${left}%` } : { left: `${left}%`, width: `${width}%` }}
              className={`absolute top-1 h-4 rounded-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 ${m.colour} ${width === undefined ? "w-1.5 -translate-x-1/2" : "min-w-1"}`}
            />
          );
        })}
      </div>
      {hidden > 0 && <span className="text-xs text-stone-500 dark:text-stone-400">+{hidden} older (zoom in)</span>}
    </div>
  );
}

function Axis({ from, to }: { from: number; to: number }) {
  const ticks = Array.from({ length: AXIS_TICKS }, (_, i) => from + ((to - from) * i) / (AXIS_TICKS - 1));
  const long = to - from > 86_400_000;
  return (
    <div aria-hidden className="flex items-center gap-2">
      <span className="w-20 shrink-0" />
      <div className="relative h-4 flex-1 text-[10px] text-stone-500 dark:text-stone-400">
        {ticks.map((t, i) => (
          <span key={i} className={`absolute ${i === 0 ? "" : i === AXIS_TICKS - 1 ? "-translate-x-full" : "-translate-x-1/2"}`} style={{ left: `${((t - from) / (to - from)) * 100}%` }}>
            {long ? new Date(t).toISOString().slice(5, 10) : utcTime(t).slice(0, 5)}
          </span>
        ))}
      </div>
    </div>
  );
}
