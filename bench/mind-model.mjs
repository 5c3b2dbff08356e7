/* global Buffer, setImmediate */
// An instant scripted model for bench/mind: OpenAI-compatible streaming chat
// completions that answer at once with a sentence and a tiny bash block that
// never sets FINAL (`: <n>`, n counting the calls, so no two replies are the
// same and the loop-breaker stays quiet). It reads each request's whole body
// before it answers (as a real server must), and streams the reply as a real
// server does: an event per `chunk` characters of text (the role first, the
// finish and the usage after), each written to the socket on its own; with
// `chunk` 0 the whole answer goes in one write. It records when each call
// arrived and when its answer was sent (its last byte written), on this
// process's performance.now() clock.
//
// It shares the machine's cores with the browser it measures, so it does as
// little as it can per call: the ~35 KB request body is never parsed, only
// searched for where its `messages` start and end (see promptSpan).
//
// bench/fetch-floor.mjs calls this same server (`?floor=<chunk>`) for its
// floor: those calls are kept apart, in `floorCalls`.
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

/** The reply to call n: a sentence, then the block; its command is `: n`, which is how the bench finds the call's steps. */
export const replyText = (n) => `I look at what is here, then take one small step and see what it shows me.\n\n\`\`\`bash\n: ${n}\n\`\`\``;

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

/**
 * The streamed answer to call n, as the writes that send it: the reply, the
 * stop, tiny usage (so the run's token budget never ends it), [DONE]. With
 * `chunk` 0, one write (the reply in one event, as before); otherwise as a
 * real server streams it: the role, then an event per `chunk` characters of
 * the reply, each its own write.
 */
export function answerWrites(n, model, chunk = 0) {
  const head = `{"id":"b-${n}","object":"chat.completion.chunk","created":${Math.floor(Date.now() / 1000)},"model":${JSON.stringify(model)},"choices":`;
  const event = (delta) => `data: ${head}[{"index":0,"delta":${JSON.stringify(delta)},"finish_reason":null}]}\n\n`;
  const text = replyText(n);
  const tail = [`data: ${head}[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`, `data: ${head}[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}\n\n`, "data: [DONE]\n\n"];
  if (!(chunk > 0)) return [event({ role: "assistant", content: text }) + tail.join("")];
  const writes = [event({ role: "assistant", content: "" })];
  for (let i = 0; i < text.length; i += chunk) writes.push(event({ content: text.slice(i, i + chunk) }));
  return [...writes, ...tail];
}

/**
 * Write an answer's pieces, each on its own (`delayMs` 0: one after another
 * at once; above 0, that long apart; below 1 ms, one event-loop turn apart),
 * then end it; `sent` gets the time its last byte was handed to the socket.
 */
function streamAnswer(res, writes, delayMs, sent) {
  if (writes.length === 1) {
    res.end(writes[0]);
    return sent(performance.now());
  }
  if (!(delayMs > 0)) {
    for (const w of writes) res.write(w);
    res.end();
    return sent(performance.now());
  }
  let i = 0;
  const wait = delayMs < 1 ? (f) => setImmediate(f) : (f) => setTimeout(f, delayMs);
  const next = () => {
    if (res.destroyed) return;
    res.write(writes[i++]);
    if (i < writes.length) return void wait(next);
    res.end();
    sent(performance.now());
  };
  next();
}

/** The options from the environment: CHUNK (characters per event, 0 = one piece; default 16), CHUNK_DELAY_MS (default 0), INTERLEAVE (calls per block, one piece and chunked in turn; default 10; 0 = all chunked), NODELAY (0 = leave Nagle's algorithm on). */
export function modelOptionsFromEnv(env = process.env) {
  const num = (v, d) => (v === undefined || v === "" ? d : Number(v));
  return { chunk: num(env.CHUNK, 16), delayMs: num(env.CHUNK_DELAY_MS, 0), interleave: num(env.INTERLEAVE, 10), noDelay: env.NODELAY !== "0" };
}

/**
 * `chunk`: characters of the reply per streamed event (0: the whole answer in
 * one write); `interleave`: when above 0 (and chunk is), calls go in blocks of
 * that many, one piece and chunked in turn, so both are measured in one run
 * (each call records its `chunk`); `delayMs`: the wait between writes;
 * `noDelay`: false leaves Nagle's algorithm on the sockets (Node's server
 * turns it off by default).
 * @param {{ chunk?: number, interleave?: number, delayMs?: number, noDelay?: boolean }} [options]
 * @returns {Promise<import("./mind-model.d.mts").InstantModel>}
 */
export function startInstantModel({ chunk = 0, interleave = 0, delayMs = 0, noDelay = true } = {}) {
  const calls = [];
  const floorCalls = [];
  let preflights = 0;
  /** Call n's chunking: blocks of `interleave` calls, one piece first. */
  const chunkOf = (n) => (chunk > 0 && interleave > 0 && Math.floor((n - 1) / interleave) % 2 === 0 ? 0 : chunk);
  const server = http.createServer({ noDelay }, (req, res) => {
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
    const floor = /[?&]floor=(\d+)/.exec(req.url);
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const { model, promptBytes } = promptSpan(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
      res.writeHead(200, STREAM_HEADERS);
      if (floor) {
        // A floor call (bench/fetch-floor.mjs): the same answer, kept apart from the mind's calls.
        const call = { n: floorCalls.length + 1, at, sent: 0, chunk: Number(floor[1]) };
        floorCalls.push(call);
        return streamAnswer(res, answerWrites(call.n, model, call.chunk), delayMs, (t) => (call.sent = t));
      }
      const n = calls.length + 1;
      // promptChars: the UTF-8 size of the messages as sent (what JSON.stringify(body.messages) would give).
      const call = { n, at, sent: 0, promptChars: promptBytes, chunk: chunkOf(n) };
      calls.push(call);
      streamAnswer(res, answerWrites(n, model, call.chunk), delayMs, (t) => (call.sent = t));
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        calls,
        floorCalls,
        options: { chunk, interleave, delayMs, noDelay },
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
