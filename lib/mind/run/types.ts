// What a shellm run takes and hands back, in a module of its own: run.ts runs
// it, and nested.ts (a run inside a run) reads the same shapes without
// importing the run that imports it. Its defaults live here too, so a mind's
// settings (read on every page) do not load the run, and with it the tokenizer.
import { DEFAULT_BUDGET, type BuildCache, type BuildOptions, type BuiltContext, type ContextSource } from "../../context/build";
import type { TokenCounter } from "../../context/tokens";
import type { BudgetPause } from "../../protocol";
import type { Step } from "../../trajectory/schema";
import type { SystemPart } from "../../context/replay";
import type { AlarmPort, ContextPort, ModelPort, ShellPort, ShellState } from "../ports";
import type { SelfPort, SelfTexts } from "../self/self";
import type { Instructions } from "./prompt";
import type { ChatMessage } from "../../context/project";
import type { Emit } from "../events";

export interface RunLimits {
  maxIterations: number;
  /** Steps of the trajectory's tail read for the context (the verbatim part is sized by the token budget). */
  contextSteps: number;
  /** Tokens the context's messages may take (the instructions come on top). */
  contextTokens: number;
  /** Failing commands in a row that end the run. */
  maxFailuresInRow: number;
  /** Times the same failing command may fail before the run ends. */
  maxSameFailure: number;
  /** Model tokens (in + out) one run may use before it is ended. */
  maxTokens: number;
  /** The same reply this many times in a row ends the run (the loop-breaker). */
  maxRepeats: number;
}

/** How far `shellm` may recurse, and the iteration budget of each nested run. */
export interface Nesting {
  maxDepth: number;
  childIterations: number;
}

/** What a run acts through. */
export interface RunPorts {
  model: ModelPort;
  shell: ShellPort;
  /** Where what each model call saw is recorded, keyed by the step the call led to. */
  contexts?: ContextPort;
  /** The mind's own texts: after each block, what it changed under self/ is recorded (lib/home/self-ledger.ts). */
  self?: SelfPort;
  /** The mind's alarms, for a nested run (its outermost run's); a thinker's own run makes them over its scope. */
  alarms?: AlarmPort;
  /** What `self try` needs from the home (a scratch sandbox, the instructions texts make); absent: trials cannot be tried here. */
  trial?: TrialDeps;
}

/** How a run may go: who it is and its guards. */
export interface RunConfig {
  selfName: string;
  limits: RunLimits;
  nesting: Nesting;
  /** Whether `chat reply` works in this run (the inner life leaves replies to the responder). Default true. */
  replies?: boolean;
}

/** What the model is shown, and what is kept from one call to the next. */
export interface RunView {
  instructions: string;
  /** The instructions' parts (joined, `instructions`), each naming the file of the mind's it came from; absent: split from the text. */
  system?: readonly SystemPart[];
  /** The first model call's own instructions and context cut, when it is a lean first look (an idle wake: lib/mind/thinkers/first-look.ts); later calls get `instructions` and the whole budget. */
  firstLook?: { instructions: string; system?: readonly SystemPart[]; build: (src: ContextSource, opts: BuildOptions) => BuiltContext };
  /** The first model call's token budget, when it should be smaller (an idle wake choosing what to do). */
  firstCallBudget?: number;
  /** For a nested run: its ancestors' recent steps, shown before its own. */
  ancestors?: readonly Step[];
  /** Steps shown before the run's own as the stream it sees (a try re-running a past wake: the steps before that wake). */
  contextBefore?: readonly Step[];
  /** The first call's messages as given (a try re-running a past wake: the messages its first call was sent, as recorded); later calls build their own. */
  firstMessages?: ChatMessage[];
  /** Token counts cached across calls (one per mind); a fresh one when not given. */
  counter?: TokenCounter;
  /** What the context's build keeps from one call to the next (one per mind: the calls of its runs are a step or two apart); a fresh one per run when not given. */
  cache?: BuildCache;
}

/** A run: its ports, its config, its view, where it sits (depth 0: a thinker's own run), when to stop, and where it reports. */
export interface RunDeps {
  ports: RunPorts;
  config: RunConfig;
  view: RunView;
  /** 0 for a thinker's own run; n for a run nested n deep. */
  depth: number;
  signal: AbortSignal;
  /** Its status at each iteration and the reply as it streams (a nested run's are signs of life for its parent's watchdog). */
  emit?: Emit;
}

/** "budget": a spend cap refused the model call (the run's error step says which; the thinker pauses). */
export type RunEnd = "final" | "thought" | "error" | "model-error" | "budget" | "stopped";

export interface RunOutcome {
  end: RunEnd;
  runId: string;
  /** The shell's env and cwd after the run's last block. */
  shell: ShellState;
  /** Did the run's blocks change them (what its home keeps for the next start)? */
  shellChanged: boolean;
  /** The FINAL text, when end is final. */
  answer?: string;
  /** The run's last step (its final, error or thought). */
  lastStepId: string;
  /** Model calls the run made (a refused or failed one included). */
  calls?: number;
  /** When end is error: its step's reason (empty-reply, iterations, repeat, stall, …). */
  reason?: string;
  /** The model's error text, for the status line, when end is model-error. */
  error?: string;
  /** When end is model-error: how long the model's server asked to wait. */
  retryAfterS?: number;
  /** When end is budget: the cap that was reached and when it resets. */
  paused?: BudgetPause;
}

export interface RunTask {
  prompt: string;
  shell: ShellState;
}

/** A run's guards unless a mind's settings say otherwise. */
export const DEFAULT_RUN_LIMITS: RunLimits = {
  maxIterations: 12,
  contextSteps: 300,
  contextTokens: DEFAULT_BUDGET,
  maxFailuresInRow: 10,
  maxSameFailure: 3,
  maxTokens: 400_000,
  maxRepeats: 3,
};

export const DEFAULT_NESTING: Nesting = { maxDepth: 2, childIterations: 8 };

/** What a home gives `self try`: a sandbox over a scratch copy of the workspace, the instructions a set of texts makes, and (where it keeps them) what a past call saw. */
export interface TrialDeps {
  scratch: () => Promise<ShellPort>;
  render: (texts: SelfTexts) => Promise<Instructions>;
  /** The messages the call that led to step `stepId` was sent, rebuilt from its record; undefined when there is none (or it cannot be rebuilt whole), or the home keeps none. */
  recorded?: (stepId: string) => Promise<{ messages: ChatMessage[]; firstLook: boolean } | undefined>;
}
