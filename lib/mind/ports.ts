// The mind's view of the world. lib/mind is pure over these; the worker wires
// real ones (Dexie, just-bash, the AI SDK, timers) and tests wire fakes.
import type { ChatMessage } from "../context/project";
import type { Step } from "../trajectory/schema";

export type { ChatMessage };

/** One mind's trajectory: append-only. */
export interface StepLog {
  append(step: Step): Promise<void>;
  putBlob(name: string, text: string): Promise<void>;
  /** The newest `n` steps of the mind's own trajectory, oldest first. */
  tail(n: number): Promise<Step[]>;
  count(): Promise<number>;
  /** Steps whose id is or starts with `idOrPrefix` (at most `limit`). */
  find(idOrPrefix: string, limit: number): Promise<Step[]>;
}

export interface ModelRequest {
  instructions: string;
  messages: ChatMessage[];
  signal: AbortSignal;
  /** The reply so far, while it streams. */
  onDelta?: (textSoFar: string) => void;
}

export type ModelResult =
  | { ok: true; text: string; inTokens?: number; outTokens?: number }
  | { ok: false; error: string; aborted: boolean };

export interface ModelPort {
  readonly name: string;
  complete(req: ModelRequest): Promise<ModelResult>;
}

export interface ShellRequest {
  env: Record<string, string>;
  cwd: string;
  signal: AbortSignal;
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
}

export interface ShellPort {
  exec(code: string, req: ShellRequest): Promise<ShellResult>;
}

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export interface Ids {
  uuid(): string;
}

/** What the agent's own shell commands (chat, traj) can do; backed by the journal. */
export interface AgentTools {
  readonly selfName: string;
  sendMessage(m: { to: string; content: string; replyTo?: string }): Promise<Step>;
  /** Steps whose id is or starts with `idOrPrefix`. */
  findSteps(idOrPrefix: string): Promise<Step[]>;
  /** The newest message from `name` to this mind, if any, among recent steps. */
  latestMessageFrom(name: string): Promise<Step | undefined>;
  tail(n: number): Promise<Step[]>;
}
