// The one port for a running mind's state: everything the mind reads and
// writes, for each of its homes (IndexedDB in the tab, SQL on the server, in
// memory for tests and the command line). A home implements this and nothing
// else; lib/mind builds its logs, its caches and its write queue over it.
//
// Shape for any store: async, batched (one `append` is one transaction), and
// seq-ordered (steps get a seq per mind in the order they are appended, which
// the sealed past and a watch read by). No store's types cross it.
import * as z from "zod";
import type { SealedTier, StreamKey } from "../../context/sealed-past";
import type { SeenCall } from "../../context/replay";
import type { Step } from "../../trajectory/schema";
import type { InboundPort } from "./inbound";

/** The shell's variables and directory, carried between blocks and across reloads (just-bash resets them on every exec). */
export const ShellState = z.object({ env: z.record(z.string(), z.string()), cwd: z.string() });
export type ShellState = z.infer<typeof ShellState>;

/** Did a block change the shell's variables or directory? (Key by key: what the host saves, it saves only when this says so.) */
export function shellChanged(before: ShellState, after: ShellState): boolean {
  if (before.cwd !== after.cwd) return true;
  const a = Object.keys(before.env);
  if (a.length !== Object.keys(after.env).length) return true;
  return a.some((k) => before.env[k] !== after.env[k]);
}

/**
 * Where the inner life's pacing stands between wakes (lib/mind/pacing/pacing.ts):
 * its idle level and ticks, and the model failures in a row. Kept by each
 * home so a mind that moves (tab ↔ server) or restarts goes on at the same
 * pace instead of from rested.
 */
export const PacingSnapshot = z.object({ level: z.number().int().min(0), ticks: z.number().int().min(0), failures: z.number().int().min(0) });
export type PacingSnapshot = z.infer<typeof PacingSnapshot>;

/** One entry of the workspace (the sandbox's persistent filesystem), as stored. */
export const FileRecord = z.object({
  path: z.string().startsWith("/"),
  kind: z.enum(["file", "dir", "symlink"]),
  data: z.custom<Uint8Array>((v) => v instanceof Uint8Array, "bytes").optional(),
  target: z.string().optional(),
  mode: z.number(),
  mtime: z.number(),
});
export type FileRecord = z.infer<typeof FileRecord>;

/** The workspace's files: read whole when the shell opens, saved by what changed after each block. */
export interface FileStore {
  loadAll(): Promise<FileRecord[]>;
  save(put: FileRecord[], remove: string[]): Promise<void>;
}

/** A mind's workspace as its state keeps it: the files, and a folder of them read alone. */
export interface WorkspaceStore extends FileStore {
  /** The rows at `dir` (an absolute workspace path) and under it, read without the rest (a text or a skill before the workspace is open). */
  loadUnder(dir: string): Promise<FileRecord[]>;
}

/** A step with the trajectory of the mind it belongs to (its root, or a forked child). */
export interface TrajStep {
  trajId: string;
  step: Step;
}

/** A step with its seq in the mind's one order. */
export interface SeqStep {
  seq: number;
  step: Step;
}

/**
 * One write: steps in the order they were appended, and what the model calls
 * behind them saw (each record for a step of this write or of an earlier one).
 * The store derives each step's usage row itself, so a cap counts a call from
 * the moment its step is stored.
 */
export interface StateBatch {
  steps: readonly TrajStep[];
  seen: readonly SeenCall[];
}

/** A model call's cost, by when it was made. */
export interface SpendEntry {
  ts: number;
  usd: number;
}

/** Sealed summaries stored beside one trajectory, and the keys-only index of its stream. */
export interface TierStorePort {
  /** Every summary sealed for this trajectory. */
  list(): Promise<SealedTier[]>;
  /** Store a summary once. A block that has one already is refused ("already-sealed"): sealed summaries are never rewritten. */
  seal(tier: SealedTier & { model?: string; created?: string }): Promise<"sealed" | "already-sealed">;
  /** The index's entries after `seq`, in seq order: type and id of each step, without reading its row. */
  keysAfter(seq: number): Promise<StreamKey[]>;
  /** The trajectory's steps with seq in [first, last], oldest first. */
  steps(first: number, last: number): Promise<Step[]>;
}

