// What a running mind tells its home: one tagged union, as pi-mono's agent
// loop emits one, instead of a callback per kind. The loop only emits; each
// home folds the events into what it shows or keeps (the tab's worker posts
// them to its page, the server's runner logs them and keeps the shell and the
// pacing, a scenario's player ignores most).
import type { MindStatus } from "../protocol";
import type { PacingSnapshot, ShellState } from "./state/state";

export type MindEvent =
  /** What a person sees about the mind now. */
  | { type: "status"; status: MindStatus }
  /** The model's reply so far, while it streams ("" once the call is over). */
  | { type: "partial"; text: string }
  /** A run's blocks changed the shell's variables or directory: kept for the next start. */
  | { type: "shell-state"; shell: ShellState }
  /** Where the idle backoff stands after a wake: kept for the next start, in this home or the other. */
  | { type: "pacing"; pacing: PacingSnapshot }
  /** A record of what a model call saw could not be stored (derived data: reported, never fatal). */
  | { type: "record-error"; error: string }
  /**
   * The inner life is about to wait and its home keeps waits (the server's
   * wake queue): the loop has ended there, to be started again at `wakeAt`.
   */
  | { type: "handed-off"; wakeAt: number; paused: boolean }
  /** Its human changed its settings (a `config` step came in): its home starts it again with them. */
  | { type: "settings-changed" };

export type MindEventType = MindEvent["type"];
export type EventOf<K extends MindEventType> = Extract<MindEvent, { type: K }>;

/** Where a mind's events go. Never throws back into the loop: a home's fold that fails is the home's to report. */
export type Emit = (event: MindEvent) => void;

/** Emits nothing (a test's mind, a nested part that has no home to tell). */
export const silent: Emit = () => undefined;

const isOf = <K extends MindEventType>(type: K, e: MindEvent): e is EventOf<K> => e.type === type;

/** Only the events of one kind, unwrapped (a home that cares about one, a test that collects statuses). */
export function on<K extends MindEventType>(type: K, handle: (event: EventOf<K>) => void): Emit {
  return (e) => {
    if (isOf(type, e)) handle(e);
  };
}

/** Every emit of a list, in order (a home that folds the stream in two places). */
export function fanOut(...emits: readonly Emit[]): Emit {
  return (e) => {
    for (const emit of emits) emit(e);
  };
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
