// The mind's Web Worker: receives start/stop from its page and reports status.
// All the wiring is in ./host; this file only speaks lib/protocol.
/// <reference lib="webworker" />
import type { FromWorker, ToWorker } from "../lib/protocol";
import { isRuntimeReply, RuntimeBridge } from "../lib/shell/webcontainer/bridge";
import { db } from "../lib/store/db";
import { runMind, type RunningMind } from "./host";

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (msg: FromWorker) => scope.postMessage(msg);

// The page's WebContainer, for node/npm/npx: one bridge for the worker's life, across restarts.
const runtime = new RuntimeBridge(post);

let running: Promise<RunningMind | null> | null = null;
let lastStatus: FromWorker | null = null;
let lastPartial = 0;

// Commands run one after another: a Start that arrives while a Stop is still
// winding the loop down must wait for it, not be dropped.
let queue: Promise<void> = Promise.resolve();
const enqueue = (task: () => Promise<void>) => {
  queue = queue.then(task, task);
};

scope.onmessage = (event: MessageEvent<ToWorker>) => {
  const msg = event.data;
  if (isRuntimeReply(msg)) {
    runtime.onMessage(msg);
  } else if (msg.type === "start") {
    enqueue(async () => {
      // Already running: one loop per worker at a time. Say where it is.
      if (running) {
        if (lastStatus) post(lastStatus);
        return;
      }
      running = start(msg.mindId);
      await running;
    });
  } else if (msg.type === "stop") {
    enqueue(async () => {
      await stop();
      post({ type: "status", status: { state: "stopped" } });
    });
  }
};

/** Settings changed (from this tab or another): stop, then start with the new ones. */
function restart(mindId: string): void {
  enqueue(async () => {
    if (!running) return;
    await stop();
    running = start(mindId);
    await running;
  });
}

async function stop(): Promise<void> {
  const mind = await running;
  await mind?.stop();
  running = null;
}

async function start(mindId: string): Promise<RunningMind | null> {
  post({ type: "status", status: { state: "starting" } });
  try {
    const mind = await runMind(db(), mindId, {
        onConfigChanged: () => restart(mindId),
        onStatus: (status) => {
          lastStatus = { type: "status", status };
          post(lastStatus);
        },
        onPartial: (text) => {
          // Streamed text at most ten times a second; the clearing "" always.
          const now = Date.now();
          if (text !== "" && now - lastPartial < 100) return;
          lastPartial = now;
          post({ type: "partial", text });
        },
      },
      { runtime },
    );
    return mind;
  } catch (e) {
    post({ type: "fatal", error: e instanceof Error ? e.message : String(e) });
    running = null;
    return null;
  }
}
