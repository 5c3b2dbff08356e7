// Wires one mind: the store (Dexie), the workspace (just-bash over IndexedDB),
// the model (AI SDK) and real timers, around lib/mind's loop. Runs in the
// mind's Web Worker; also importable by integration tests under Node.
import { createModel, modelLabel } from "../lib/llm/model";
import { modelPort } from "../lib/llm/complete";
import { CachedLog } from "../lib/mind/cached-log";
import { Journal } from "../lib/mind/journal";
import { Mind } from "../lib/mind/mind";
import type { Clock, ModelPort } from "../lib/mind/ports";
import { instructionsFor } from "../lib/mind/prompt";
import { DEFAULT_RUN_LIMITS } from "../lib/mind/run";
import type { MindStatus } from "../lib/protocol";
import { commandList } from "../lib/shell/commands/registry";
import { justBashSandbox } from "../lib/shell/just-bash-sandbox";
import { WORKSPACE } from "../lib/shell/limits";
import { openPersistentFs } from "../lib/shell/persistent-fs";
import type { RuntimePort } from "../lib/shell/ports";
import { listSkills } from "../lib/shell/skills";
import type { ReverieDb } from "../lib/store/db";
import { mindFiles } from "../lib/store/files";
import { getMind, saveShellState } from "../lib/store/minds";
import { lastSeq, mindLog, parseRows, rowsAfter, watchRows } from "../lib/store/steps";

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
    }),
};

export interface HostEvents {
  onStatus: (status: MindStatus) => void;
  onPartial?: (text: string) => void;
  /** The human changed the settings (a `config` step appeared): run again with them. */
  onConfigChanged?: () => void;
}

export interface HostOptions {
  clock?: Clock;
  /** Real Node on the page (a WebContainer), when the mind's permissions switch it on. */
  runtime?: RuntimePort;
  /** The model, when a test supplies its own; otherwise built from the mind's settings. */
  model?: ModelPort;
}

export interface RunningMind {
  stop(): Promise<void>;
  /** Resolves when the loop has ended. */
  done: Promise<void>;
}

const ids = { uuid: () => crypto.randomUUID() };

export async function runMind(db: ReverieDb, mindId: string, events: HostEvents, options: HostOptions = {}): Promise<RunningMind> {
  const clock = options.clock ?? systemClock;
  const mind = await getMind(db, mindId);
  if (!mind) throw new Error(`There is no mind ${mindId} in this browser (or its record is damaged).`);
  const { permissions } = mind;
  const { fs, flush } = await openPersistentFs(mindFiles(db, mindId), { maxBytes: permissions.limits.max_workspace_bytes });
  const log = new CachedLog(mindLog(db, mindId));
  const journal = new Journal(log, ids, clock);
  const shell = justBashSandbox({
    fs,
    flush,
    permissions,
    ids,
    clock,
    fetch: (url, init) => fetch(url, init),
    runtime: permissions.webcontainer ? options.runtime : undefined,
  });
  const loop = new Mind({
    journal,
    persona: mind.persona,
    model: options.model ?? modelPort(createModel(mind.model), modelLabel(mind.model)),
    shell,
    clock,
    selfName: mind.name,
    instructions: async () => instructionsFor(mind, { commands: commandList(), skills: await listSkills(fs).catch(() => []) }),
    pacing: mind.pacing,
    limits: { ...DEFAULT_RUN_LIMITS, maxIterations: mind.max_iterations },
    nesting: { maxDepth: permissions.limits.recursion_depth, childIterations: permissions.limits.child_iterations },
    shellState: mind.shell ?? { env: {}, cwd: WORKSPACE },
    onStatus: (status) => {
      events.onStatus(status);
      // Between wakes: keep the shell's env and cwd for the next reload. Only
      // when they changed: the write would wake every tab's list of minds.
      if (status.state === "waiting") saveShell();
    },
    onPartial: events.onPartial,
  });
  let savedShell = JSON.stringify(mind.shell ?? null);
  const saveShell = () => {
    const state = loop.innerLife.shellState();
    const now = JSON.stringify(state);
    if (now === savedShell) return;
    savedShell = now;
    saveShellState(db, mindId, state).catch(() => (savedShell = ""));
  };

  // Every step appended after this point by someone else (the page, another
  // tab) is offered to the mind's dispatcher. What the mind wrote itself it
  // already holds: those rows are skipped before they are parsed.
  const unwatch = watchRows(await lastSeq(db, mindId), (seq) => rowsAfter(db, mindId, seq), (rows) => {
    const others = rows.filter((r) => !journal.wrote(r.step_id));
    const trajOf = new Map(others.map((r) => [r.seq, r.traj_id]));
    const theirs = parseRows(others);
    theirs.steps.forEach((step, i) => {
      if (trajOf.get(theirs.seqs[i]) === mindId) log.ingest(step);
      loop.notify(step);
    });
    if (theirs.steps.some((s) => s.type === "config")) events.onConfigChanged?.();
  });

  const done = loop.start().finally(unwatch);
  return {
    done,
    async stop() {
      await loop.stop();
    },
  };
}
