// Messages between the mind page and its worker. Imports nothing, so both
// sides (and tests) can share it without pulling in either side's code.

/** A spend cap that stops model calls until `resetsAt`: the mind's own, or the host proxy's. */
export interface BudgetPause {
  /** "mind": the mind's own caps; "proxy": the host proxy refused (HTTP 429 spend_cap). */
  scope: "mind" | "proxy";
  /** hour / day for the mind's caps; the proxy's cap name (client_hour, client_day, global_day, request). */
  cap: string;
  limitUsd: number;
  spentUsd?: number;
  /** Epoch ms when the period rolls over. */
  resetsAt: number;
}

/** What a person sees about the mind: one of these, always. */
export type MindStatus =
  | { state: "starting" }
  | { state: "thinking"; runId?: string; iteration?: number }
  | {
      state: "waiting";
      /** Epoch ms of the next spontaneous wake. */
      nextWakeAt: number;
      level: number;
      /** Set when the last wake failed and this wait is a retry backoff. */
      lastError?: string;
    }
  /** At a spend cap: no model calls until the period rolls over or the human raises the cap. */
  | ({ state: "paused"; reason: "budget" } & BudgetPause)
  | { state: "stopped"; lastError?: string }
  | { state: "viewing" };

export type MindState = MindStatus["state"];

/**
 * Real Node on the page (a WebContainer), as the worker hears of it. The same
 * shapes as RuntimeStatus / SpawnRequest / SpawnResult in lib/shell/ports,
 * spelled out here because this module imports nothing (the bridge,
 * lib/shell/webcontainer/bridge.ts, checks at compile time that they agree).
 */
export type RuntimeStatusWire =
  | { state: "off" }
  | { state: "booting" }
  | { state: "ready" }
  | { state: "unavailable"; reason: string };

export interface SpawnRequestWire {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  files: { path: string; data: Uint8Array | null }[];
}

export interface SpawnResultWire {
  output: string;
  exit: number;
  files: { path: string; data: Uint8Array | null }[];
  ended?: string;
}

/** Page → worker. */
export type ToWorker =
  | { type: "start"; mindId: string }
  | { type: "stop" }
  /** The runtime's state changed (sent at once when the worker starts, then on every change). */
  | { type: "runtime-status"; status: RuntimeStatusWire }
  /** The answer to `runtime-spawn` with the same id; always sent, also after a cancel. */
  | { type: "runtime-result"; id: number; result: SpawnResultWire }
  /** That command is printing (at most about once a second): a sign of life for the block's watchdog. */
  | { type: "runtime-alive"; id: number };

/** Worker → page. */
export type FromWorker =
  | { type: "status"; status: MindStatus }
  /** The model's reply so far, while it streams; cleared with text "" when done. */
  | { type: "partial"; text: string }
  /** The worker could not run the mind at all (missing mind, storage failure). */
  | { type: "fatal"; error: string }
  /** Run a command in the page's WebContainer; answered by `runtime-result`. */
  | { type: "runtime-spawn"; id: number; req: SpawnRequestWire }
  /** The block was stopped: end that command (its result still comes). */
  | { type: "runtime-cancel"; id: number }
  /** What the worker did (started, stopped, restarted for new settings, failed): one line for the page's recent log (bug reports). */
  | { type: "log"; level: WorkerLogLevel; text: string };

export type WorkerLogLevel = "info" | "warn" | "error";

/** The Web Lock that makes one tab the runner of a mind. */
export function mindLockName(mindId: string): string {
  return `reverie-mind-${mindId}`;
}
