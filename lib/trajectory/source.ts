// What a viewer reads a trajectory through, wherever its steps live (this
// browser's IndexedDB, or a server behind a shared link): the StepSource
// interface and the rows it hands out. Types only: lib/store and lib/share
// implement it, components read through it.
import type { StepLine } from "./headlong";
import type { IndexEntry } from "./rows";

/** One trajectory of an owner: its root, or a forked child. */
export interface TrajectoryRow {
  mind_id: string;
  traj_id: string;
  name: string;
  /** Where its blobs live: keys are `<dir>/blobs/<name>` ("" for a live mind's root). */
  dir: string;
  parent_traj?: string;
  parent_step?: string;
}

export interface SearchHit {
  seq: number;
  id: string;
  traj: string;
}

export interface SearchResult {
  hits: SearchHit[];
  truncated: boolean;
}

/**
 * Everything the viewer reads, from wherever the steps live: this browser's
 * IndexedDB (a live mind's rows, an imported archive's pages) or, for a
 * shared link, a server.
 */
export interface StepSource {
  /** The trajectory to show before the list of trajectories has loaded (a live mind's root). */
  readonly root?: string;
  /** The owner's trajectories: its root and every forked child. */
  trajectories(): Promise<TrajectoryRow[]>;
  /** The blob a step field points to (`blobs/<file>`), relative to its trajectory's folder. */
  blob(traj: TrajectoryRow | undefined, ref: string): Promise<string | undefined>;
  /** The newest `n` entries of a trajectory, oldest first. */
  newest(traj: string, n: number): Promise<IndexEntry[]>;
  /** Every entry before `seq`, oldest first, handed over a page at a time. */
  older(traj: string, beforeSeq: number, onPage: (entries: IndexEntry[]) => void, signal?: AbortSignal): Promise<void>;
  /** Whole lines by seq: a valid step, or a line kept as invalid (shown as such). */
  bodies(seqs: readonly number[]): Promise<Map<number, StepLine>>;
  /** Where a step lives (for deep links). */
  locate(stepId: string): Promise<{ seq: number; traj: string } | null>;
  /** Steps whose JSON, or whose blob, contains `query` (case-insensitive). */
  search(query: string, opts?: { signal?: AbortSignal; limit?: number }): Promise<SearchResult>;
  /**
   * For a trajectory that grows: call `onEntries` with every entry appended
   * after `afterSeq`, by any tab or worker. Returns the unsubscribe function.
   * Absent when the trajectory cannot grow (an imported archive, a snapshot).
   */
  watch?(traj: string, afterSeq: number, onEntries: (entries: IndexEntry[]) => void): () => void;
}
