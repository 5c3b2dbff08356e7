// What the viewer shows, as a flat list of rows (so it can be virtualized):
// steps in order, each run's steps gathered under its `shellm-run` header (by
// run_id, never by position), collapsed runs reduced to their header, and
// long stretches of idle markers folded into one row. A line kept as invalid
// is a row of its own kind, marked as invalid: placed by its run_id like any
// step, but never folded away, never a run's end, never its work. Pure.
import { InvalidLine, type StepLine } from "./headlong";
import { WORK_KINDS } from "./schema";
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
  /** Up to ~160 characters of its text (an invalid line's: its JSON), on one line. */
  preview: string;
  /** Set for a line kept as invalid: why it is not a valid step of its kind. */
  invalid?: string;
}

const PREVIEW = 160;

export function entryOf(seq: number, line: StepLine): IndexEntry {
  const invalid = line instanceof InvalidLine;
  const text = (invalid ? line.raw : stepText(line)).replace(/\s+/g, " ").trim();
  return {
    seq,
    id: line.step_id,
    type: line.type,
    ts: line.ts,
    run: line.run_id,
    trigger: line.trigger_step,
    source: line.source,
    preview: text.length > PREVIEW ? `${text.slice(0, PREVIEW - 1)}…` : text,
    ...(invalid ? { invalid: line.error } : {}),
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

/** A run's header row (what ended it, whether it did work) and, when it is open, its shown steps. */
function pushRun(out: DisplayRow[], header: IndexEntry, steps: readonly IndexEntry[], shown: IndexEntry[], opts: RowOptions): void {
  const end = steps.findLast((s) => s.invalid === undefined && (s.type === "final" || s.type === "error" || s.type === "thought"));
  const collapsed = opts.collapsedRuns.has(header.id);
  const run: RunInfo = {
    runId: header.id,
    count: steps.length,
    collapsed,
    end,
    didWork: steps.some((s) => s.invalid === undefined && WORK_KINDS.has(s.type)),
    hidden: collapsed ? shown : [],
  };
  out.push({ kind: "step", key: header.id, entry: header, inRun: false, run });
  if (!collapsed) for (const s of shown) out.push({ kind: "step", key: s.id, entry: s, inRun: true });
}

/** The rows of all of `entries` in one pass (what extendRows must always equal). */
export function buildRows(entries: readonly IndexEntry[], opts: RowOptions): readonly DisplayRow[] {
  return rowsFrom(null, entries, opts).rows;
}

/** The row index showing step `id` (a folded or collapsed step shows at its fold or header). */
export function rowIndexOf(rows: readonly DisplayRow[], id: string): number {
  return rows.findIndex((r) => (r.kind === "step" ? r.entry.id === id || !!r.run?.hidden.some((e) => e.id === id) : r.entries.some((e) => e.id === id)));
}

// ---- the same rows, extended as a live trajectory grows ---------------------

/**
 * How often a live stream's new steps are read (lib/store/view/view.ts) and shown
 * (components/viewer/useTrajectoryIndex.ts), at most. Four times a second:
 * each update is a React commit and a frame (style, layout, paint), and at
 * ten a second, with the status and streamed text besides, a page following
 * a mind on an instant model kept its main thread ~75% busy on the cores the
 * mind thinks on.
 */
export const LIVE_MS = 250;

// A live mind's stream takes in a batch of new steps every LIVE_MS; rebuilding
// every row of a 10,000-step stream for each batch cost the page's main thread
// more than the new steps themselves. `extendRows` keeps the rows of the entries it has seen
// and redoes only the part the new entries can change: from the last point
// where no idle markers were pending, or, when a step joins an earlier run,
// from that run's header. It equals `buildRows` of the whole, always; a change
// it cannot take in that way (other options, entries not appended, a header
// arriving after steps of its run were shown loose) rebuilds from scratch.

/** Where the row pass may start again: entry index `at`, with `rows` rows before it and no idle markers pending. */
interface Resume {
  at: number;
  rows: number;
}

/** The rows of some entries, and what `extendRows` needs to take in more. Treat as opaque. */
export interface RowBuild {
  readonly rows: readonly DisplayRow[];
  readonly opts: RowOptions;
  /** How many entries, and the first and last of them (to tell an append from other changes). */
  readonly n: number;
  readonly first: IndexEntry | undefined;
  readonly last: IndexEntry | undefined;
  /** Append-only and shared by the builds extended from one another. */
  readonly shared: {
    headers: Set<string>;
    members: Map<string, IndexEntry[]>;
    /** Runs of steps shown loose, their header not (yet) in the log. */
    loose: Set<string>;
    /** Where to start again to redo a run's header and steps. */
    runResume: Map<string, Resume>;
  };
  /** Where to start again to take in new top-level steps. */
  readonly tail: Resume;
}

const sameOptions = (a: RowOptions, b: RowOptions) =>
  a.collapsedRuns === b.collapsedRuns && a.openFolds === b.openFolds && a.types === b.types && (a.foldFrom ?? 4) === (b.foldFrom ?? 4);

/** The rows of `entries`, reusing `prev` (the rows of a prefix of them, built with the same options) where they cannot have changed. */
export function extendRows(prev: RowBuild | null, entries: readonly IndexEntry[], opts: RowOptions): RowBuild {
  const n = prev?.n ?? 0;
  const appended = prev !== null && sameOptions(prev.opts, opts) && entries.length >= n && (n === 0 || (entries[0] === prev.first && entries[n - 1] === prev.last));
  if (!appended) return rowsFrom(null, entries, opts);
  if (entries.length === n) return prev;
  const { headers, members, loose, runResume } = prev.shared;
  const fresh = entries.slice(n);
  // Steps shown loose earlier would now go under this header: their rows before it change.
  if (fresh.some((e) => e.type === "shellm-run" && loose.has(e.id))) return rowsFrom(null, entries, opts);
  for (const e of fresh) if (e.type === "shellm-run") headers.add(e.id);
  let resume = prev.tail;
  for (const e of fresh) {
    if (e.type === "shellm-run" || !e.run) continue;
    if (!headers.has(e.run)) {
      loose.add(e.run);
      continue;
    }
    let list = members.get(e.run);
    if (!list) members.set(e.run, (list = []));
    // Guarded so that extending the same build twice (React may call a memo twice) adds a step once.
    if ((list[list.length - 1]?.seq ?? -Infinity) < e.seq) list.push(e);
    const at = runResume.get(e.run);
    if (at && at.at < resume.at) resume = at;
  }
  return rowsFrom({ prev, resume }, entries, opts);
}

/** The row pass, from a resume point of `from.prev` (or from the start, with fresh state: buildRows). */
function rowsFrom(from: { prev: RowBuild; resume: Resume } | null, entries: readonly IndexEntry[], opts: RowOptions): RowBuild {
  let shared: RowBuild["shared"];
  if (from) shared = from.prev.shared;
  else {
    shared = { headers: new Set(), members: new Map(), loose: new Set(), runResume: new Map() };
    // Only runs whose header is in the log are gathered: a log without run links
    // is shown as a plain stream, never regrouped by guessing.
    for (const e of entries) if (e.type === "shellm-run") shared.headers.add(e.id);
    for (const e of entries) {
      if (e.type === "shellm-run" || !e.run) continue;
      if (!shared.headers.has(e.run)) {
        shared.loose.add(e.run);
        continue;
      }
      let list = shared.members.get(e.run);
      if (!list) shared.members.set(e.run, (list = []));
      list.push(e);
    }
  }
  const { members, runResume } = shared;
  const keep = (e: IndexEntry) => !opts.types || opts.types.has(e.type);
  const start = from?.resume ?? { at: 0, rows: 0 };
  const out = from ? from.prev.rows.slice(0, start.rows) : [];
  const foldFrom = opts.foldFrom ?? 4;
  let idle: IndexEntry[] = [];
  let tail = start;
  const flushIdle = () => {
    if (idle.length >= foldFrom && !opts.openFolds.has(idle[0]?.id ?? "")) {
      out.push({ kind: "fold", key: `fold-${idle[0]?.id}`, entries: idle, expanded: false });
    } else {
      for (const e of idle) out.push({ kind: "step", key: e.id, entry: e, inRun: false });
    }
    idle = [];
  };

  for (const [k, e] of entries.slice(start.at).entries()) {
    const i = start.at + k;
    if (idle.length === 0 && tail.at !== i) tail = { at: i, rows: out.length };
    if (e.run && members.has(e.run) && e.type !== "shellm-run") continue; // shown under its header
    if (e.type === "shellm-run") {
      runResume.set(e.id, tail);
      const steps = members.get(e.id) ?? [];
      const shown = steps.filter(keep);
      if (!keep(e) && shown.length === 0) continue;
      flushIdle();
      pushRun(out, e, steps, shown, opts);
      continue;
    }
    if (!keep(e)) continue;
    // An invalid line is never folded away: it is shown, as what it is.
    if (IDLE_MARKERS.has(e.type) && e.invalid === undefined) {
      idle.push(e);
      continue;
    }
    flushIdle();
    out.push({ kind: "step", key: e.id, entry: e, inRun: false });
  }
  if (idle.length === 0 && tail.at !== entries.length) tail = { at: entries.length, rows: out.length };
  flushIdle();
  return { rows: out, opts, n: entries.length, first: entries[0], last: entries[entries.length - 1], shared, tail };
}
