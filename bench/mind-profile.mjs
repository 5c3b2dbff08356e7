// CPU profiles of the mind's worker for bench/mind and bench/mind-probe:
// Chromium's Profiler over CDP, attached to the page's dedicated worker, and a
// summary of where the time went (self time by file and by function, per
// iteration of the window profiled).
import { mkdirSync, writeFileSync } from "node:fs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Samples are taken every 200 µs; one that stands for more than 10 ms of time is a stall of the sampler. */
const MAX_SAMPLE_US = 10_000;

/** A profiler on the page's (first) worker: `start()`, then `stop()` resolves with the profile. */
export async function workerProfiler(context, page) {
  const cdp = await context.newCDPSession(page);
  let next = 1;
  const waiting = new Map();
  let sessionId = null;
  cdp.on("Target.attachedToTarget", (e) => {
    if (e.targetInfo.type === "worker") sessionId = e.sessionId;
  });
  cdp.on("Target.receivedMessageFromTarget", (e) => {
    const msg = JSON.parse(e.message);
    waiting.get(msg.id)?.(msg);
  });
  await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  for (let i = 0; i < 50 && !sessionId; i++) await sleep(100);
  if (!sessionId) throw new Error("could not attach to the worker");
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      void cdp.send("Target.sendMessageToTarget", { sessionId, message: JSON.stringify({ id, method, params }) });
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 200 });
  return {
    start: () => send("Profiler.start"),
    stop: async () => (await send("Profiler.stop")).result.profile,
  };
}

/** A profiler on the page's own main thread (what it does per appended step while it shows the stream). */
export async function pageProfiler(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  return {
    start: () => cdp.send("Profiler.start"),
    stop: async () => (await cdp.send("Profiler.stop")).profile,
  };
}

/** Print self time by file and by function, per iteration; the raw profile goes to bench/results/mind-<what>.cpuprofile. */
export function summarize(what, profile, iterations, lines = 30) {
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(`bench/results/mind-${what}.cpuprofile`, JSON.stringify(profile));
  const { nodes, samples, timeDeltas } = profile;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const self = new Map();
  // A sample stands for the time since the one before it; on a loaded machine the sampler itself
  // can stall for a second, and that whole gap would land on whatever function the next sample
  // caught. Such gaps count as "(profiler gap)", not as that function's time.
  const gap = { id: -1, callFrame: { functionName: "(profiler gap)", url: "", lineNumber: -1, columnNumber: -1 } };
  byId.set(gap.id, gap);
  samples.forEach((id, i) => {
    const us = timeDeltas[i] ?? 0;
    const at = us > MAX_SAMPLE_US ? gap.id : id;
    self.set(at, (self.get(at) ?? 0) + us);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fnTime = new Map();
  const fileTime = new Map();
  for (const [id, us] of self) {
    const f = byId.get(id).callFrame;
    const file = (f.url || "(native)").replace(/^.*\/_next\//, "");
    const key = `${f.functionName || "(anonymous)"}  ${file}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
    fnTime.set(key, (fnTime.get(key) ?? 0) + us);
    fileTime.set(file, (fileTime.get(file) ?? 0) + us);
  }
  const top = (m, k) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000 / iterations).toFixed(2).padStart(6)} ms/iter  ${name}`);
  console.log(`\n${what} CPU profile: ${(total / 1000).toFixed(0)} ms over ${iterations} iterations (${(total / 1000 / iterations).toFixed(2)} ms/iter, idle included)`);
  console.log(top(fileTime, 8).join("\n"));
  console.log("");
  console.log(top(fnTime, lines).join("\n"));
}
