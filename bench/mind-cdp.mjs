// A bare DevTools Protocol client for bench/mind's profiles: one WebSocket to
// the browser, sessions flattened, and only the domains asked for. Playwright,
// attached, keeps the Network domain on in the page and the mind's worker,
// which reports every model call with its body on the worker's thread; a
// profile taken through it shows that cost as the mind's. Through this client
// the profiled windows run as the measured ones do, with no Network domain.
import { createRequire } from "node:module";

// playwright-core ships the ws client it uses itself (Node 20 has no WebSocket without a flag).
const { ws: WebSocket } = createRequire(import.meta.url)("playwright-core/lib/utilsBundle");

/** Connect to a browser's DevTools endpoint: `send(method, params, sessionId)`, `on(event, listener)`, `close()`. */
export function connectCdp(endpoint) {
  const socket = new WebSocket(endpoint, { perMessageDeflate: false, maxPayload: 1 << 30 });
  let next = 1;
  const waiting = new Map();
  const listeners = new Map();
  socket.on("message", (data) => {
    const msg = JSON.parse(data.toString());
    if (msg.id !== undefined) {
      const w = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (msg.error) w?.reject(new Error(`${w.method}: ${msg.error.message}`));
      else w?.resolve(msg.result);
      return;
    }
    for (const l of listeners.get(msg.method) ?? []) l(msg.params, msg.sessionId);
  });
  const open = new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  return open.then(() => ({
    send: (method, params = {}, sessionId) =>
      new Promise((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve, reject, method });
        socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
      }),
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event).add(listener);
    },
    close: () =>
      new Promise((resolve) => {
        socket.once("close", resolve);
        socket.close();
      }),
  }));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * CPU profiles of the browser's one app page and its dedicated worker (the
 * mind's), sampled every 200 µs, through a bare client: `start()`, then
 * `stop()` resolves with `{ worker, page }` and lets go of both.
 */
export async function bareProfilers(endpoint, { pageUrl = /./ } = {}) {
  const cdp = await connectCdp(endpoint);
  const { targetInfos } = await cdp.send("Target.getTargets");
  const target = targetInfos.find((t) => t.type === "page" && pageUrl.test(t.url));
  if (!target) throw new Error(`no page to profile (pages: ${targetInfos.map((t) => t.url).join(", ")})`);
  const { sessionId: pageSession } = await cdp.send("Target.attachToTarget", { targetId: target.targetId, flatten: true });
  let workerSession = null;
  cdp.on("Target.attachedToTarget", (e, parent) => {
    if (parent === pageSession && e.targetInfo.type === "worker") workerSession ??= e.sessionId;
  });
  await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, pageSession);
  for (let i = 0; i < 50 && !workerSession; i++) await sleep(100);
  if (!workerSession) throw new Error("could not attach to the mind's worker");
  const sessions = { worker: workerSession, page: pageSession };
  for (const s of Object.values(sessions)) {
    await cdp.send("Profiler.enable", {}, s);
    await cdp.send("Profiler.setSamplingInterval", { interval: 200 }, s);
  }
  return {
    start: async () => {
      for (const s of Object.values(sessions)) await cdp.send("Profiler.start", {}, s);
    },
    stop: async () => {
      const out = {};
      for (const [name, s] of Object.entries(sessions)) out[name] = (await cdp.send("Profiler.stop", {}, s)).profile;
      await cdp.send("Target.detachFromTarget", { sessionId: pageSession }).catch(() => undefined);
      await cdp.close();
      return out;
    },
  };
}
