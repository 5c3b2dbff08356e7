// The mind's Web Worker: receives start/stop from its page and reports status.
// All the wiring is in ./host; this file only speaks lib/protocol.
/// <reference lib="webworker" />
import type { FromWorker, ToWorker } from "../lib/protocol";
import { db } from "../lib/store/db";
import { runMind, type RunningMind } from "./host";

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (msg: FromWorker) => scope.postMessage(msg);

let running: RunningMind | null = null;
let lastPartial = 0;

scope.onmessage = async (event: MessageEvent<ToWorker>) => {
  const msg = event.data;
  if (msg.type === "start") {
    if (running) return;
    post({ type: "status", status: { state: "starting" } });
    try {
      running = await runMind(db(), msg.mindId, {
        onStatus: (status) => post({ type: "status", status }),
        onPartial: (text) => {
          // Streamed text at most ten times a second; the clearing "" always.
          const now = Date.now();
          if (text !== "" && now - lastPartial < 100) return;
          lastPartial = now;
          post({ type: "partial", text });
        },
      });
      void running.done.finally(() => {
        running = null;
      });
    } catch (e) {
      post({ type: "fatal", error: e instanceof Error ? e.message : String(e) });
    }
  } else if (msg.type === "stop") {
    await running?.stop();
    running = null;
    post({ type: "status", status: { state: "stopped" } });
  }
};
