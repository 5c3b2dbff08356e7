// The Context tab's list of runs, from the timeline's reading of the steps:
// newest first, each with when it began, what woke it and how many steps
// (model calls, what Settings' "steps per run" limits) it took. Pure.
import { runText, wakeText, type Timeline } from "@/lib/trajectory/timeline";

export interface RunItem {
  id: string;
  /** When it began (or, when its header is not among the steps read, when it ended); null when neither is known. */
  at: number | null;
  /** What woke it, in a line. */
  woke: string;
  /** Its model calls. */
  steps: number;
  /** How it ended, in a line. */
  outcome: string;
}

export function runItems(timeline: Timeline): RunItem[] {
  const wakes = new Map(timeline.wakes.map((w) => [w.id, w]));
  const items = timeline.runs.map((r): RunItem => {
    const wake = r.wake ? wakes.get(r.wake) : undefined;
    const woke = wake ? wakeText(wake) : r.launchedBy === "shellm" ? "Launched by shellm from another run" : "Its wake is not recorded";
    return { id: r.id, at: r.start ?? r.end, woke, steps: r.calls.length, outcome: runText(r) };
  });
  // Newest first; the timeline lists runs in the order it met them, which is the order to keep for equal times.
  return items.map((item, i) => ({ item, i })).sort((a, b) => (b.item.at ?? -Infinity) - (a.item.at ?? -Infinity) || b.i - a.i).map((x) => x.item);
}
