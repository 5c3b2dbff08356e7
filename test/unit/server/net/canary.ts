// A canary server for the outbound guard's tests: node:http on 127.0.0.1,
// counting every connection it sees (a refused request must leave it at 0)
// and keeping every request it answered. Its routes: `/redirect` answers a
// 302 to `location`; `/hang` holds the request until it closes; `/stream`
// sends "first", then waits for `release()` before "second"; anything else
// answers `reply` (by default a JSON echo of the request).
import http from "node:http";

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Canary {
  port: number;
  /** Connections opened to it, ever. */
  connections: () => number;
  requests: Seen[];
  /** Sockets that closed (a request aborted mid-way closes its own). */
  closed: () => number;
  /** What each `/stream` answer so far waits for before its second chunk. */
  release: () => void;
  /** The answer to any other path; by default the request, as JSON. */
  reply: (req: Seen, res: http.ServerResponse) => void;
  close: () => Promise<void>;
}

export async function startCanary(): Promise<Canary> {
  let connections = 0;
  let closed = 0;
  /** The `/stream` answers waiting for their second chunk. */
  let waiting: (() => void)[] = [];
  const canary: Canary = {
    port: 0,
    connections: () => connections,
    closed: () => closed,
    requests: [],
    release: () => {
      for (const go of waiting) go();
      waiting = [];
    },
    reply: (seen, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(seen));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const seen = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      canary.requests.push(seen);
      if (seen.url === "/redirect") {
        res.writeHead(302, { location: String(req.headers["x-location"] ?? "/") });
        res.end();
      } else if (seen.url === "/hang") {
        // Held: the client's abort is what ends it.
      } else if (seen.url === "/stream") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("first\n");
        waiting.push(() => res.end("second\n"));
      } else canary.reply(seen, res);
    });
  });
  server.on("connection", (socket) => {
    connections++;
    socket.on("close", () => closed++);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the canary has no port");
  canary.port = address.port;
  // Held requests must not keep the server from closing.
  const close = canary.close;
  canary.close = () => {
    server.closeAllConnections();
    return close();
  };
  return canary;
}
