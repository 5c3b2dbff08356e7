// The mind's view of the world. lib/mind is pure over these; the worker wires
// real ones (Dexie, just-bash, the AI SDK, timers) and tests wire fakes.
import type { ChatMessage } from "../context/project";
import type { SealedPast } from "../context/sealed-past";
import type { SeenCall } from "../context/replay";
import type { BudgetPause } from "../protocol";
import type { Step, StepUsage } from "../trajectory/schema";

import type { ShellState } from "./state/state";
import type { SelfFile, SelfTexts } from "./self/self";

export type { ChatMessage, ShellState };
export type { TierStorePort } from "./state/state";

/** A step found by id, with the trajectory it belongs to. */
export interface FoundStep {
  step: Step;
  trajId: string;
}

/** One trajectory of a mind (its root, or a forked child): append-only. */
export interface StepLog {
  readonly trajId: string;
  append(step: Step): Promise<void>;
  /** Store a large output; `name` is the file name under this trajectory's `blobs/`. */
  putBlob(name: string, text: string): Promise<void>;
  /** A large output by its ref (`blobs/<name>`), in trajectory `trajId` (default: this one). */
  blob(ref: string, trajId?: string): Promise<string | undefined>;
  /** The newest `n` steps of this trajectory, oldest first. */
  tail(n: number): Promise<Step[]>;
  /** Steps in this trajectory. */
  count(): Promise<number>;
  /** Steps of any of the mind's trajectories whose id is or starts with `idOrPrefix` (at most `limit`). */
  find(idOrPrefix: string, limit: number): Promise<FoundStep[]>;
  /** Steps of this trajectory whose text contains `text` (case-insensitive), newest first. */
  search(text: string, limit: number): Promise<Step[]>;
  /** Every step of this trajectory of these kinds, oldest first, however far back: for kinds that are few (alarms). */
  ofKind(kinds: readonly string[]): Promise<Step[]>;
  /** Register a child trajectory forked from this one; returns its (empty) log. */
  fork(child: { trajId: string; name: string }): Promise<StepLog>;
  /**
   * The trajectory's sealed past (stream positions and sealed summaries, kept
   * beside the log), once it has been read; a run's context shows it as the
   * staircase. Absent (a forked child, a test's log): the past before the tail is elided.
   */
  readonly past?: () => SealedPast | undefined;
}

export interface ModelRequest {
  instructions: string;
  messages: ChatMessage[];
  signal: AbortSignal;
  /** The reply so far, while it streams. */
  onDelta?: (textSoFar: string) => void;
}

export type ModelResult =
  | { ok: true; text: string; inTokens?: number; outTokens?: number; /** The call's tokens and cost, recorded on the step it produced. */ usage?: StepUsage }
  | {
      ok: false;
      error: string;
      aborted: boolean;
      /** The server asked to wait this long (HTTP 429/503 Retry-After). */
      retryAfterS?: number;
      /** A spend cap refused the call: a pause until it resets, not a failure to retry. */
      paused?: BudgetPause;
      usage?: StepUsage;
    };

/** Where what each model call saw is kept ("what the model saw"). Never throws and never delays the run: a failed write is the store's to report. */
export interface ContextPort {
  record(call: SeenCall): void;
}

export interface ModelPort {
  readonly name: string;
  complete(req: ModelRequest): Promise<ModelResult>;
}

export interface ShellRequest extends ShellState {
  signal: AbortSignal;
  /** What the block reads on its standard input (a watcher's step, as JSON); none when absent. */
  stdin?: string;
  /** Tighter limits than the mind's for this block (a watcher's): its wall time, and the bytes of stdout and of stderr it keeps. */
  limits?: { wallMs: number; outputBytes: number };
}

export interface ShellResult {
  stdout: string;
  stderr: string;
  exit: number;
  /** The shell's variables after the run (FINAL is read from here). */
  env: Record<string, string>;
  cwd: string;
  timedOut: boolean;
  execS: number;
  /** Which limit ended the block, if one did: "silence", "wall", "commands", "output", "recursion", … */
  limit?: string;
  /** Writes to /workspace/self the sandbox turned away in this block for its rate (issue 24); absent when none were. */
  selfRefused?: number;
}

/** What the agent's commands may reach while a run's shell is open: scoped to that run and its trajectory. */
export interface ShellScope {
  /** Read-only view of the run's trajectory. */
  traj: TrajPort;
  /** Messages, appended inside the run. */
  chat: ChatPort;
  /** Nested runs from this one. */
  shellm: ShellmPort;
  /** The mind's own alarms (a nested run's are its mind's too). */
  alarms: AlarmPort;
  /** Trying and merging trials of its own texts (`self try`, `self merge`), when its home can (absent: those say so). */
  trials?: TrialPort;
  /** How the mind's watchers have run (absent where none run: a command-line shell). */
  watchers?: WatcherPort;
  /** How deep this run is (0: a thinker's own run). */
  depth: number;
}

