// The browser database. The only module (with its siblings in lib/store) that
// touches IndexedDB. Everything read back is parsed by the callers' schemas.
import Dexie, { type DexieOptions, type EntityTable } from "dexie";
import type { SeenCall } from "../../context/replay";
import type { FileRecord } from "../../shell/persistent-fs";
import { freshKeys } from "./fresh-keys";
import type { TrajectoryRow } from "../../trajectory/source";

/** A mind (live) or an imported archive (read-only): the owner of steps. */
export interface MindRow {
  id: string;
  json: unknown;
}

export interface StepRow {
  seq?: number;
  step_id: string;
  mind_id: string;
  /** The trajectory the step belongs to: the mind's own (id = mind id) or a forked child. */
  traj_id: string;
  type: string;
  /** The step exactly as written, so export gives back the same bytes. */
  json: string;
}

export interface BlobRow {
  mind_id: string;
  name: string;
  text: string;
}

/** A workspace file of a mind: the sandbox's record (lib/shell/persistent-fs.ts), keyed by its mind. */
export interface FileRow extends FileRecord {
  mind_id: string;
}

/**
 * Imported steps, a page of lines per row. IndexedDB costs about as much per
 * record as per kilobyte, so a 100,000-step archive is a few hundred rows, not
 * 100,000 (import throughput went from ~3,500 to ~70,000 steps/s in Chromium).
 * Imported trajectories are read-only, so pages are never rewritten.
 */
export interface PageRow {
  mind_id: string;
  traj_id: string;
  /** Page number within its trajectory, from 0. */
  page: number;
  /** The owner-wide sequence number of the first line (steps of all trajectories share one sequence). */
  first: number;
  /** The lines exactly as they were in the file, joined by "\n". */
  lines: string;
  /** The step ids of the lines, joined by ",", for deep links. */
  ids: string;
}

/** A step a page hands a running mind, waiting for its one writer to take it (lib/store/steps/door.ts). */
export interface DoorRow {
  mind_id: string;
  /** The step's id: taken once. */
  id: string;
  /** When it was handed in (ms): the order it is taken in. */
  at: number;
  json: string;
}

/**
 * A step a pull set aside (lib/store/sync/pull.ts): written under a lease this
 * browser no longer held, past where the server went on without it. Its row
 * stays where it is, byte for byte, and no reader reads it from then on
 * (lib/store/steps/aside.ts); a copy of it, under a new id, was appended to
 * the trajectory the pull set it aside in. Written once, never changed.
 */
export interface AsideRow {
  mind_id: string;
  /** The set-aside row's seq (and, with mind_id, this row's key). */
  seq: number;
  /** Its step id and the trajectory it was in. */
  step_id: string;
  from_traj: string;
  /** Where it reads now: its copy's trajectory and id. */
  traj_id: string;
  copy_id: string;
}

export interface SettingRow {
  key: string;
  value: unknown;
}

/**
 * A sealed summary of one block of a trajectory's filtered stream, numbered as
 * lib/context/staircase.ts numbers them (tier 0: F steps, tier k: F blocks of
 * tier k-1) and shaped as a line of tiers.jsonl plus its owner. Derived data
 * beside the log: written once (add, never put), never rewritten, rebuildable
 * from the steps it cites. lib/store/derived/tiers.ts reads and writes it.
 */
export interface TierRow {
  mind_id: string;
  traj_id: string;
  tier: number;
  index: number;
  content: string;
  cites: string[];
  first_step: string;
  last_step: string;
  /** Stream steps the block covers (F^(tier+1)). */
  steps: number;
  /**
   * This database's seqs of first_step and last_step: a starting mind places
   * its sealed past from them without reading every position (SealedPast.seed).
   * Absent from rows sealed before they were kept; not exported (another database numbers anew).
   */
  first_seq?: number;
  last_seq?: number;
  /** The model that wrote it (provider/model), and when (ISO 8601). */
  model?: string;
  created?: string;
}

/**
 * What one model call was shown, keyed by the step the call produced: enough
 * to rebuild its exact messages (lib/context/replay.ts). The instructions'
 * text is kept once, in `settings` under `seen-text:<sha-256 hex>`; the parts
 * are parsed when read. Most rows are a delta against their run's previous
 * one, `base` (lib/store/derived/seen-delta.ts), and store no instructions when they
 * are the base's; rows without `base` stand alone (as every older row does).
 */
export type ContextRow = Omit<SeenCall, "system" | "parts"> & {
  mind_id: string;
  base?: string;
  system?: { kind: string; hash: string; tokens: number }[];
  parts: unknown[];
};

