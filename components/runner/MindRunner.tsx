"use client";
// Runs one mind in this tab, or views it: a Web Lock per mind makes exactly
// one tab the runner; the others view, and one of them takes over when the
// runner's tab goes away. The runner starts the mind's Web Worker when the
// mind's `running` flag (set from any tab) asks for it, and stops it when not.
// A panic stop does not ask: it terminates the worker, then records why.
import { useCallback, useEffect, useRef, useState } from "react";
import { mindLockName, type FromWorker, type ToWorker } from "@/lib/protocol";
import { useMindControls } from "@/lib/store/view/hooks";
import { keepMindHome, type HomeKeeper } from "@/lib/store/view/hooks-home";
import type { MindStatus } from "@/lib/protocol";
import { forgetRunner, logRunner, offerPanic, runnerState, updateRunner, type Role } from "./runner-store";
import { linkWorkerRuntime, type RuntimeLink } from "./webcontainer-host";

interface Running {
  worker: Worker;
  /** The worker's line to the page's WebContainer (node, npm, npx). */
  runtime: RuntimeLink;
}

/** A status as one log line; null when it only moves on within the same state (the next iteration, a new countdown). */
function statusLine(status: MindStatus, before: MindStatus): string | null {
  const errorOf = (s: MindStatus) => ("lastError" in s ? s.lastError : undefined);
  const runOf = (s: MindStatus) => (s.state === "thinking" ? s.runId : undefined);
  if (status.state === before.state && runOf(status) === runOf(before) && errorOf(status) === errorOf(before)) return null;
  const parts: string[] = [status.state];
  if (status.state === "thinking" && status.runId) parts.push(`run ${status.runId.slice(0, 8)}`);
  if (status.state === "waiting") parts.push(`level ${status.level}, next wake in ${Math.max(0, Math.round((status.nextWakeAt - Date.now()) / 1000))} s`);
  if (status.state === "paused") parts.push(`${status.scope} cap ${status.cap} (${status.limitUsd} USD)`);
  const error = errorOf(status);
  if (error) parts.push(`last error: ${error}`);
  return `status: ${parts.join(", ")}`;
}

function spawnWorker(mindId: string): Running {
  const w = new Worker(new URL("../../workers/mind.worker.ts", import.meta.url), { type: "module", name: `mind-${mindId}` });
  logRunner(mindId, { level: "info", from: "runner", text: "worker started" });
  const runtime = linkWorkerRuntime(mindId, (msg) => send(w, msg), (status) => {
    updateRunner(mindId, { runtime: status });
    logRunner(mindId, { level: status.state === "unavailable" ? "warn" : "info", from: "runner", text: `real Node: ${status.state}${status.state === "unavailable" ? ` (${status.reason})` : ""}` });
  });
  w.onmessage = (e: MessageEvent<FromWorker>) => {
    const msg = e.data;
    if (runtime.onWorkerMessage(msg)) return;
    if (msg.type === "status") {
      const line = statusLine(msg.status, runnerState(mindId).status);
      if (line) logRunner(mindId, { level: "lastError" in msg.status && msg.status.lastError ? "warn" : "info", from: "worker", text: line });
      updateRunner(mindId, { status: msg.status });
    } else if (msg.type === "partial") updateRunner(mindId, { partial: msg.text });
    else if (msg.type === "log") logRunner(mindId, { level: msg.level, from: "worker", text: msg.text });
    else if (msg.type === "fatal") {
      logRunner(mindId, { level: "error", from: "worker", text: `fatal: ${msg.error}` });
      updateRunner(mindId, { fatal: msg.error, status: { state: "stopped", lastError: msg.error } });
    }
  };
  w.onerror = (e) => {
    const fatal = `The mind's worker failed: ${e.message || "unknown error"}`;
    logRunner(mindId, { level: "error", from: "runner", text: `${fatal}${e.filename ? ` (${e.filename}:${e.lineno}:${e.colno})` : ""}` });
    updateRunner(mindId, { fatal });
  };
  w.onmessageerror = () => logRunner(mindId, { level: "error", from: "runner", text: "a message from the worker could not be read (messageerror)" });
  return { worker: w, runtime };
}

const send = (w: Worker, msg: ToWorker) => w.postMessage(msg);

/**
 * `webcontainer`: the mind's permission for real Node (a WebContainer on this page).
 * `networkAllow`: the mind's network allow-list, which node, npm and npx keep to there.
 * `panicAt`: a panic stop asked for from another tab, not yet carried out.
 */
