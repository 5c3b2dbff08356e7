// FAKE — for benchmarks only: the fastest OpenAI-compatible upstream we can
// write, so what is measured is the proxy, not the model. POST
// /v1/chat/completions answers at once: a fixed JSON completion, or (stream)
// three SSE chunks and a usage chunk. Not a model; never used outside bench/.
import { Buffer } from "node:buffer";
import http from "node:http";

const USAGE = { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 };

function completion(model) {
  return JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 0,
    model,
    choices: [{ index: 0, message: { role: "assistant", content: "A quick answer." }, finish_reason: "stop" }],
    usage: USAGE,
  });
}

function stream(model) {
  const chunk = (choices, extra = {}) => `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 0, model, choices, ...extra })}\n\n`;
  return (
    chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]) +
    chunk([{ index: 0, delta: { content: "A quick " }, finish_reason: null }]) +
    chunk([{ index: 0, delta: { content: "answer." }, finish_reason: null }]) +
    chunk([{ index: 0, delta: {}, finish_reason: "stop" }]) +
    chunk([], { usage: USAGE }) +
    "data: [DONE]\n\n"
  );
}

/** Starts on a free loopback port; resolves to { url (…/v1), close() }. */
export function startFakeUpstream() {
  const server = http.createServer((req, res) => {
    if (req.method !== "POST" || !req.url?.startsWith("/v1/chat/completions")) {
      res.writeHead(404).end();
      return;
    }
    const parts = [];
    req.on("data", (c) => parts.push(c));
    req.on("end", () => {
      let body;
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8"));
      } catch {
        res.writeHead(400, { "Content-Type": "application/json" }).end('{"error":{"message":"bad json"}}');
        return;
      }
      if (body.stream) {
        res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
        res.end(stream(body.model));
      } else {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(completion(body.model));
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        close: () => new Promise((done) => { server.closeAllConnections(); server.close(() => done()); }),
      });
    });
  });
}
