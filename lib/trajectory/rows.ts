// What the viewer shows, as a flat list of rows (so it can be virtualized):
// steps in order, each run's steps gathered under its `shellm-run` header (by
// run_id, never by position), collapsed runs reduced to their header, and
// long stretches of idle markers folded into one row. Pure.
import { WORK_KINDS, type Step } from "./schema";
import { stepText } from "./summary";

/** The light, always-in-memory view of a step; its body is loaded on demand. */
export interface IndexEntry {
  seq: number;
  id: string;
  type: string;
  ts: string;
  run?: string;
  trigger?: string;
  source?: string;
  /** Up to ~160 characters of its text, on one line. */
  preview: string;
}

const PREVIEW = 160;

export function entryOf(seq: number, step: Step): IndexEntry {
  const text = stepText(step).replace(/\s+/g, " ").trim();
  return {
    seq,
    id: step.step_id,
    type: step.type,
    ts: step.ts,
    run: step.run_id,
    trigger: step.trigger_step,
    source: step.source,
    preview: text.length > PREVIEW ? `${text.slice(0, PREVIEW - 1)}…` : text,
  };
}

export interface RunInfo {
  runId: string;
  count: number;
  collapsed: boolean;
  end?: IndexEntry;
  didWork: boolean;
  /** The steps a collapsed header stands for (those the type filter keeps); empty when open. */
  hidden: IndexEntry[];
}

export type DisplayRow =
  | { kind: "step"; key: string; entry: IndexEntry; inRun: boolean; run?: RunInfo }
  | { kind: "fold"; key: string; entries: IndexEntry[]; expanded: false };

export interface RowOptions {
  /** Runs shown as their header only. */
  collapsedRuns: ReadonlySet<string>;
  /** Idle folds opened by the reader (keyed by their first step's id). */
  openFolds: ReadonlySet<string>;
  /** Only these types (null: all). A run is shown when any of its steps match. */
  types: ReadonlySet<string> | null;
  /** Consecutive idle markers folded from this many on. */
  foldFrom?: number;
}

const IDLE_MARKERS = new Set(["idle", "monolith-wake", "wake"]);

export function buildRows(entries: readonly IndexEntry[], opts: RowOptions): DisplayRow[] {
  const members = new Map<string, IndexEntry[]>();
  const headers = new Set<string>();
  // Only runs whose header is in the log are gathered: a log without run links
  // is shown as a plain stream, never regrouped by guessing.
  {
    for (const e of entries) if (e.type === "shellm-run") headers.add(e.id);
    for (const e of entries) {
      if (e.type === "shellm-run" || !e.run || !headers.has(e.run)) continue;
      let list = members.get(e.run);
      if (!list) members.set(e.run, (list = []));
      list.push(e);
    }
  }
  const keep = (e: IndexEntry) => !opts.types || opts.types.has(e.type);

  // Top level: steps not gathered into a run, in order; a header brings its run.
  const out: DisplayRow[] = [];
  let idle: IndexEntry[] = [];
  const foldFrom = opts.foldFrom ?? 4;
  const flushIdle = () => {
    if (idle.length >= foldFrom && !opts.openFolds.has(idle[0]?.id ?? "")) {
      out.push({ kind: "fold", key: `fold-${idle[0]?.id}`, entries: idle, expanded: false });
    } else {
      for (const e of idle) out.push({ kind: "step", key: e.id, entry: e, inRun: false });
    }
    idle = [];
  };

  for (const e of entries) {
    if (e.run && members.has(e.run) && e.type !== "shellm-run") continue; // shown under its header
    if (e.type === "shellm-run") {
      const steps = members.get(e.id) ?? [];
      const shown = steps.filter(keep);
      if (!keep(e) && shown.length === 0) continue;
      flushIdle();
      const end = [...steps].reverse().find((s) => s.type === "final" || s.type === "error" || s.type === "thought");
      const collapsed = opts.collapsedRuns.has(e.id);
      const run: RunInfo = {
        runId: e.id,
        count: steps.length,
        collapsed,
        end,
        didWork: steps.some((s) => WORK_KINDS.has(s.type)),
        hidden: collapsed ? shown : [],
      };
      out.push({ kind: "step", key: e.id, entry: e, inRun: false, run });
      if (!run.collapsed) for (const s of shown) out.push({ kind: "step", key: s.id, entry: s, inRun: true });
      continue;
    }
    if (!keep(e)) continue;
    if (IDLE_MARKERS.has(e.type)) {
      idle.push(e);
      continue;
    }
    flushIdle();
    out.push({ kind: "step", key: e.id, entry: e, inRun: false });
  }
  flushIdle();
  return out;
}

/** The row index showing step `id` (a folded or collapsed step shows at its fold or header). */
export function rowIndexOf(rows: readonly DisplayRow[], id: string): number {
  return rows.findIndex((r) => (r.kind === "step" ? r.entry.id === id || !!r.run?.hidden.some((e) => e.id === id) : r.entries.some((e) => e.id === id)));
}
