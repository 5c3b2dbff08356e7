// The mind's Web Worker: receives start/stop from its page and folds the mind's
// events into what the page hears. The mind's home is lib/home/tab.ts; this
// file only speaks lib/protocol.
/// <reference lib="webworker" />
import type { FromWorker, MindStatus, ToWorker, WorkerLogLevel } from "../lib/protocol";
import { isRuntimeReply, RuntimeBridge } from "../lib/shell/webcontainer/bridge";
import { loadO200k } from "../lib/context/tokens";
import { ReverieDb } from "../lib/store/db/db";
import { runMind, type RunningMind } from "../lib/home/tab";
import type { MindEvent } from "../lib/mind/events";
import { partialReporter } from "./partial";

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (msg: FromWorker) => scope.postMessage(msg);
/** One line for the page's recent log (what a bug report carries). */
const log = (level: WorkerLogLevel, text: string) => post({ type: "log", level, text });

// The token counter's table, asked for as the worker loads: it comes while the page takes the mind's lease (a failure is
// said when the mind starts, which asks again).
void loadO200k((path) => fetch(path)).catch(() => undefined);

// The page's WebContainer, for node/npm/npx: one bridge for the worker's life, across restarts.
const runtime = new RuntimeBridge(post);

// The worker writes every step of the mind. Dexie's liveQuery cache would
// replay each write into every cached query of the store's watch (one per
// change, each kept for 3 s): ~25 ms of the worker's time per iteration.
const database = new ReverieDb("reverie", { cache: "disabled" });

let running: Promise<RunningMind | null> | null = null;
let lastStatus: FromWorker | null = null;
let statusAt = 0;
let statusTimer: ReturnType<typeof setTimeout> | null = null;

// Each report re-renders the mind's page (a commit and a frame). A run
// reports every iteration: four a second are enough for the page (the last
// one always goes); a change of state goes at once. A report held back waits
// on one timer, which posts whatever is newest when it fires: re-arming it
// for each iteration cost the worker two timer calls per model call.
const REPORT_MS = 250;
function postStatus(status: MindStatus): void {
  const sameState = lastStatus?.type === "status" && lastStatus.status.state === "thinking" && status.state === "thinking";
  lastStatus = { type: "status", status };
  if (sameState && statusTimer) return;
  if (statusTimer) clearTimeout(statusTimer);
  statusTimer = null;
  const wait = statusAt + REPORT_MS - Date.now();
  if (sameState && wait > 0) {
    statusTimer = setTimeout(() => {
      statusTimer = null;
      statusAt = Date.now();
      if (lastStatus) post(lastStatus);
    }, wait);
    return;
  }
  statusAt = Date.now();
  post(lastStatus);
}

// The reply as it streams in: at most four times a second, and not for a reply that is over at once (./partial).
const onPartial = partialReporter((text) => post({ type: "partial", text }), REPORT_MS);

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
      postStatus({ state: "stopped" });
    });
  }
};

/** The mind's events, as its page hears them. */
function fold(mindId: string, e: MindEvent): void {
  if (e.type === "status") postStatus(e.status);
  else if (e.type === "partial") onPartial(e.text);
  // Settings changed (from this tab or another): run again with them.
  else if (e.type === "settings-changed") restart(mindId);
  else if (e.type === "record-error") log("warn", `could not record what a model call saw: ${e.error}`);
}

/** Settings changed (from this tab or another): stop, then start with the new ones. */
function restart(mindId: string): void {
  enqueue(async () => {
    if (!running) return;
    log("info", "settings changed: restarting the mind with them");
    await stop();
    running = start(mindId);
    await running;
  });
}

async function stop(): Promise<void> {
  const mind = await running;
  if (mind) log("info", "stopping the mind");
  await mind?.stop();
  running = null;
}

async function start(mindId: string): Promise<RunningMind | null> {
  postStatus({ state: "starting" });
  log("info", "starting the mind");
  try {
    const mind = await runMind(database, mindId, (e) => fold(mindId, e), { runtime });
    log("info", "the mind is running");
    return mind;
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    log("error", `could not start the mind: ${error}`);
    post({ type: "fatal", error });
    running = null;
    return null;
  }
}
