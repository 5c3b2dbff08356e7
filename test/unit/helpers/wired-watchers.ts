// A mind's watchers wired as lib/home/start.ts wires them, without the
// model: its journal over its TrajectoryLog over a MemoryMindState, the real
// just-bash sandbox over an in-memory workspace, its SelfLedger (self/ set up
// as at a first start), the Watchers runner with the fixed limits, and one
// run whose blocks are recorded as lib/mind/run/run.ts records them (the block,
// then the ledger's settle). The clock moves only when the test moves it.
import { InMemoryFs } from "just-bash";
import { SelfLedger } from "@/lib/home/self-ledger";
import { Journal, type RunScope } from "@/lib/mind/log/journal";
import { MemoryMindState } from "@/lib/mind/state/memory-state";
import { MindWriter, TrajectoryLog } from "@/lib/mind/log/mind-log";
import type { Clock, ShellSession } from "@/lib/mind/ports";
import { Watchers } from "@/lib/mind/watchers/watchers";
import { justBashSandbox } from "@/lib/shell/just-bash-sandbox";
import { FIXED_LIMITS, WORKSPACE } from "@/lib/shell/limits";
import { fsSelfFiles } from "@/lib/shell/self/files";
import { DEFAULT_PERMISSIONS } from "@/lib/trajectory/permissions";
import type { Step } from "@/lib/trajectory/schema";
import { ROOT_TRAJ } from "./memory-log";
import { echoShellm, outcome, predictableIds, runScope } from "./wired-sandbox";

export const T0 = Date.UTC(2026, 10, 30, 17, 44, 36, 123);

export interface WiredWatchers {
  clock: Clock & { at: number };
  fs: InMemoryFs;
  state: MemoryMindState;
  journal: Journal;
  ledger: SelfLedger;
  watchers: Watchers;
  run: RunScope;
  session: ShellSession;
  /** One block of the run: executed, then what it changed in self/ recorded (as shellmRun does after each block). */
  block(code: string): Promise<{ stdout: string; stderr: string; exit: number; timedOut: boolean }>;
  /** The mind thinks (a thought in its own trajectory), and every watcher run it started has ended. */
  think(content: string): Promise<Step>;
  /** The mind's steps as stored, from the first one after `from` (a step id) or all of them. */
  steps(from?: string): Promise<Step[]>;
}

export async function wireWatchers(): Promise<WiredWatchers> {
  const ids = predictableIds();
  const clock = { at: T0, now: () => clock.at, sleep: async () => undefined };
  const state = new MemoryMindState(ROOT_TRAJ);
  const log = new TrajectoryLog(new MindWriter(state), ROOT_TRAJ);
  const journal = new Journal(log, ids, clock);
  const fs = new InMemoryFs();
  const flush = async () => undefined;
  const shell = justBashSandbox({ fs, flush, permissions: DEFAULT_PERMISSIONS, ids, clock });
  const ledger = await SelfLedger.load({ state, root: ROOT_TRAJ, files: fsSelfFiles(fs, flush), persona: "I watch.", clock, ids, append: (step) => journal.append(step) });
  const watchers = new Watchers({
    journal,
    shell,
    clock,
    selfName: "Ada",
    recorded: () => ledger.watchers(),
    rewrite: (name, text) => ledger.harnessWrite(`self/watchers/${name}.sh`, text, "watcher-failed"),
    limits: { wallMs: FIXED_LIMITS.watcherWallMs, outputBytes: FIXED_LIMITS.watcherOutputBytes, runsPerMinute: FIXED_LIMITS.watcherRunsPerMinute },
    cwd: WORKSPACE,
  });
  watchers.start();
  const run = await journal.openRun({ model: "test", launched_by: "monolith" });
  const session = shell.open({ ...runScope(run, "Ada", echoShellm()), watchers });
  return {
    clock,
    fs,
    state,
    journal,
    ledger,
    watchers,
    run,
    session,
    async block(code) {
      const r = await session.exec(code, { env: {}, cwd: WORKSPACE, signal: new AbortController().signal });
      await ledger.settle({ run: run.runId, traj: ROOT_TRAJ }, r.selfRefused ?? 0);
      return outcome(r);
    },
    async think(content) {
      const step = await journal.append({ type: "thought", content, source: "monolith" });
      await watchers.idle();
      return step;
    },
    async steps(from) {
      await log.writer.flushed();
      const all = state.steps();
      return from === undefined ? all : all.slice(all.findIndex((s) => s.step_id === from) + 1);
    },
  };
}
