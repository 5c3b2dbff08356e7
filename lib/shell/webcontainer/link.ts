// The page's side of one mind's worker: tells the worker the runtime's
// status (as the mind's permission and the page allow it) and answers its
// runtime-spawn / runtime-cancel messages, each spawn under the mind's
// network allow-list as the page last heard it (none until it hears one).
// Pure over the runtime, a clock and whether the page is cross-origin
// isolated, so tests wire it to a fake.
import type { FromWorker } from "../../protocol";
import type { RuntimeStatus } from "../ports";
import type { RuntimeReplyMessage } from "./bridge";
import { notRun } from "./results";
import type { WebContainerRuntime } from "./runtime";

/** Output is a sign of life for the worker's watchdog; about once a second is plenty. */
const ALIVE_EVERY_MS = 1000;

const NOT_ISOLATED: RuntimeStatus = { state: "unavailable", reason: "this page is not cross-origin isolated" };

export interface RuntimeLink {
  /** The mind's permission, as it is now (it can change while the worker lives). */
  setEnabled(on: boolean): void;
  /** The mind's network allow-list, as it is now (empty: no network for node, npm, npx). */
  setNetwork(allow: readonly string[]): void;
  /** A message from the worker: true if it was one of the runtime's. */
  onWorkerMessage(msg: FromWorker): boolean;
  close(): void;
}

export interface LinkOptions {
  runtime: () => WebContainerRuntime;
  /** The mind's folder in the shared container. */
  space: string;
  post: (msg: RuntimeReplyMessage) => void;
  /** Told what the worker is told, for the page to show. */
  onStatus: (status: RuntimeStatus) => void;
  isolated: () => boolean;
  now: () => number;
}

export function linkRuntime(opts: LinkOptions): RuntimeLink {
  let enabled = false;
  let allow: readonly string[] = [];
  let unsubscribe: () => void = () => {};
  const running = new Map<number, AbortController>();
  const tell = (status: RuntimeStatus) => {
    opts.post({ type: "runtime-status", status });
    opts.onStatus(status);
  };
  // A new worker's sync starts from nothing: its first request lists the whole workspace.
  opts.runtime().forget(opts.space);

  function setEnabled(on: boolean): void {
    if (on === enabled) return;
    enabled = on;
    unsubscribe();
    unsubscribe = () => {};
    if (!on) {
      for (const c of running.values()) c.abort();
      return tell({ state: "off" });
    }
    if (!opts.isolated()) return tell(NOT_ISOLATED);
    const rt = opts.runtime();
    // boot() says "booting" at once (or nothing, when the container is up): tell that, then follow.
    void rt.boot();
    tell(rt.status());
    unsubscribe = rt.subscribe(tell);
  }

  async function spawn(id: number, req: Extract<FromWorker, { type: "runtime-spawn" }>["req"]): Promise<void> {
    const controller = new AbortController();
    running.set(id, controller);
    let lastAlive = -Infinity;
    const onOutput = () => {
      if (opts.now() - lastAlive < ALIVE_EVERY_MS) return;
      lastAlive = opts.now();
      opts.post({ type: "runtime-alive", id });
    };
    const result =
      enabled && opts.isolated()
        ? await opts.runtime().spawn(req, controller.signal, { space: opts.space, allow, onOutput })
        : notRun("WebContainer is off for this mind");
    running.delete(id);
    opts.post({ type: "runtime-result", id, result });
  }

  return {
    setEnabled,
    setNetwork(list) {
      allow = [...list];
    },
    onWorkerMessage(msg) {
      if (msg.type === "runtime-spawn") void spawn(msg.id, msg.req);
      else if (msg.type === "runtime-cancel") running.get(msg.id)?.abort();
      else return false;
      return true;
    },
    close() {
      unsubscribe();
      for (const c of running.values()) c.abort();
    },
  };
}
