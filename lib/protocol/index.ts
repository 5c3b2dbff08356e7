// Messages between the mind page and its worker. Imports nothing, so both
// sides (and tests) can share it without pulling in either side's code.

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
  | { state: "stopped"; lastError?: string }
  | { state: "viewing" };

export type MindState = MindStatus["state"];

/** Page → worker. */
export type ToWorker =
  | { type: "start"; mindId: string }
  | { type: "stop" };

/** Worker → page. */
export type FromWorker =
  | { type: "status"; status: MindStatus }
  /** The model's reply so far, while it streams; cleared with text "" when done. */
  | { type: "partial"; text: string }
  /** The worker could not run the mind at all (missing mind, storage failure). */
  | { type: "fatal"; error: string };

/** The Web Lock that makes one tab the runner of a mind. */
export function mindLockName(mindId: string): string {
  return `reverie-mind-${mindId}`;
}
