// Stopping a block without losing what it printed. just-bash throws away a
// script's output when its signal aborts, but keeps it when a limit ends the
// script. So a stop first lowers the instance's command limits: the next
// command the script runs ends it as a limit would, output intact. A script
// that does not reach another command within the grace period is aborted for
// real (its output is then lost, and the note says so). test/unit/sandbox-stop
// checks this against the installed just-bash, so an upgrade that changes it
// fails there, not silently.
import type { Bash } from "just-bash";

interface MutableLimits {
  maxCommandCount: number;
  maxLoopIterations: number;
}

function limitsOf(bash: Bash): MutableLimits | null {
  const limits = (bash as unknown as { limits?: Partial<MutableLimits> }).limits;
  if (!limits || typeof limits.maxCommandCount !== "number" || typeof limits.maxLoopIterations !== "number") return null;
  return limits as MutableLimits;
}

/** Ask a running script to end at its next command; returns the function that restores the limits. */
export function softStop(bash: Bash): { restore: () => void; supported: boolean } {
  const limits = limitsOf(bash);
  if (!limits) return { restore: () => undefined, supported: false };
  const saved = { ...limits };
  limits.maxCommandCount = 0;
  limits.maxLoopIterations = 0;
  return {
    supported: true,
    restore: () => {
      limits.maxCommandCount = saved.maxCommandCount;
      limits.maxLoopIterations = saved.maxLoopIterations;
    },
  };
}

/** The limit a just-bash error line names, if any. */
export function limitNamed(stderr: string): string | undefined {
  if (/too many commands executed|too many iterations|iteration limit exceeded/.test(stderr)) return "commands";
  if (/total output size exceeded|output size limit exceeded/.test(stderr)) return "output";
  if (/maximum recursion depth|maximum depth \(\d+\) exceeded|nesting depth|maximum nested execution depth/.test(stderr)) return "recursion";
  if (/execution deadline/.test(stderr)) return "wall";
  return undefined;
}
