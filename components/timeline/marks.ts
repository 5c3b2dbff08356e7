// What the timeline draws, lane by lane: each mark's place on the time axis,
// its colour, and the words that say what it is (its title and label).
import { runText, wakeText, type Timeline } from "@/lib/trajectory/timeline";

export type LaneKey = "messages" | "wakes" | "runs" | "idle";

export interface Mark {
  key: string;
  /** The step a click opens in the stream. */
  stepId: string;
  start: number;
  /** Absent: an instant. */
  end?: number;
  text: string;
  /** A wake's cause, a run's outcome, or the lane's kind (message, idle). */
  kind: string;
  /** Tailwind classes, light and dark. */
  colour: string;
}

/** Beyond this many marks a lane keeps its newest, and says so (zoom in to see the rest). */
export const MAX_MARKS = 1500;

export const utcTime = (t: number) => new Date(t).toISOString().slice(11, 19);

export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

const WAKE_COLOUR: Record<string, string> = {
  start: "bg-emerald-600 dark:bg-emerald-400",
  scheduled: "bg-sky-600 dark:bg-sky-400",
  message: "bg-fuchsia-600 dark:bg-fuchsia-400",
  retry: "bg-amber-600 dark:bg-amber-400",
  alarm: "bg-orange-600 dark:bg-orange-400",
  headlong: "bg-stone-500 dark:bg-stone-400",
};
const RUN_COLOUR: Record<string, string> = {
  final: "bg-indigo-500 dark:bg-indigo-400",
  idle: "bg-indigo-200 dark:bg-indigo-900",
  error: "bg-red-500 dark:bg-red-400",
  open: "bg-indigo-300 dark:bg-indigo-700 animate-pulse",
};

/** The marks of every lane, for a time axis that ends at `now` (open runs reach it). */
export function marksOf(t: Timeline, now: number): Record<LaneKey, Mark[]> {
  return {
    messages: t.messages.map((m) => ({
      key: m.id,
      stepId: m.id,
      start: m.at,
      text: `Message from ${m.from} to ${m.to} at ${utcTime(m.at)}`,
      kind: "message",
      colour: "bg-teal-600 dark:bg-teal-400",
    })),
    wakes: t.wakes.map((w) => ({ key: w.id, stepId: w.id, start: w.at, text: `${wakeText(w)} at ${utcTime(w.at)}`, kind: w.cause, colour: WAKE_COLOUR[w.cause] ?? "bg-stone-500 dark:bg-stone-400" })),
    runs: t.runs.flatMap((r) => {
      const start = r.start ?? r.end;
      if (start === null) return [];
      const end = r.end ?? Math.max(now, start);
      const from = r.start === null ? `began before this window, ended ${utcTime(end)}` : `${utcTime(start)}–${r.end === null ? "now" : utcTime(end)}, ${duration(end - start)}`;
      return [{ key: r.id, stepId: r.id, start, end, text: `${runText(r)} (${from})`, kind: r.outcome, colour: RUN_COLOUR[r.outcome] ?? "bg-indigo-500 dark:bg-indigo-400" }];
    }),
    idle: t.idle.map((i) => ({
      key: `idle-${i.endedBy}`,
      stepId: i.endedBy,
      start: i.start,
      end: i.end,
      text: `Idle ${duration(i.end - i.start)} (${utcTime(i.start)}–${utcTime(i.end)}): no run, no wake`,
      kind: "idle",
      colour: "bg-stone-300 dark:bg-stone-700",
    })),
  };
}

/** Marks that touch [from, to], newest MAX_MARKS kept. */
export function inWindow(marks: readonly Mark[], from: number, to: number): { shown: Mark[]; hidden: number } {
  const touching = marks.filter((m) => (m.end ?? m.start) >= from && m.start <= to);
  const hidden = Math.max(0, touching.length - MAX_MARKS);
  return { shown: hidden ? touching.slice(-MAX_MARKS) : touching, hidden };
}
