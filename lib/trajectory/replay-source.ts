// A replay over any StepSource (a local mind, an imported archive, a shared
// link): the trajectory as it stood at a cursor. Its `watch` hands the viewer
// each step as the cursor passes it, so the viewer follows a replay as it
// follows a live mind. Moving the cursor back cannot un-append what the viewer
// holds, so it makes a new source (a new identity: the viewer reloads).
import { InvalidLine } from "./headlong";
import type { StepSource, TrajectoryRow } from "./source";
import type { IndexEntry } from "./rows";
import type { Step } from "./schema";
import { TIMELINE_KINDS } from "./timeline";
import { clampShown } from "./replay-cursor";

export interface ReplayLoad {
  traj: string;
  trajectories: TrajectoryRow[];
  /** Every entry of the replayed trajectory, oldest first. */
  entries: IndexEntry[];
}

/** The trajectory a replay follows: the root (as the viewer picks it), else the source's own. */
export function rootOf(trajs: readonly TrajectoryRow[], fallback?: string): string | undefined {
  return trajs.find((t) => !t.parent_traj || !trajs.some((p) => p.traj_id === t.parent_traj))?.traj_id ?? fallback;
}

/** Every entry of the root trajectory, read once (the newest, then everything before it). */
export async function loadReplay(inner: StepSource, signal?: AbortSignal): Promise<ReplayLoad> {
  const trajectories = await inner.trajectories();
  const traj = rootOf(trajectories, inner.root);
  if (!traj) throw new Error("This trajectory has no steps to replay.");
  return { traj, trajectories, entries: await readAll(inner, traj, signal) };
}

const BODY_CHUNK = 500;

/** The full steps the timeline draws (its kinds only, valid steps only: an invalid line says nothing of a wake or run), oldest first, with their seqs. */
export async function loadTimelineSteps(inner: StepSource, entries: readonly IndexEntry[], signal?: AbortSignal): Promise<{ seq: number; step: Step }[]> {
  const seqs = entries.filter((e) => TIMELINE_KINDS.has(e.type) && e.invalid === undefined).map((e) => e.seq);
  const out: { seq: number; step: Step }[] = [];
  for (let i = 0; i < seqs.length; i += BODY_CHUNK) {
    signal?.throwIfAborted();
    const chunk = seqs.slice(i, i + BODY_CHUNK);
    const bodies = await inner.bodies(chunk);
    for (const seq of chunk) {
      const step = bodies.get(seq);
      if (step && !(step instanceof InvalidLine)) out.push({ seq, step });
    }
  }
  return out;
}

type Listener = { traj: string; last: number; onEntries: (entries: IndexEntry[]) => void };

/** The cursor and the sources it hands out. */
export class ReplayCursor {
  private count: number;
  private listeners = new Set<Listener>();
  private current: StepSource;
  /** Other trajectories (forks) are cut at the cursor's time; their entries are read when first shown. */
  private others = new Map<string, Promise<IndexEntry[]>>();

  constructor(
    private readonly inner: StepSource,
    private readonly load: ReplayLoad,
    shown = 0,
  ) {
    this.count = clampShown(shown, load.entries.length);
    this.current = this.makeSource();
  }

  get shown(): number {
    return this.count;
  }

  get total(): number {
    return this.load.entries.length;
  }

  /** The source to give the viewer now (a new one after the cursor moved back). */
  get source(): StepSource {
    return this.current;
  }

  /** Move the cursor; returns true when the source changed (the cursor moved back). */
  moveTo(shown: number): boolean {
    const next = clampShown(shown, this.total);
    if (next === this.count) return false;
    const back = next < this.count;
    this.count = next;
    if (back) {
      this.listeners.clear();
      this.current = this.makeSource();
      return true;
    }
    for (const l of this.listeners) void this.emit(l);
    return false;
  }

  private cutoffMs(): number {
    const last = this.load.entries[this.count - 1];
    return last ? Date.parse(last.ts) : -Infinity;
  }

  private async visible(traj: string): Promise<IndexEntry[]> {
    if (traj === this.load.traj) return this.load.entries.slice(0, this.count);
    let all = this.others.get(traj);
    if (!all) {
      all = readAll(this.inner, traj);
      this.others.set(traj, all);
    }
    const cutoff = this.cutoffMs();
    return (await all).filter((e) => Date.parse(e.ts) <= cutoff);
  }

  private async emit(l: Listener): Promise<void> {
    const fresh = (await this.visible(l.traj)).filter((e) => e.seq > l.last);
    if (!fresh.length || !this.listeners.has(l)) return;
    l.last = fresh[fresh.length - 1]?.seq ?? l.last;
    l.onEntries(fresh);
  }

  private makeSource(): StepSource {
    const inner = this.inner;
    const listeners = this.listeners;
    const primary = this.load.traj;
    return {
      root: inner.root,
      trajectories: async () => this.load.trajectories,
      blob: (traj, ref) => inner.blob(traj, ref),
      bodies: (seqs) => inner.bodies(seqs),
      locate: (id) => inner.locate(id),
      newest: async (traj, n) => {
        const v = await this.visible(traj);
        return v.slice(Math.max(0, v.length - n));
      },
      older: async (traj, beforeSeq, onPage) => {
        const v = (await this.visible(traj)).filter((e) => e.seq < beforeSeq);
        if (v.length) onPage(v);
      },
      search: async (query, opts) => {
        const cut = this.load.entries[this.count - 1]?.seq ?? -1;
        const r = await inner.search(query, opts);
        return { ...r, hits: r.hits.filter((h) => h.traj !== primary || h.seq <= cut) };
      },
      watch: (traj, afterSeq, onEntries) => {
        const l: Listener = { traj, last: afterSeq, onEntries };
        listeners.add(l);
        // Steps the cursor passed while the viewer was reading the newest ones.
        void this.emit(l);
        return () => void listeners.delete(l);
      },
    };
  }
}

async function readAll(inner: StepSource, traj: string, signal?: AbortSignal): Promise<IndexEntry[]> {
  const newest = await inner.newest(traj, 1);
  const last = newest[newest.length - 1];
  const older: IndexEntry[] = [];
  if (last) await inner.older(traj, last.seq, (page) => older.push(...page), signal);
  return [...older, ...newest];
}
