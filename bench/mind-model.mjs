/* global Buffer */
// An instant scripted model for bench/mind: OpenAI-compatible streaming chat
// completions that answer at once with a tiny bash block that never sets
// FINAL (`: <n>`, n counting the calls, so no two replies are the same and the
// loop-breaker stays quiet). It records when each call arrived and when its
// answer was sent, on this process's performance.now() clock.
import http from "node:http";

const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers": "*, authorization, content-type",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Private-Network": "true",
  "Access-Control-Max-Age": "7200",
  "Cross-Origin-Resource-Policy": "cross-origin",
};

/** The reply to call n; its command is `: n`, which is how the bench finds the call's steps. */
export const replyText = (n) => `x\n\n\`\`\`bash\n: ${n}\n\`\`\``;

/** @returns {Promise<{ url: string, calls: { n: number, at: number, sent: number, promptChars: number }[], preflights: number, close(): Promise<void> }>} */
export function startInstantModel() {
  const calls = [];
  let preflights = 0;
  const server = http.createServer((req, res) => {
    const at = performance.now();
    if (req.method === "OPTIONS") {
      preflights++;
      res.writeHead(204, CORS);
      res.end();
      return;
    }
    if (req.method !== "POST" || !req.url?.startsWith("/v1/chat/completions")) {
      res.writeHead(404, { ...CORS, "Content-Type": "application/json" });
      res.end('{"error":{"message":"not found"}}');
      return;
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const n = calls.length + 1;
      const text = replyText(n);
      const base = { id: `b-${n}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model };
      const data = (choices, extra = {}) => `data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`;
      res.writeHead(200, { ...CORS, "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive" });
      // Tiny usage, so the run's token budget never ends it.
      res.end(
        data([{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }]) +
          data([{ index: 0, delta: {}, finish_reason: "stop" }]) +
          data([], { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }) +
          "data: [DONE]\n\n",
      );
      calls.push({ n, at, sent: performance.now(), promptChars: Buffer.byteLength(JSON.stringify(body.messages ?? [])) });
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        calls,
        get preflights() {
          return preflights;
        },
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
