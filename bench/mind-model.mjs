/* global Buffer */
// An instant scripted model for bench/mind: OpenAI-compatible streaming chat
// completions that answer at once with a tiny bash block that never sets
// FINAL (`: <n>`, n counting the calls, so no two replies are the same and the
// loop-breaker stays quiet). It records when each call arrived and when its
// answer was sent, on this process's performance.now() clock.
//
// It shares the machine's cores with the browser it measures, so it does as
// little as it can per call: the ~35 KB request body is never parsed, only
// searched for where its `messages` start and end (see promptSpan).
import http from "node:http";

const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers": "*, authorization, content-type",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Private-Network": "true",
  "Access-Control-Max-Age": "7200",
  "Cross-Origin-Resource-Policy": "cross-origin",
};
const STREAM_HEADERS = { ...CORS, "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive" };
const NOT_FOUND_HEADERS = { ...CORS, "Content-Type": "application/json" };

/** The reply to call n; its command is `: n`, which is how the bench finds the call's steps. */
export const replyText = (n) => `x\n\n\`\`\`bash\n: ${n}\n\`\`\``;

const MESSAGES_KEY = Buffer.from('"messages":');
/** The one array the AI SDK may write after the messages (none in this bench): its presence means parse the whole body. */
const TOOLS_KEY = Buffer.from('"tools":');
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/** `{"a":1,` (the keys before messages) as an object, or null when it is not that. */
function headObject(text) {
  if (text === "{") return {};
  if (!text.endsWith(",")) return null;
  try {
    return JSON.parse(`${text.slice(0, -1)}}`);
  } catch {
    return null;
  }
}

/** `,"stream":true,…}` or `}` (the keys after messages) as an object, or null when it is not that. */
function tailObject(text) {
  if (text === "}") return {};
  if (!text.startsWith(",")) return null;
  try {
    return JSON.parse(`{${text.slice(1)}`);
  } catch {
    return null;
  }
}

/**
 * Where the prompt (`messages`, as the client serialized it) is in a chat
 * request body, and the request's model: without parsing the messages. The
 * AI SDK writes `{"model":…,"messages":[…],"stream":true,"stream_options":{…}}`:
 * the first `"messages":` is the key (inside a string its quotes would be
 * escaped), and the last `]` closes its array when no `"tools":` array comes
 * after it. The small head and tail are parsed to be sure; any other shape is
 * parsed whole.
 * @param {Buffer} body
 * @returns {{ model: unknown, promptBytes: number }}
 */
export function promptSpan(body) {
  const key = body.indexOf(MESSAGES_KEY);
  const close = body.lastIndexOf(CLOSE_BRACKET);
  const open = key + MESSAGES_KEY.length;
  if (key > 0 && close > open && (body[close + 1] === COMMA || close + 2 === body.length) && body.indexOf(TOOLS_KEY, open) === -1) {
    const head = headObject(body.toString("utf8", 0, key));
    const tail = head && tailObject(body.toString("utf8", close + 1));
    if (head && tail && !("messages" in head) && !("messages" in tail)) return { model: "model" in head ? head.model : tail.model, promptBytes: close + 1 - open };
  }
  const parsed = JSON.parse(body.toString("utf8"));
  return { model: parsed.model, promptBytes: Buffer.byteLength(JSON.stringify(parsed.messages ?? [])) };
}

/** The whole streamed answer to call n: the reply, the stop, tiny usage (so the run's token budget never ends it). */
function answer(n, model) {
  const head = `{"id":"b-${n}","object":"chat.completion.chunk","created":${Math.floor(Date.now() / 1000)},"model":${JSON.stringify(model)},"choices":`;
  const delta = JSON.stringify({ role: "assistant", content: replyText(n) });
  return (
    `data: ${head}[{"index":0,"delta":${delta},"finish_reason":null}]}\n\n` +
    `data: ${head}[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n` +
    `data: ${head}[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}\n\n` +
    "data: [DONE]\n\n"
  );
}

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
      res.writeHead(404, NOT_FOUND_HEADERS);
      res.end('{"error":{"message":"not found"}}');
      return;
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const { model, promptBytes } = promptSpan(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
      const n = calls.length + 1;
      res.writeHead(200, STREAM_HEADERS);
      res.end(answer(n, model));
      // promptChars: the UTF-8 size of the messages as sent (what JSON.stringify(body.messages) would give).
      calls.push({ n, at, sent: performance.now(), promptChars: promptBytes });
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
