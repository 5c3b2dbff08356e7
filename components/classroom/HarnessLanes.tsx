"use client";
// The three harnesses drawn side by side over the scripted day: each lane's
// wakes (coloured by cause) under the day's messages, and its totals.
import { latencySummary, type HarnessKind, type HarnessResult, type SimCause } from "@/lib/classroom/harness";
import { clockOf, type ScriptedDay } from "@/lib/classroom/days";
import { duration } from "../timeline/marks";

export const HARNESS_TEXT: Record<HarnessKind, { name: string; what: string }> = {
  reactive: { name: "Reactive", what: "wakes only when a message comes" },
  scheduled: { name: "Reactive + schedule", what: "also wakes on a fixed timer" },
  persistent: { name: "Persistent (Reverie)", what: "the real pacing: no pause, then 5 s doubling to the cap; a message rests it" },
};

const CAUSE: Record<SimCause, { label: string; colour: string }> = {
  message: { label: "answers a message", colour: "bg-fuchsia-600 dark:bg-fuchsia-400" },
  timer: { label: "timer", colour: "bg-sky-600 dark:bg-sky-400" },
  paced: { label: "paced wake", colour: "bg-sky-600 dark:bg-sky-400" },
  start: { label: "start", colour: "bg-emerald-600 dark:bg-emerald-400" },
};

const HOURS = [0, 6, 12, 18, 24];

export function usd(n: number): string {
  return n >= 1 ? `$${n.toFixed(2)}` : n >= 0.01 ? `$${n.toFixed(3)}` : `$${n.toPrecision(2)}`;
}

const latency = (s: number | null) => (s === null ? "—" : duration(s * 1000));

export function HarnessLanes({ day, results }: { day: ScriptedDay; results: HarnessResult[] }) {
  const x = (s: number) => `${Math.min(100, Math.max(0, (s / day.lengthS) * 100))}%`;
  return (
    <div className="flex flex-col gap-4">
      {results.map((r) => {
        const text = HARNESS_TEXT[r.harness];
        const lat = latencySummary(r.latencyS);
        return (
          <section key={r.harness} data-testid="harness-lane" data-harness={r.harness} data-wakes={r.wakes.length} aria-label={`${text.name}: ${r.wakes.length} wakes`} className="flex flex-col gap-1">
            <h3 className="text-sm font-medium">
              {text.name} <span className="font-normal text-stone-500 dark:text-stone-400">· {text.what}</span>
            </h3>
            <div className="relative h-4 rounded-t bg-stone-50 dark:bg-stone-900/50" aria-hidden>
              {day.messages.map((m, i) => (
                <span key={i} title={`${clockOf(m.atS)} ${m.from}: ${m.text}`} className="absolute top-0.5 h-3 w-1 -translate-x-1/2 rounded-sm bg-teal-600 dark:bg-teal-400" style={{ left: x(m.atS) }} />
              ))}
            </div>
            <div className="relative h-8 rounded-b bg-stone-100 dark:bg-stone-900">
              {r.wakes.map((w, i) => (
                <span
                  key={i}
                  data-testid="harness-wake"
                  data-cause={w.cause}
                  data-at={w.atS}
                  title={`${clockOf(w.atS)}: ${CAUSE[w.cause].label}${w.level !== undefined && w.cause === "paced" ? ` (level ${w.level}, after ${Math.round(w.pauseS ?? 0)} s)` : ""}, ${w.calls} call${w.calls === 1 ? "" : "s"}, ${usd(w.usd)}`}
                  className={`absolute top-1 h-6 w-0.5 -translate-x-1/2 ${CAUSE[w.cause].colour}`}
                  style={{ left: x(w.atS) }}
                />
              ))}
            </div>
            <p data-testid="harness-total" data-harness={r.harness} data-usd={r.usd.toFixed(6)} data-calls={r.calls} className="text-sm tabular-nums">
              <strong>{r.wakes.length}</strong> wakes · <strong>{r.calls}</strong> model calls · {(r.inputTokens + r.outputTokens).toLocaleString("en")} tokens · <strong>{usd(r.usd)}</strong> · reply after {latency(lat.meanS)} on average, {latency(lat.maxS)} at worst
              {lat.unanswered ? ` · ${lat.unanswered} not answered by midnight` : ""}
            </p>
          </section>
        );
      })}
      <div aria-hidden className="relative h-4 text-xs text-stone-500 dark:text-stone-400">
        {HOURS.map((h) => (
          <span key={h} className={`absolute ${h === 0 ? "" : h === 24 ? "-translate-x-full" : "-translate-x-1/2"}`} style={{ left: x(h * 3600) }}>
            {String(h).padStart(2, "0")}:00
          </span>
        ))}
      </div>
    </div>
  );
}
