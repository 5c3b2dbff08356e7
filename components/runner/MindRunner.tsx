"use client";
// Runs one mind in this tab, or views it: a Web Lock per mind makes exactly
// one tab the runner; the others view, and one of them takes over when the
// runner's tab goes away. The runner hosts the mind's Web Worker and starts
// or stops it as the mind's `running` flag says (set from any tab).
import { useEffect, useRef, useState } from "react";
import { mindLockName, type FromWorker, type ToWorker } from "@/lib/protocol";
import { forgetRunner, updateRunner, type Role } from "./runner-store";

export function MindRunner({ mindId, shouldRun }: { mindId: string; shouldRun: boolean }) {
  const [role, setRole] = useState<Role>("pending");
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
        if (msg.type === "status") updateRunner(mindId, { status: msg.status });
        else if (msg.type === "partial") updateRunner(mindId, { partial: msg.text });
        else if (msg.type === "fatal") updateRunner(mindId, { fatal: msg.error, status: { state: "stopped", lastError: msg.error } });
      };
      w.onerror = (e) => updateRunner(mindId, { fatal: `The mind's worker failed: ${e.message || "unknown error"}` });
      worker.current = w;
      updateRunner(mindId, { role: "runner" });
      setRole("runner");
      // Hold the lock until this tab goes away (or the mind is forgotten).
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
  useEffect(() => {
    if (role !== "runner") return;
    if (shouldRun) {
      updateRunner(mindId, { fatal: null });
      send({ type: "start", mindId });
    } else {
      // "stopped" is shown when the worker says so: after the cut run's last step is written.
      send({ type: "stop" });
      updateRunner(mindId, { partial: "" });
    }
  }, [role, shouldRun, mindId]);

  return null;
}
