// One mind put together over its ports, as each of its homes does it (the
// tab's worker, workers/host.ts; the server's runner,
// lib/server/runner/hosted-mind.ts; and a scenario's player): its one writer,
// its trajectory log with the sealed past beside it, its journal, and
// lib/mind's loop with the mind's own settings, caps, pacing and limits.
// Each home brings its state, models, shell, skills and where it runs.
import { SealedPast } from "../context/sealed-past";
import { DEFAULT_TIERS } from "../context/staircase";
import { spendTally } from "../mind/budget/budget";
import { Journal } from "../mind/log/journal";
import { Mind, type MindDeps } from "../mind/mind";
import { GATHER_MS, MindWriter, TrajectoryLog, WINDOW } from "../mind/log/mind-log";
import type { Clock, Ids, ModelPort, ShellPort } from "../mind/ports";
import { selfInstructions } from "../mind/run/prompt";
import { DEFAULT_RUN_LIMITS } from "../mind/run/run";
import type { TrialDeps } from "../mind/run/types";
import { Watchers } from "../mind/watchers/watchers";
import type { MindRecord, MindState } from "../mind/state/state";
import { commandList } from "../shell/commands/registry";
import { FIXED_LIMITS, WORKSPACE } from "../shell/limits";
import { selfPath } from "../shell/self/files";
import type { SkillInfo } from "../shell/skills";
import type { MindSettings } from "../mind/settings/settings";
import type { BudgetConfig } from "../trajectory/schema";
import type { SelfLedger } from "./self-ledger";

export interface WireMind {
  state: MindState<MindSettings>;
  /** What the mind starts from: its settings, its shell and pacing as last kept. */
  record: MindRecord<MindSettings>;
  /** Its spend caps, as the home checked them (a mind without caps does not start). */
  caps: BudgetConfig;
  /** The trajectory its steps go to. */
  root: string;
  clock: Clock;
  ids: Ids;
  model: ModelPort;
  /** The summaries' model, when its human picked a cheaper one (absent: the mind's own). */
  summaryModel?: ModelPort;
  shell: ShellPort;
  /** Its own texts (self/), loaded by the home before the mind is wired: every thinker reads them, each block's changes are recorded. */
  self: SelfLedger;
  /** A sandbox over a scratch copy of its workspace, for `self try` (absent: trials cannot be tried in this home). */
  scratchShell?: () => Promise<ShellPort>;
  /** What a past call saw, rebuilt from its record, for `self try` (absent: this home keeps no records it can rebuild). */
  recordedCall?: TrialDeps["recorded"];
  /** The installed skills, for the prompt. */
  skills: () => Promise<SkillInfo[]>;
  /** What the sandbox may do in this home (the server bounds the network). */
  permissions: MindSettings["permissions"];
  where: MindDeps["where"];
  onStatus: MindDeps["onStatus"];
  onPartial?: MindDeps["onPartial"];
  handOffWait?: MindDeps["handOffWait"];
  /** The first wake waits for the sealed past to be read (a home that starts the mind for one wake at a time). */
  readBeforeFirstWake?: boolean;
  /** A record of what a model call saw could not be stored (derived data: reported, never fatal). */
  onRecordError: (e: unknown) => void;
  /** How long the writer gathers steps before a write (default GATHER_MS of real time; a scenario's player writes at once, as its clock does not wait). */
  gather?: () => Promise<void>;
}

export interface WiredMind {
  loop: Mind;
  log: TrajectoryLog;
  journal: Journal;
  /** Resolves once every step written so far is stored. */
  stored(): Promise<void>;
}

export function wireMind(w: WireMind): WiredMind {
  const mind = w.record.settings;
  const { state, clock } = w;
  // The mind's one writer: a write starts GATHER_MS after a step is queued, so the steps of those milliseconds go in one transaction.
  const writer = new MindWriter(state, { nextTurn: w.gather ?? (() => new Promise((resolve) => setTimeout(resolve, GATHER_MS))), onRecordError: w.onRecordError });
  // The stream's positions and its sealed summaries, read by the summarizer in the background: the run's context shows them once read.
  const past = new SealedPast(DEFAULT_TIERS);
  const log = new TrajectoryLog(writer, w.root, WINDOW, past);
  const journal = new Journal(log, w.ids, clock);
  // The watchers it wrote (self/watchers/), as its ledger records them: each runs in its sandbox after the steps it names.
  const watchers = new Watchers({
    journal,
    shell: w.shell,
    clock,
    selfName: mind.name,
    recorded: () => w.self.watchers(),
    rewrite: (name, text) => w.self.harnessWrite(selfPath(`watchers/${name}.sh`), text, "watcher-failed"),
    limits: { wallMs: FIXED_LIMITS.watcherWallMs, outputBytes: FIXED_LIMITS.watcherOutputBytes, runsPerMinute: FIXED_LIMITS.watcherRunsPerMinute },
    cwd: WORKSPACE,
  });
  // Every session of its runs sees how they ran (`watch`).
  const shell: ShellPort = { open: (scope) => w.shell.open({ ...scope, watchers }) };
  const extras = async () => ({ commands: commandList(), skills: await w.skills().catch(() => []) });
  const loop = new Mind({
    journal,
    persona: mind.persona,
    model: w.model,
    budget: { caps: w.caps, spend: spendTally((since) => state.spendSince(since), clock) },
    summaries: { past, store: state.tiers(w.root), model: w.summaryModel, ...(w.readBeforeFirstWake ? { readBeforeFirstWake: true } : {}) },
    shell,
    clock,
    selfName: mind.name,
    self: w.self,
    watchers,
    instructions: async () => selfInstructions(w.self.texts(), mind.name, await extras()),
    ...(w.scratchShell ? { trial: { scratch: w.scratchShell, render: async (texts) => selfInstructions(texts, mind.name, await extras()), ...(w.recordedCall ? { recorded: w.recordedCall } : {}) } } : {}),
    pacing: mind.pacing,
    where: w.where,
    limits: { ...DEFAULT_RUN_LIMITS, maxIterations: mind.max_iterations },
    nesting: { maxDepth: w.permissions.limits.recursion_depth, childIterations: w.permissions.limits.child_iterations },
    shellState: w.record.shell ?? { env: {}, cwd: WORKSPACE },
    // A run that changed the shell's env or cwd says so: kept for the next start (a failed save only costs that).
    onShellState: (s) => void state.saveShellState(s).catch(() => undefined),
    // Where the idle backoff stands, for the next start in this home or another.
    pacingState: w.record.pacing,
    onPacing: (p) => void state.savePacing(p).catch(() => undefined),
    ...(w.handOffWait ? { handOffWait: w.handOffWait } : {}),
    onStatus: w.onStatus,
    ...(w.onPartial ? { onPartial: w.onPartial } : {}),
    contexts: writer,
  });
  // Its self-edits go through the journal from now on (before, the home's loading wrote straight to the store).
  w.self.attach((step) => journal.append(step));
  return { loop, log, journal, stored: () => writer.flushed().catch(() => undefined) };
}
