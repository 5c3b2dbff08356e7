// The ports the agent's commands may be given. Each command declares the few
// it needs (see commands/command.ts); the sandbox's owner wires real ones.
// The trajectory-facing ports are the mind's own (lib/mind/ports.ts), re-exported here.
export type { Alarm, AlarmPort, ChatPort, FoundStep, NestedRunResult, ShellmPort, TrajPort, WatcherPort, WatcherRun, WatcherStats } from "../mind/ports";

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
  /** Aborts when the block under way is stopped (the watchdog asks before the interpreter is aborted). */
  stopped?(): AbortSignal | undefined;
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