/** One model call's tokens and cost, keyed by the step that carries its usage. */
export interface UsageRow {
  mind_id: string;
  step_id: string;
  /** Milliseconds since the epoch, for spend per hour and per day. */
  ts: number;
  usd: number;
  /** The trajectory the step is in (the mind's own, or a nested run's child). */
  traj_id?: string;
  /** provider/model, as the run header names it. */
  model?: string;
  input_tokens?: number;
  cached_input_tokens?: number;
  output_tokens?: number;
  reasoning_tokens?: number;
  [extra: string]: unknown;
}

export class ReverieDb extends Dexie {
  minds!: EntityTable<MindRow, "id">;
  steps!: EntityTable<StepRow, "seq">;
  blobs!: Dexie.Table<BlobRow, [string, string]>;
  trajectories!: Dexie.Table<TrajectoryRow, [string, string]>;
  pages!: Dexie.Table<PageRow, [string, string, number]>;
  files!: Dexie.Table<FileRow, [string, string]>;
  settings!: EntityTable<SettingRow, "key">;
  tiers!: Dexie.Table<TierRow, [string, string, number, number]>;
  contexts!: Dexie.Table<ContextRow, [string, string]>;
  usage!: Dexie.Table<UsageRow, [string, string]>;
  door!: Dexie.Table<DoorRow, [string, string]>;
  asides!: Dexie.Table<AsideRow, [string, number]>;

  constructor(name = "reverie", options?: DexieOptions) {
    super(name, options);
    this.version(1).stores({
      minds: "id",
      // seq orders an owner's steps as they were appended. step_id is unique
      // within an owner (a mind, or an imported archive); the same archive
      // imported twice is two owners.
      steps: "++seq, &[mind_id+step_id], [mind_id+seq], [mind_id+traj_id+seq]",
      blobs: "[mind_id+name]",
      trajectories: "[mind_id+traj_id], mind_id",
      pages: "[mind_id+traj_id+page], [mind_id+first]",
      files: "[mind_id+path], mind_id",
      settings: "key",
    });
    // Derived data beside the log (tiers, what each call saw, usage), and a
    // keys-only way to the filtered stream's positions: a cursor over
    // [mind_id+traj_id+seq+type+step_id] yields type and id without reading rows.
    this.version(2).stores({
      steps: "++seq, &[mind_id+step_id], [mind_id+seq], [mind_id+traj_id+seq], [mind_id+traj_id+seq+type+step_id]",
      tiers: "[mind_id+traj_id+tier+index], [mind_id+traj_id]",
      contexts: "[mind_id+step_id], [mind_id+run_id]",
      usage: "[mind_id+step_id], [mind_id+ts]",
    });
    // Steps of a kind, oldest first, however far back (a mind's alarms, set
    // 100,000 steps ago): [mind_id+traj_id+type+seq] reads them without a scan.
    this.version(3).stores({
      steps: "++seq, &[mind_id+step_id], [mind_id+seq], [mind_id+traj_id+seq], [mind_id+traj_id+seq+type+step_id], [mind_id+traj_id+type+seq]",
    });
    // The door: steps the pages hand a running mind, for its one writer to take (so its trajectory reads in time order).
    this.version(4).stores({
      door: "[mind_id+id], [mind_id+at]",
    });
    // A trajectory's steps in order are read through the keys-only index, whose first three keys are the same:
    // [mind_id+traj_id+seq] is Dexie's virtual index of it (a query on it is recorded as one on the real index).
    // One index fewer for every step a mind writes (IndexedDB's writes were ~1.5 ms of each model call, bench/mind).
    this.version(5).stores({
      steps: "++seq, &[mind_id+step_id], [mind_id+seq], [mind_id+traj_id+seq+type+step_id], [mind_id+traj_id+type+seq]",
    });
    // Steps a pull set aside, by the seq of the row left in place (the log is never rewritten: ../steps/aside.ts).
    this.version(6).stores({
      asides: "[mind_id+seq]",
    });
    // Those virtual-index queries' bounds, as IndexedDB takes them (./fresh-keys.ts).
    this.use(freshKeys);
  }
}

let shared: ReverieDb | null = null;

/** The app's database (one per JS context: page or worker). */
export function db(): ReverieDb {
  shared ??= new ReverieDb();
  return shared;
}

/** Ask the browser not to evict this origin's data under storage pressure. */
export async function requestPersistence(): Promise<boolean> {
  try {
    return (await navigator.storage?.persist?.()) ?? false;
  } catch {
    return false;
  }
}
