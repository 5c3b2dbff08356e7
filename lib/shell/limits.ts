// Every execution limit of the sandbox, in one place. The numbers a human can
// change are a mind's permissions (lib/trajectory/permissions.ts); this module
// derives the interpreter's own limits from them and holds the fixed ones.
import type { BashOptions } from "just-bash";
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "../trajectory/permissions";

type ExecutionLimits = NonNullable<BashOptions["executionLimits"]>;

export { DEFAULT_SANDBOX_LIMITS, type SandboxLimits };

export const FIXED_LIMITS = {
  /** After a stop is asked for, how long the script may take to end by itself (keeping its output) before it is aborted. */
  stopGraceMs: 2_000,
  /** Bash function recursion. */
  maxCallDepth: 100,
  /** Bytes a network response (curl, skills install) may have. */
  maxFetchBytes: 1024 * 1024,
  /**
   * Calls that change /workspace/self (the mind's own texts) in any 60 s
   * (issue 24): every change there becomes a `self-edit` step, so a flood must
   * fail in the shell instead of burying the trajectory. A redirect is two
   * calls (open, then write), so this is 15 `echo … > self/…` a minute.
   */
  selfWritesPerMinute: 30,
  /**
   * A watcher's run (self/watchers/NAME.sh, after each step it names; issue
   * 24, part 4): its wall time, the bytes of stdout (and of stderr) it keeps
   * (what it printed past them is cut, with a note), and the runs one
   * watcher may start in any 60 s (past them a step is passed over and
   * counted as skipped). Tight: a watcher runs beside the mind's own blocks,
   * after every step of its types, with nobody waiting for it.
   */
  watcherWallMs: 1_000,
  watcherOutputBytes: 16 * 1024,
  watcherRunsPerMinute: 30,
} as const;

/** The interpreter's own limits, derived from the mind's. */
export function justBashLimits(limits: SandboxLimits): ExecutionLimits {
  return {
    // The watchdog and wall clock are ours (they keep output); this is only a backstop.
    maxExecutionTimeMs: (limits.wall_s + 60) * 1000,
    maxCommandCount: limits.max_commands,
    maxLoopIterations: limits.max_commands,
    maxCallDepth: FIXED_LIMITS.maxCallDepth,
    // Let the interpreter produce a little more than we keep, so we can say it was cut.
    maxOutputSize: limits.max_output_bytes * 4,
    maxFileSystemBytes: limits.max_workspace_bytes,
  };
}

/** The WebContainer backend's limits (real Node on the page). */
export const WEBCONTAINER_LIMITS = {
  /** A boot that has not finished by then is given up on: the mind keeps the built-in shell. */
  bootTimeoutMs: 20_000,
  /** After kill(), how long a process may take to exit before the container is torn down and booted again. */
  killGraceMs: 2_000,
  /** Bytes of terminal output kept from one process; past it the process is ended. */
  maxOutputBytes: 1024 * 1024,
  /** Wall time of one process, a backstop under the block's own limit. */
  wallMs: 15 * 60_000,
  /** After exit, how long to wait for the last of the output to arrive. */
  drainMs: 200,
} as const;

export type WebContainerLimits = { [K in keyof typeof WEBCONTAINER_LIMITS]: number };

/** Where the mind's shell starts, and its HOME. */
export const WORKSPACE = "/workspace";
