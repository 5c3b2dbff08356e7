/* global Buffer, clearTimeout */
// For bench/mind: what one model call costs Chromium itself, with no mind in
// the way. A page on one origin starts a dedicated worker that POSTs a body
// of the mind's size to the instant model (bench/mind-model.mjs: the same
// server, on another origin, as a mind's worker calls its model: CORS, the
// preflight cached) and reads the streamed answer whole, again and again; the
// model answers at once, as it answers the mind, one piece or chunked as it
// is asked (`?floor=<chunk>`), and keeps these calls apart from the mind's.
// With several chunk sizes, the calls go in blocks of ten, each size in turn.
// The page reports back by POST, so the browser can run it with no DevTools
// client attached. What this prints is a floor: no harness can call a model
// from this browser faster than this.
import http from "node:http";

const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers": "authorization, content-type",
  "Access-Control-Allow-Methods": "POST, OPTIONS",
  "Access-Control-Max-Age": "7200",
};

// Runs in the worker: `n` calls of each chunk size, in blocks of `block`, each timed from fetch() to the answer read whole.
function workerLoop({ url, bodyChars, n, chunks, block }) {
  const body = JSON.stringify({ model: "instant", messages: [{ role: "user", content: "x".repeat(bodyChars) }], stream: true, stream_options: { include_usage: true } });
  const headers = { "content-type": "application/json", authorization: "Bearer floor" };
  return (async () => {
    const ms = Object.fromEntries(chunks.map((c) => [c, []]));
    // The first few open the connection and fill the preflight cache.
    for (let i = 0; i < 5; i++) await (await fetch(`${url}?floor=${chunks[0]}`, { method: "POST", headers, body })).text();
    for (let done = 0; done < n; done += block) {
      for (const c of chunks) {
        for (let i = 0; i < Math.min(block, n - done); i++) {
          const t = performance.now();
          await (await fetch(`${url}?floor=${c}`, { method: "POST", headers, body })).text();
          ms[c].push(performance.now() - t);
        }
      }
    }
    return ms;
  })();
}

/** The page's title once its worker runs: detach only then (a worker starting while DevTools detaches can stay paused for a debugger that has gone). */
export const STARTED = "fetch floor: running";

const page = (job) => `<!doctype html><meta charset="utf-8"><title>fetch floor</title><script>
const STARTED = ${JSON.stringify(STARTED)};
const src = "onmessage = async (e) => { postMessage('started'); postMessage(await (" + ${JSON.stringify(workerLoop.toString())} + ")(e.data)); };";
const w = new Worker(URL.createObjectURL(new Blob([src], { type: "text/javascript" })));
w.onmessage = (e) => (e.data === "started" ? (document.title = STARTED) : fetch("/floor-result", { method: "POST", body: JSON.stringify(e.data) }));
w.postMessage(${JSON.stringify(job)});
</script>`;

/**
 * A server for one floor measurement. `url(modelUrl, bodyChars, n, chunks)` is
 * the page to open (on localhost; it calls the model on 127.0.0.1: another
 * origin); `result` resolves with the n round trips of each chunk size, ms
 * (`{ [chunk]: ms[] }`).
 */
export async function startFetchFloor() {
  let report;
  let fail;
  const result = new Promise((resolve, reject) => ((report = resolve), (fail = reject)));
  // A hung measurement ends the bench with a reason, not a silent wait.
  const limit = setTimeout(() => fail(new Error("the fetch floor sent no result within 5 minutes")), 300_000);
  let job = null;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "OPTIONS") return void res.writeHead(204, CORS).end();
      if (req.url === "/floor") return void res.writeHead(200, { "Content-Type": "text/html" }).end(page(job));
      if (req.url === "/floor-result") {
        report(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        return void res.writeHead(204).end();
      }
      res.writeHead(404, CORS).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return {
    url(modelUrl, bodyChars, n, chunks = [0]) {
      job = { url: `${modelUrl}/chat/completions`, bodyChars, n, chunks, block: 10 };
      return `http://localhost:${port}/floor`;
    },
    result,
    close: () =>
      new Promise((done) => {
        clearTimeout(limit);
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
