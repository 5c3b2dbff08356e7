// The browser database. The only module (with its siblings in lib/store) that
// touches IndexedDB. Everything read back is parsed by the callers' schemas.
import Dexie, { type EntityTable } from "dexie";

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

export interface FileRow {
  mind_id: string;
  path: string;
  kind: "file" | "dir" | "symlink";
  data?: Uint8Array;
  target?: string;
  mode: number;
  mtime: number;
}

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

export interface SettingRow {
  key: string;
  value: unknown;
}

export class ReverieDb extends Dexie {
  minds!: EntityTable<MindRow, "id">;
  steps!: EntityTable<StepRow, "seq">;
  blobs!: Dexie.Table<BlobRow, [string, string]>;
  trajectories!: Dexie.Table<TrajectoryRow, [string, string]>;
  files!: Dexie.Table<FileRow, [string, string]>;
  settings!: EntityTable<SettingRow, "key">;

  constructor(name = "reverie") {
    super(name);
    this.version(1).stores({
      minds: "id",
      // seq orders an owner's steps as they were appended. step_id is unique
      // within an owner (a mind, or an imported archive); the same archive
      // imported twice is two owners.
      steps: "++seq, &[mind_id+step_id], [mind_id+seq], [mind_id+traj_id+seq]",
      blobs: "[mind_id+name]",
      trajectories: "[mind_id+traj_id], mind_id",
      files: "[mind_id+path], mind_id",
      settings: "key",
    });
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
