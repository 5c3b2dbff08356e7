"use client";
// Decides whether this tab runs the mind or views it: a Web Lock per mind
// makes exactly one tab the runner; the others view, and one of them takes
// over when the runner goes away. The runner hosts the mind's Web Worker.
import { useCallback, useEffect, useRef, useState } from "react";
import { mindLockName, type FromWorker, type MindStatus, type ToWorker } from "@/lib/protocol";
import { db } from "@/lib/store/db";
import { setRunning } from "@/lib/store/minds";

export type Role = "pending" | "runner" | "viewer";

export interface MindRunner {
  role: Role;
  status: MindStatus;
  /** The model's reply as it streams in. */
  partial: string;
  /** Why the mind could not run at all, if so. */
  fatal: string | null;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function useMindRunner(mindId: string, shouldRun: boolean | undefined): MindRunner {
  const [role, setRole] = useState<Role>("pending");
  const [status, setStatus] = useState<MindStatus>({ state: "starting" });
  const [partial, setPartial] = useState("");
  const [fatal, setFatal] = useState<string | null>(null);
  const worker = useRef<Worker | null>(null);

  const send = (msg: ToWorker) => worker.current?.postMessage(msg);

  useEffect(() => {
    const abort = new AbortController();
    let release: () => void = () => {};

    const hold = async () => {
      if (abort.signal.aborted) return;
      const w = new Worker(new URL("../../workers/mind.worker.ts", import.meta.url), { type: "module", name: `mind-${mindId}` });
      w.onmessage = (e: MessageEvent<FromWorker>) => {
        const msg = e.data;
        if (msg.type === "status") setStatus(msg.status);
        else if (msg.type === "partial") setPartial(msg.text);
        else if (msg.type === "fatal") setFatal(msg.error);
      };
      w.onerror = (e) => setFatal(`The mind's worker failed: ${e.message || "unknown error"}`);
      worker.current = w;
      setRole("runner");
      // Hold the lock until this tab leaves the page.
      await new Promise<void>((resolve) => {
        release = resolve;
        abort.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      w.terminate();
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
          setRole("viewer");
          setStatus({ state: "viewing" });
          // Wait in line; take over when the runner's tab goes away.
          navigator.locks.request(name, { signal: abort.signal }, hold).catch(() => undefined);
        })
        .catch(() => undefined);
    }
    return () => {
      abort.abort();
      release();
    };
  }, [mindId]);

  // Once this tab runs the mind, start it if its human left it running.
  useEffect(() => {
    if (role !== "runner" || shouldRun === undefined) return;
    if (shouldRun) send({ type: "start", mindId });
    else setStatus({ state: "stopped" });
  }, [role, shouldRun, mindId]);

  const start = useCallback(async () => {
    setFatal(null);
    await setRunning(db(), mindId, true);
  }, [mindId]);

  const stop = useCallback(async () => {
    send({ type: "stop" });
    await setRunning(db(), mindId, false);
  }, [mindId]);

  return { role, status, partial, fatal, start, stop };
}
