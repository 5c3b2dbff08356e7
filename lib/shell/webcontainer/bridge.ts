// The worker's side of the page's WebContainer: a RuntimePort over messages.
// The status is whatever the page last said; a spawn is a request answered by
// a result with the same id. The page always answers (also after a cancel,
// once the process is ended), but a page that says the runtime went off or
// unavailable ends every pending call, and a cancel that gets no answer in
// time ends its call too: a stopped block never hangs on the page.
import type { FromWorker, RuntimeStatusWire, SpawnRequestWire, SpawnResultWire, ToWorker } from "../../protocol";
import type { Clock } from "../../mind/ports";
import type { RuntimePort, RuntimeStatus, SpawnRequest, SpawnResult } from "../ports";
import { WEBCONTAINER_LIMITS } from "../limits";
import { lost, notRun } from "./results";
import { systemClock } from "../../system/system";

export type RuntimeRequestMessage = Extract<FromWorker, { type: "runtime-spawn" | "runtime-cancel" }>;
export type RuntimeReplyMessage = Extract<ToWorker, { type: "runtime-status" | "runtime-result" | "runtime-alive" }>;

/** Is this page message for the bridge? */
export function isRuntimeReply(msg: ToWorker): msg is RuntimeReplyMessage {
  return msg.type === "runtime-status" || msg.type === "runtime-result" || msg.type === "runtime-alive";
}

/** After a cancel, the page may need the kill grace and a whole re-boot to answer. */
export const CANCEL_ANSWER_MS = WEBCONTAINER_LIMITS.killGraceMs + WEBCONTAINER_LIMITS.bootTimeoutMs + 5_000;

export class RuntimeBridge implements RuntimePort {
  private current: RuntimeStatus = { state: "off" };
  private nextId = 1;
  private readonly pending = new Map<number, (result: SpawnResult) => void>();
  private readonly alive = new Map<number, () => void>();

  constructor(
    private readonly post: (msg: RuntimeRequestMessage) => void,
    private readonly clock: Pick<Clock, "sleep"> = systemClock,
  ) {}

  status(): RuntimeStatus {
    return this.current;
  }

  onMessage(msg: RuntimeReplyMessage): void {
    if (msg.type === "runtime-alive") {
      this.alive.get(msg.id)?.();
      return;
    }
    if (msg.type === "runtime-result") {
      this.pending.get(msg.id)?.(msg.result);
      return;
    }
    this.current = msg.status;
    const s = msg.status;
    if (s.state === "off" || s.state === "unavailable") {
      const why = s.state === "off" ? "WebContainer was switched off" : `the WebContainer became unavailable (${s.reason})`;
      for (const settle of [...this.pending.values()]) settle(lost(`${why}; nothing was copied back`));
    }
  }

  /** `onActivity`: called while the process prints (RuntimePort callers may leave it out). */
  spawn(req: SpawnRequest, signal: AbortSignal, onActivity?: () => void): Promise<SpawnResult> {
    if (this.current.state !== "ready") return Promise.resolve(notRun(`the WebContainer is ${this.current.state}`));
    if (signal.aborted) return Promise.resolve(notRun("the block was stopped first"));
    const id = this.nextId++;
    const done = new AbortController();
    return new Promise<SpawnResult>((resolve) => {
      if (onActivity) this.alive.set(id, onActivity);
      this.pending.set(id, (result) => {
        this.pending.delete(id);
        this.alive.delete(id);
        done.abort();
        resolve(result);
      });
      signal.addEventListener(
        "abort",
        () => {
          this.post({ type: "runtime-cancel", id });
          void this.clock.sleep(CANCEL_ANSWER_MS, done.signal).then(() => {
            this.pending.get(id)?.(lost(`the page did not answer within ${CANCEL_ANSWER_MS / 1000} s of the stop`));
          });
        },
        { once: true, signal: done.signal },
      );
      this.post({ type: "runtime-spawn", id, req });
    });
  }
}

// The wire types in lib/protocol must stay the port's types, both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Expect<T extends true> = T;
type _WireAgrees = Expect<Same<RuntimeStatusWire, RuntimeStatus> & Same<SpawnRequestWire, SpawnRequest> & Same<SpawnResultWire, SpawnResult>>;