export function MindRunner({ mindId, shouldRun, webcontainer, networkAllow, panicAt }: { mindId: string; shouldRun: boolean; webcontainer: boolean; networkAllow: readonly string[]; panicAt?: string }) {
  const [role, setRole] = useState<Role>("pending");
  const worker = useRef<Running | null>(null);
  /** This tab's claim on the mind's lease (a synced mind its server can keep alive): the worker starts once it holds it. */
  const home = useRef<HomeKeeper | null>(null);
  /** Whether the mind should be running here now (Start, not Stop); read when the lease comes (back). */
  const wanted = useRef(false);
  const { recordPanic, appendWaiting } = useMindControls(mindId);

  const startWorker = useCallback(() => {
    if (!wanted.current) return;
    worker.current ??= spawnWorker(mindId);
    updateRunner(mindId, { fatal: null });
    logRunner(mindId, { level: "info", from: "runner", text: "start sent" });
    send(worker.current.worker, { type: "start", mindId });
  }, [mindId]);

  // End the worker at once (a hung block or model call goes with it), then
  // write the error step for the run it was in, and stop the mind.
  const panic = useCallback(() => {
    const running = worker.current;
    worker.current = null;
    logRunner(mindId, { level: "warn", from: "runner", text: "panic stop: worker terminated" });
    running?.runtime.close();
    running?.worker.terminate();
    // On the server too: a runner must not take over when this tab's lease lapses.
    void home.current?.halt(true);
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
      home.current = keepMindHome(
        mindId,
        {
          onWhere: (where) => {
            updateRunner(mindId, { home: where });
            if (where.where === "this-tab" || where.where === "local") startWorker();
          },
          onDigest: (digest, extra) => updateRunner(mindId, { away: { digest, setAside: extra.setAside } }),
          onLost: () => {
            // Another home may write the mind now (its lease was taken, or lapses unrenewed, or keep-alive came on while it ran here
            // without one): this tab's loop stops at once (what it would write is fenced anyway).
            logRunner(mindId, { level: "warn", from: "runner", text: "this tab no longer holds the mind's lease (taken by another home, lapsing unrenewed, or not taken yet): it stops running it" });
            worker.current?.runtime.close();
            worker.current?.worker.terminate();
            worker.current = null;
            updateRunner(mindId, { status: { state: "stopped" }, partial: "" });
          },
          onError: (message) => {
            logRunner(mindId, { level: "warn", from: "runner", text: message });
            console.warn(`reverie: ${message}`);
          },
        },
        abort.signal,
      );
      updateRunner(mindId, { role: "runner" });
      logRunner(mindId, { level: "info", from: "runner", text: "this tab runs the mind" });
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
          logRunner(mindId, { level: "info", from: "runner", text: "another tab runs the mind; this one views" });
          setRole("viewer");
          // Wait in line; take over when the runner's tab goes away.
          navigator.locks.request(name, { signal: abort.signal }, hold).catch(() => undefined);
        })
        .catch(() => undefined);
    }
    return () => {
      abort.abort();
      release();
      home.current = null;
      forgetRunner(mindId);
    };
  }, [mindId, startWorker]);

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
      wanted.current = true;
      const keeper = home.current;
      if (!keeper) startWorker();
      else {
        // Started (again) here: the server may run it too when this tab goes. The worker starts once this tab holds the mind;
        // it is made now, so its code loads while the lease is taken and what the server wrote is pulled.
        void keeper.halt(false);
        worker.current ??= spawnWorker(mindId);
        void keeper.ready().then(startWorker);
      }
    } else if (worker.current) {
      wanted.current = false;
      void home.current?.halt(true);
      // "stopped" is shown when the worker says so: after the cut run's last step is written.
      send(worker.current.worker, { type: "stop" });
      logRunner(mindId, { level: "info", from: "runner", text: "stop sent" });
      updateRunner(mindId, { partial: "" });
    } else {
      wanted.current = false;
      // Stopped with no worker here: nothing will take what was handed in at its door (an operator's pause recorded as it stopped).
      void appendWaiting().catch(() => undefined);
      updateRunner(mindId, { status: { state: "stopped" } });
    }
  }, [role, shouldRun, mindId, panicAt, panic, startWorker, appendWaiting]);

  // Real Node follows the mind's permissions, also while the worker lives (after the effect above made it).
  // The list by its text: a new read of the same settings is not a change.
  const allowText = networkAllow.join("\n");
  useEffect(() => {
    worker.current?.runtime.setNetwork(allowText ? allowText.split("\n") : []);
    worker.current?.runtime.setEnabled(webcontainer);
  }, [webcontainer, allowText, role, shouldRun]);

  return null;
}
