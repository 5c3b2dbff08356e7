/**
 * FAKE — a proxy in front of the scripted model server that can cut a
 * streamed reply mid-way: it sends the SSE head and a few text chunks, then
 * destroys the socket (what a crashing server or a dropped connection does).
 * Everything else is passed through to the scripted server unchanged, so the
 * calls after the cut succeed. For tests only.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { ModelServer } from "../fixtures/model-server";

export interface CutStreamProxy {
  /** Base URL ending in /v1. */
  url: string;
  /** Cut the next `n` streamed inner-life calls (the responder's calls pass through). */
  cutNext(n?: number): void;
  /** How many streams were cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

const CORS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers": "*, authorization, content-type",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Cross-Origin-Resource-Policy": "cross-origin",
};

/** The text sent before the cut: a reply that has clearly started. */
export const CUT_TEXT = ["I was just about ", "to say something ", "important when"];

const readBody = (req: http.IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

/** A call from Reverie's responder thinker (its instructions ask for NO_REPLY). */
function isResponderBody(body: { messages?: unknown }): boolean {
  return Array.isArray(body.messages) && body.messages.some((m) => m && typeof m === "object" && (m as { role?: unknown }).role === "system" && JSON.stringify(m).includes("NO_REPLY"));
}

export function startCutStreamProxy(target: ModelServer): Promise<CutStreamProxy> {
  let pending = 0;
  let cuts = 0;
  const sockets = new Set<Socket>();

  const cut = async (res: http.ServerResponse) => {
    cuts++;
    res.writeHead(200, { ...CORS, "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive" });
    res.flushHeaders();
    const id = `chatcmpl-cut-${cuts}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: Record<string, unknown>) => `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: "scripted", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
    res.write(chunk({ role: "assistant", content: "" }));
    for (const piece of CUT_TEXT) {
      await new Promise((r) => setTimeout(r, 30));
      res.write(chunk({ content: piece }));
    }
    await new Promise((r) => setTimeout(r, 100));
    // No finish chunk, no [DONE], no end of the chunked body: the connection just drops.
    res.socket?.destroy();
  };

  const pass = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => {
    const upstream = http.request(
      { host: "127.0.0.1", port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${target.port}`, "content-length": String(body.length) } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    upstream.end(body);
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      if (req.method === "POST" && (req.url ?? "").replace(/\/+$/, "").endsWith("/v1/chat/completions") && pending > 0) {
        let parsed: { messages?: unknown; stream?: unknown } = {};
        try {
          parsed = JSON.parse(body.toString("utf8"));
        } catch {
          // not JSON: let the scripted server answer it
        }
        if (parsed.stream === true && !isResponderBody(parsed)) {
          pending--;
          await cut(res);
          return;
        }
      }
      pass(req, res, body);
    })().catch(() => res.destroy());
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        cutNext(n = 1) {
          pending += n;
        },
        get cuts() {
          return cuts;
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const s of sockets) s.destroy();
          }),
      });
    });
  });
}
