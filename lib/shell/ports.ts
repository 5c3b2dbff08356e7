// The ports the agent's commands may be given. Each command declares the few
// it needs (see commands/command.ts); the sandbox's owner wires real ones.
import type { Step } from "../trajectory/schema";

/** Read-only view of the mind's trajectory, scoped to the trajectory the shell runs in. */
export interface TrajPort {
  /** The newest `n` steps of this trajectory, oldest first. */
  tail(n: number): Promise<Step[]>;
  count(): Promise<number>;
  /** Steps of any of the mind's trajectories whose id is or starts with `idOrPrefix`. */
  find(idOrPrefix: string, limit: number): Promise<Step[]>;
  /** Steps of this trajectory whose text contains `text` (case-insensitive), newest first. */
  search(text: string, limit: number): Promise<Step[]>;
  /** The whole text of a large output, by its `stdout_ref`/`stderr_ref`. */
  blob(ref: string): Promise<string | undefined>;
}

/** Messages the mind sends, appended to the trajectory inside the current run. */
export interface ChatPort {
  readonly selfName: string;
  send(m: { to: string; content: string; replyTo?: string }): Promise<Step>;
}

export interface ClockPort {
  now(): number;
}

export interface IdsPort {
  uuid(): string;
}

export type FetchTextResult = { ok: true; status: number; text: string } | { ok: false; error: string };

/** The network, as the mind's permissions allow it (a denied URL is an error result, never a request). */
export interface NetPort {
  fetchText(url: string, signal: AbortSignal): Promise<FetchTextResult>;
}

/** A sign of life from a long-running command (a nested run while its model thinks); resets the watchdog. */
export interface ActivityPort {
  beacon(): void;
}

export type NestedRunResult = { ok: true; answer: string; childId: string } | { ok: false; error: string; childId?: string };

/** `shellm`: a nested run in a forked child trajectory. */
export interface ShellmPort {
  run(task: string, opts: { signal: AbortSignal; beacon: () => void }): Promise<NestedRunResult>;
}

/** Where real Node runs (a WebContainer on the page), as the worker sees it. */
export type RuntimeStatus =
  | { state: "off" }
  | { state: "booting" }
  | { state: "ready" }
  | { state: "unavailable"; reason: string };

export interface SpawnRequest {
  command: string;
  args: string[];
  /** Absolute path inside the workspace. */
  cwd: string;
  env: Record<string, string>;
  /** Workspace files changed since the last spawn, to copy in first (path → bytes, or null for removed). */
  files: { path: string; data: Uint8Array | null }[];
}

export interface SpawnResult {
  output: string;
  exit: number;
  /** Files the process changed in the workspace, to copy back (null: removed). node_modules stays in the runtime. */
  files: { path: string; data: Uint8Array | null }[];
  /** Set when the process was ended by a limit or by a kill. */
  ended?: string;
}

export interface RuntimePort {
  status(): RuntimeStatus;
  spawn(req: SpawnRequest, signal: AbortSignal): Promise<SpawnResult>;
}
