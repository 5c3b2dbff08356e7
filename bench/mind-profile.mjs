// CPU profiles of the mind's worker for bench/mind-probe (bench/mind takes its
// own through a bare client, mind-cdp.mjs): Chromium's Profiler over CDP,
// attached to the page's dedicated worker, and a summary of where the time
// went (self time by file and by function, per iteration of the window
// profiled, by source file when the build kept its source maps).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

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

/**
 * Where a frame of the built app's code comes from: its source file and line,
 * when the build kept source maps (`productionBrowserSourceMaps` in
 * next.config.ts, for a profiling build only) and the maps' reader (a
 * dependency of the build tools) is installed; otherwise its chunk.
 */
function sourceMapper() {
  let TraceMap = null;
  let originalPositionFor = null;
  try {
    ({ TraceMap, originalPositionFor } = createRequire(import.meta.url)("@jridgewell/trace-mapping"));
  } catch {
    return () => null;
  }
  const maps = new Map();
  const mapOf = (chunk) => {
    if (!maps.has(chunk)) {
      let map = null;
      try {
        const js = `.next/static/chunks/${chunk}`;
        const name = /sourceMappingURL=(\S+)/.exec(readFileSync(js, "utf8").slice(-300))?.[1];
        if (name && existsSync(`.next/static/chunks/${name}`)) map = new TraceMap(readFileSync(`.next/static/chunks/${name}`, "utf8"));
      } catch {
        map = null;
      }
      maps.set(chunk, map);
    }
    return maps.get(chunk);
  };
  return (f) => {
    const chunk = /\/_next\/static\/chunks\/([^?]+)/.exec(f.url)?.[1];
    const map = chunk && mapOf(chunk);
    if (!map) return null;
    const o = originalPositionFor(map, { line: f.lineNumber + 1, column: f.columnNumber });
    if (!o.source) return null;
    const file = o.source.replace(/^.*\[project\]\//, "").replace(/^.*node_modules\//, "node_modules/");
    return { file, fn: `${o.name ?? (f.functionName || "(anonymous)")}  ${file}:${o.line}` };
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
  const mapped = sourceMapper();
  for (const [id, us] of self) {
    const f = byId.get(id).callFrame;
    const source = mapped(f);
    const file = source?.file ?? (f.url || "(native)").replace(/^.*\/_next\//, "");
    const key = source?.fn ?? `${f.functionName || "(anonymous)"}  ${file}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
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