/** A step refused by the store (it does not match its kind's schema): the steps before it in the same write were stored, with their rows. */
export class InvalidStepError extends Error {
  constructor(
    message: string,
    /** Steps of the same write that were stored before the refused one. */
    readonly stored = 0,
  ) {
    super(message);
  }
}

/** A mind's record as it starts: its human's settings, the shell's variables and directory and the pacing as last kept (undefined: never kept). */
export interface MindRecord<Settings> {
  settings: Settings;
  shell: ShellState | undefined;
  /** The pacing as last kept (undefined: never kept, or damaged: the mind starts rested). */
  pacing?: PacingSnapshot;
}

/**
 * Everything a running mind keeps. `Settings` is the home's record of the
 * mind (its human's choices: persona, model, caps, permissions), read once
 * when the mind starts.
 */
export interface MindState<Settings = unknown> {
  readonly mindId: string;

  /**
   * Store a batch in one transaction: the steps (each checked against its
   * kind's schema), their usage rows, and the context records. An invalid
   * step is refused with the steps after it (InvalidStepError); the ones
   * before it are stored with their rows. Any other failure stores nothing.
   */
  append(batch: StateBatch): Promise<void>;
  /** The newest `n` steps of a trajectory, oldest first. */
  tail(trajId: string, n: number): Promise<Step[]>;
  count(trajId: string): Promise<number>;
  /** Steps of any of the mind's trajectories whose id is or starts with `idOrPrefix` (at most `limit`). */
  find(idOrPrefix: string, limit: number): Promise<TrajStep[]>;
  /** Steps of one trajectory whose text contains `text` (case-insensitive), newest first. */
  search(trajId: string, text: string, limit: number): Promise<Step[]>;
  /**
   * Steps of one trajectory whose type is one of `kinds`, oldest first: those
   * after seq `afterSeq` (0: from the first), at most `limit`, each with its
   * seq (the next page starts after the last one's). For rare kinds read
   * whole however long ago they were written (alarms), so by an index, not the tail.
   */
  ofKind(trajId: string, kinds: readonly string[], limit: number, afterSeq?: number): Promise<SeqStep[]>;
  /** Register a child trajectory forked from `parentTrajId` (its steps are appended like any other). */
  fork(parentTrajId: string, child: { trajId: string; name: string }): Promise<void>;

  /** Store a large output once; `name` is the file name under the trajectory's `blobs/`. */
  putBlob(trajId: string, name: string, text: string): Promise<void>;
  /** A large output by its ref (`blobs/<name>`) in a trajectory of the mind. */
  blob(trajId: string, ref: string): Promise<string | undefined>;

  /** A trajectory's sealed summaries and stream index. */
  tiers(trajId: string): TierStorePort;
  /** The cost of every model call from `sinceMs` on (the caps read it). */
  spendSince(sinceMs: number): Promise<SpendEntry[]>;

  /** The workspace. */
  readonly files: WorkspaceStore;
  /**
   * What others bring the mind (the inbound side, ./inbound.ts): every step
   * stored for it that this state's own `append` did not write, and the
   * changes asked of it, each given once to the running mind.
   */
  readonly inbound: InboundPort;
  /** What the mind starts from, in one read: undefined when the home holds no record of it (or only a damaged one). */
  record(): Promise<MindRecord<Settings> | undefined>;
  /** Keep the shell's variables and directory for the next start. */
  saveShellState(state: ShellState): Promise<void>;
  /** Keep the pacing for the next start (or the other home). */
  savePacing(pacing: PacingSnapshot): Promise<void>;
}
