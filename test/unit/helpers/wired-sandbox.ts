// The just-bash sandbox wired the way the app wires it: the workspace over a
// FileStore (workers/host.ts), a Journal over the mind's log, one run opened,
// and a session whose scope is built the way lib/mind/run/run.ts `shellmRun`
// builds it. Only `shellm` is the test's own: a port it controls.
import { alarmPort } from "@/lib/mind/alarms/alarms";
import type { RunScope } from "@/lib/mind/log/journal";
import { trajReader } from "@/lib/mind/log/mind-log";
import type { NestedRunResult, ShellmPort, ShellResult, ShellScope } from "@/lib/mind/ports";

/** What shellmRun hands the shell: reads of the run's trajectory, messages appended through the run. */
export function runScope(run: RunScope, selfName: string, shellm: ShellmPort, depth = 0): ShellScope {
  return {
    traj: trajReader(run.journal.log),
    chat: {
      selfName,
      send: ({ to, content, replyTo }) => run.append({ type: "message", from: selfName, to, content, reply_to: replyTo, source: "chat" }),
    },
    shellm,
    alarms: alarmPort(run),
    depth,
  };
}

/** Ids 0a000001-0000-4000-8000-000000000000, 0a000002-…; `reset` starts again. */
export function predictableIds() {
  let n = 0;
  return {
    uuid: () => `0a${String(++n).padStart(6, "0")}-0000-4000-8000-000000000000`,
    reset: () => {
      n = 0;
    },
  };
}

/** The parts of a result that do not depend on the machine. */
export const outcome = (r: ShellResult) => ({ stdout: r.stdout, stderr: r.stderr, exit: r.exit, timedOut: r.timedOut });

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface ShellmCall {
  task: string;
  /** ms from the call until its signal aborted (undefined: it never did while the port ran). */
  abortedAfterMs?: number;
  beacons: number;
}

/**
 * A nested run that takes `ms` (Infinity: until its signal aborts), calling
 * `beacon` every `everyMs` when `beacons` is set, then answers. A port that
 * `honoursSignal` gives up as soon as its signal aborts.
 */
export function slowShellm(opts: { ms: number; everyMs?: number; beacons: boolean; honoursSignal?: boolean; answer?: string }): ShellmPort & { calls: ShellmCall[] } {
  const calls: ShellmCall[] = [];
  const every = opts.everyMs ?? 100;
  return {
    calls,
    async run(task, { signal, beacon }): Promise<NestedRunResult> {
      const call: ShellmCall = { task, beacons: 0 };
      calls.push(call);
      const started = performance.now();
      signal.addEventListener("abort", () => (call.abortedAfterMs = performance.now() - started), { once: true });
      for (let t = 0; t < opts.ms; t += every) {
        if (opts.honoursSignal && signal.aborted) return { ok: false, error: "shellm: the nested run was stopped" };
        if (opts.beacons) {
          beacon();
          call.beacons++;
        }
        await wait(every);
      }
      return { ok: true, answer: opts.answer ?? "42", childId: "0c000000-0000-4000-8000-000000000000" };
    },
  };
}

/** A nested run that answers at once with its task, upper-cased. */
export const echoShellm = (): ShellmPort => ({
  run: async (task) => ({ ok: true, answer: task.toUpperCase(), childId: "0c000000-0000-4000-8000-000000000000" }),
});
