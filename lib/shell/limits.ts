// Every execution limit of the sandbox, in one place.
import type { BashOptions } from "just-bash";

type ExecutionLimits = NonNullable<BashOptions["executionLimits"]>;

export const SHELL_LIMITS = {
  /** Wall time of one exec before it is stopped (exit 124, timed_out). */
  timeoutMs: 30_000,
  /** Bytes of stdout or stderr kept from one exec; the rest is cut with a note. */
  maxOutputBytes: 1024 * 1024,
  /** Commands one exec may run (loops included). */
  maxCommandCount: 100_000,
} as const;

/** The interpreter's own limits, derived from the ones above. */
export const JUST_BASH_LIMITS: ExecutionLimits = {
  maxExecutionTimeMs: SHELL_LIMITS.timeoutMs + 5_000,
  maxCommandCount: SHELL_LIMITS.maxCommandCount,
  maxLoopIterations: SHELL_LIMITS.maxCommandCount,
  // Let the interpreter produce a little more than we keep, so we can say it was cut.
  maxOutputSize: SHELL_LIMITS.maxOutputBytes * 4,
  maxFileSystemBytes: 256 * 1024 * 1024,
};

/** Where the mind's shell starts, and its HOME. */
export const WORKSPACE = "/workspace";
