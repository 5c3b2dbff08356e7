"use client";
// The lanes themselves, from steps already in hand: messages, wakes, runs and
// idle stretches over [from, to], each mark a button that says what it is, an
// axis, the focused mark's words below, and, for a replay, a cursor line.
// The Timeline tab feeds it a mind's steps from storage; a replay, the steps
// up to its cursor.
import { useMemo, useState } from "react";
import type { Timeline } from "@/lib/trajectory/timeline";
import { inWindow, marksOf, utcTime, type LaneKey, type Mark } from "./marks";

const LANES: { key: LaneKey; label: string }[] = [
  { key: "messages", label: "Messages" },
  { key: "wakes", label: "Wakes" },
  { key: "runs", label: "Runs" },
  { key: "idle", label: "Idle" },
];

const AXIS_TICKS = 5;

export interface LanesProps {
  timeline: Timeline;
  from: number;
  to: number;
  /** Where open runs end (the clock, or a replay's cursor). */
  now: number;
  onOpen: (stepId: string) => void;
  /** A replay's cursor: a line across the lanes at this time. */
  cursor?: number;
}

export function TimelineLanes({ timeline, from, to, now, onOpen, cursor }: LanesProps) {
  const marks = useMemo(() => marksOf(timeline, now), [timeline, now]);
  const [focused, setFocused] = useState<string | null>(null);
  const span = Math.max(1, to - from);
  const x = (t: number) => Math.min(100, Math.max(0, ((t - from) / span) * 100));
  return (
    <>
      <div className="relative flex flex-col gap-2">
        {LANES.map((lane) => (
          <Lane key={lane.key} lane={lane.key} label={lane.label} marks={marks[lane.key]} from={from} to={to} x={x} onOpen={onOpen} onFocus={setFocused} />
        ))}
        <Axis from={from} to={to} />
        {cursor !== undefined && (
          <div aria-hidden className="pointer-events-none absolute inset-y-0 right-0 left-22">
            <div data-testid="timeline-cursor" data-at={new Date(cursor).toISOString()} className="absolute inset-y-0 w-0.5 -translate-x-1/2 bg-rose-600 dark:bg-rose-400" style={{ left: `${x(cursor)}%` }} />
          </div>
        )}
      </div>
      <p data-testid="timeline-detail" aria-live="polite" className="min-h-5 text-sm text-stone-700 dark:text-stone-300">
        {focused ?? ""}
      </p>
    </>
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
  // A span of minutes (a short replay) needs its seconds, and one of seconds its milliseconds, or every tick reads the same.
  const short = to - from < 600_000;
  const tiny = to - from < 20_000;
  return (
    <div aria-hidden className="flex items-center gap-2">
      <span className="w-20 shrink-0" />
      <div className="relative h-4 flex-1 text-[10px] text-stone-500 dark:text-stone-400">
        {ticks.map((t, i) => (
          <span key={i} className={`absolute ${i === 0 ? "" : i === AXIS_TICKS - 1 ? "-translate-x-full" : "-translate-x-1/2"}`} style={{ left: `${((t - from) / Math.max(1, to - from)) * 100}%` }}>
            {long ? new Date(t).toISOString().slice(5, 10) : tiny ? new Date(t).toISOString().slice(11, 23) : short ? utcTime(t) : utcTime(t).slice(0, 5)}
          </span>
        ))}
      </div>
    </div>
  );
}