/** A shell bound to one run's scope. Each run opens its own, so a nested run never shares the parent's interpreter. */
export interface ShellSession {
  exec(code: string, req: ShellRequest): Promise<ShellResult>;
}

export interface ShellPort {
  open(scope: ShellScope): ShellSession;
}

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export interface Ids {
  uuid(): string;
}

/** Read-only view of the mind's trajectory, scoped to the trajectory the shell runs in. */
export interface TrajPort {
  /** The newest `n` steps of this trajectory, oldest first. */
  tail(n: number): Promise<Step[]>;
  count(): Promise<number>;
  /** Steps of any of the mind's trajectories whose id is or starts with `idOrPrefix`. */
  find(idOrPrefix: string, limit: number): Promise<FoundStep[]>;
  /** Steps of this trajectory whose text contains `text` (case-insensitive), newest first. */
  search(text: string, limit: number): Promise<Step[]>;
  /** The whole text of a large output, by its `stdout_ref`/`stderr_ref`, in trajectory `trajId`. */
  blob(ref: string, trajId: string): Promise<string | undefined>;
}

/** Messages the mind sends, appended to the trajectory inside the current run. */
export interface ChatPort {
  readonly selfName: string;
  /** Set when this run may not reply to messages: why, for the agent. */
  readonly replyRefusal?: string;
  send(m: { to: string; content: string; replyTo?: string }): Promise<Step>;
}

/** One pending alarm: `id` is its set step's step_id (the agent sees its first 8 characters); `at` in ms since the epoch. */
export interface Alarm {
  id: string;
  at: number;
  note: string;
}

export type AlarmResult = { ok: true; alarm: Alarm } | { ok: false; error: string };

/** The mind's alarms (the `alarm` command): each is a step; a refused one (past, too many, too long) is an error, never a throw. */
export interface AlarmPort {
  set(at: number, note: string): Promise<AlarmResult>;
  /** Cancel the pending alarm whose id starts with `idPrefix` (4 characters or more, unique). */
  cancel(idPrefix: string): Promise<AlarmResult>;
  /** The pending alarms, soonest first. */
  list(): Promise<Alarm[]>;
}

/** One run of a watcher, as `watch logs` shows it. */
export interface WatcherRun {
  at: number;
  /** What it printed on stdout (kept cut short), "" when nothing. */
  output: string;
  /** What it printed on stderr (kept cut short), "" when nothing. */
  stderr: string;
  /** Why it failed (a non-zero exit and the first line of its stderr, or its wall time), when it did. */
  failed?: string;
}

/** What the mind's watchers did since they started in this home (kept in memory, not in the trajectory). */
export interface WatcherStats {
  runs: number;
  /** Runs that printed something (each an observation). */
  outputs: number;
  failures: number;
  /** Failures since its last run that did not fail (three turn it off). */
  failuresInRow: number;
  /** Runs not made: past the runs a minute a watcher may have. */
  skipped: number;
  lastOutput?: { at: number; text: string };
  /** Runs in a row, each given another step, that printed what the run before printed: a watcher that never reads its input shows here. */
  samePrinted?: number;
  lastError?: { at: number; text: string };
  /** The newest runs, oldest first. */
  recent: WatcherRun[];
}

/** The mind's watchers as they run (the `watch` command reads it; lib/mind/watchers/watchers.ts keeps it). */
export interface WatcherPort {
  /** Since when (ms) the stats are kept: the mind's start in this home. */
  readonly since: number;
  /** A watcher's stats, undefined when it has not been offered a step yet. */
  stats(name: string): WatcherStats | undefined;
  /** Its text as recorded, which is what runs (a file changed in this block runs from the block's end); undefined when not recorded. */
  recorded(name: string): string | undefined;
}

export type NestedRunResult = { ok: true; answer: string; childId: string } | { ok: false; error: string; childId?: string };

/** `shellm`: a nested run in a forked child trajectory. */
export interface ShellmPort {
  run(task: string, opts: { signal: AbortSignal; beacon: () => void; shell: ShellState }): Promise<NestedRunResult>;
}

export type TryResult = { ok: true; child: string; report: string } | { ok: false; error: string };
export type MergeResult = { ok: true; lines: string[] } | { ok: false; error: string };

/** The `self` command's way to the mind (lib/mind/self/trial.ts): try a trial's texts on past wakes, merge them. */
export interface TrialPort {
  try(name: string, texts: SelfTexts, opts: { last: number; signal: AbortSignal; beacon: () => void }): Promise<TryResult>;
  merge(name: string, tryChild: string, texts: ReadonlyMap<SelfFile, { text: string; base: string }>): Promise<MergeResult>;
}
