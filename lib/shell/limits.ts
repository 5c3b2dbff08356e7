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

/** Where the mind's shell starts, and its HOME. */
export const WORKSPACE = "/workspace";
