"use client";
// Runs one mind in this tab, or views it: a Web Lock per mind makes exactly
// one tab the runner; the others view, and one of them takes over when the
// runner's tab goes away. The runner starts the mind's Web Worker when the
// mind's `running` flag (set from any tab) asks for it, and stops it when not.
// A panic stop does not ask: it terminates the worker, then records why.
import { useCallback, useEffect, useRef, useState } from "react";
import { mindLockName, type FromWorker, type ToWorker } from "@/lib/protocol";
import { useMindControls } from "@/lib/store/hooks";
import { forgetRunner, offerPanic, runnerState, updateRunner, type Role } from "./runner-store";
import { linkWorkerRuntime, type RuntimeLink } from "./webcontainer-host";

interface Running {
  worker: Worker;
  /** The worker's line to the page's WebContainer (node, npm, npx). */
  runtime: RuntimeLink;
}

function spawnWorker(mindId: string): Running {
  const w = new Worker(new URL("../../workers/mind.worker.ts", import.meta.url), { type: "module", name: `mind-${mindId}` });
  const runtime = linkWorkerRuntime(mindId, (msg) => send(w, msg), (status) => updateRunner(mindId, { runtime: status }));
  w.onmessage = (e: MessageEvent<FromWorker>) => {
    const msg = e.data;
    if (runtime.onWorkerMessage(msg)) return;
    if (msg.type === "status") updateRunner(mindId, { status: msg.status });
    else if (msg.type === "partial") updateRunner(mindId, { partial: msg.text });
    else if (msg.type === "fatal") updateRunner(mindId, { fatal: msg.error, status: { state: "stopped", lastError: msg.error } });
  };
  w.onerror = (e) => updateRunner(mindId, { fatal: `The mind's worker failed: ${e.message || "unknown error"}` });
  return { worker: w, runtime };
}

const send = (w: Worker, msg: ToWorker) => w.postMessage(msg);

/**
 * `webcontainer`: the mind's permission for real Node (a WebContainer on this page).
 * `panicAt`: a panic stop asked for from another tab, not yet carried out.
 */
export function MindRunner({ mindId, shouldRun, webcontainer, panicAt }: { mindId: string; shouldRun: boolean; webcontainer: boolean; panicAt?: string }) {
  const [role, setRole] = useState<Role>("pending");
  const worker = useRef<Running | null>(null);
  const { recordPanic } = useMindControls(mindId);

  // End the worker at once (a hung block or model call goes with it), then
  // write the error step for the run it was in, and stop the mind.
  const panic = useCallback(() => {
    const running = worker.current;
    worker.current = null;
    running?.runtime.close();
    running?.worker.terminate();
    const status = runnerState(mindId).status;
    updateRunner(mindId, { status: { state: "stopped" }, partial: "" });
    recordPanic(status.state === "thinking" ? status.runId : undefined).catch((e: unknown) =>
      updateRunner(mindId, { fatal: `The worker was ended, but the panic stop could not be recorded: ${e instanceof Error ? e.message : String(e)}` }),
    );
  }, [mindId, recordPanic]);

  useEffect(() => (role === "runner" ? offerPanic(mindId, panic) : undefined), [role, mindId, panic]);

  useEffect(() => {
    const abort = new AbortController();
    let release: () => void = () => {};

    const hold = async () => {
      if (abort.signal.aborted) return;
      updateRunner(mindId, { role: "runner" });
      setRole("runner");
      // Hold the lock until this tab goes away (or the mind is forgotten).
      await new Promise<void>((resolve) => {
        release = resolve;
        abort.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      worker.current?.runtime.close();
      worker.current?.worker.terminate();
      worker.current = null;
    };

    if (!("locks" in navigator)) {
      // No Web Locks (very old browser): run, accepting that two tabs could both run.
      void hold();
    } else {
      const name = mindLockName(mindId);
      navigator.locks
        .request(name, { ifAvailable: true }, async (lock) => {
          if (lock) return hold();
          updateRunner(mindId, { role: "viewer", status: { state: "viewing" } });
          setRole("viewer");
          // Wait in line; take over when the runner's tab goes away.
          navigator.locks.request(name, { signal: abort.signal }, hold).catch(() => undefined);
        })
        .catch(() => undefined);
    }
    return () => {
      abort.abort();
      release();
      forgetRunner(mindId);
    };
  }, [mindId]);

  // The runner follows the `running` flag: its human's Start and Stop, from any tab.
  // A stopped mind has no worker at all; it is started on the first Start.
  const panicDone = useRef<string | null>(null);
  useEffect(() => {
    if (role !== "runner") return;
    if (panicAt) {
      // Asked from another tab (or before this tab took over): carried out once.
      if (panicDone.current !== panicAt) panic();
      panicDone.current = panicAt;
    } else if (shouldRun) {
      worker.current ??= spawnWorker(mindId);
      updateRunner(mindId, { fatal: null });
      send(worker.current.worker, { type: "start", mindId });
    } else if (worker.current) {
      // "stopped" is shown when the worker says so: after the cut run's last step is written.
      send(worker.current.worker, { type: "stop" });
      updateRunner(mindId, { partial: "" });
    } else {
      updateRunner(mindId, { status: { state: "stopped" } });
    }
  }, [role, shouldRun, mindId, panicAt, panic]);

  // Real Node follows the mind's permission, also while the worker lives (after the effect above made it).
  useEffect(() => {
    worker.current?.runtime.setEnabled(webcontainer);
  }, [webcontainer, role, shouldRun]);

  return null;
}
