// What the proxy refuses, and that a refusal costs nothing: over a cap (429
// naming the cap and its reset), a malformed, oversized or unknown-model
// request (400/413, before any reservation), a ledger that is down (503, no
// call made). And who the caller is: bearer tokens and the signed cookie.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_COOKIE, tokenClientId } from "@/lib/server/proxy/identity";
import { openLedger } from "@/lib/server/ledger/ledger";
import { handleChatCompletions } from "@/lib/server/proxy/routes";
import { MAX_BODY_BYTES } from "@/lib/server/proxy/request";
import { HOST_KEY, NOW, TOKENS, chat, startHarness, type Harness } from "./harness";
import { pglite } from "../databases";

let h: Harness;
// Opening PGlite takes seconds on a busy machine.
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const USAGE = { prompt_tokens: 5, completion_tokens: 5 }; // within any call's hold
const NEXT_HOUR = "2031-05-06T08:00:00.000Z"; // NOW is 07:40 UTC

/** Asserts nothing reached the upstream and nothing was held for the client while `run` ran. */
async function costsNothing(clientId: string, run: () => Promise<void>) {
  const calls = h.upstream.requests.length;
  await run();
  expect(h.upstream.requests.length).toBe(calls);
  expect(await h.reservations(clientId)).toBe(0);
  expect(await h.ledger.spent(clientId)).toMatchObject({ clientHourUsd: 0, clientDayUsd: 0 });
}

describe("over a cap", () => {
  it("429 names the client's hourly cap, its limit and reset, with Retry-After, once not even the input fits; nothing is forwarded", async () => {
    const token = h.token();
    h.upstream.enqueue({ text: "one", usage: { prompt_tokens: 5, completion_tokens: 1290 } });
    expect((await h.post(chat("first", { max_tokens: 1300 }), { token })).status).toBe(200);
    await h.settlement();
    // $0.03875 spent of $0.05: what is left ($0.01125) cannot pay for this call's input (~1,200 tokens at $10/M, with the margin).
    const calls = h.upstream.requests.length;
    const res = await h.post(chat("word ".repeat(1200), { max_tokens: 10 }), { token });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe(String(20 * 60));
    expect(JSON.parse(await h.text(res))).toEqual({
      error: {
        type: "spend_cap",
        cap: "client_hour",
        limit_usd: 0.05,
        resets_at: NEXT_HOUR,
        message: `spend cap reached: your hourly cap of $0.05 (spent $0.03875); it resets at ${NEXT_HOUR}`,
      },
    });
    expect(h.upstream.requests.length).toBe(calls);
    expect(await h.ledger.spent(tokenClientId(token))).toMatchObject({ clientHourUsd: 0.03875 });
  });

  it("clamps the answer's allowance to what the caps have left, so its worst case fits them", async () => {
    const token = h.token();
    h.upstream.enqueue({ text: "one", usage: { prompt_tokens: 5, completion_tokens: 1290 } });
    expect((await h.post(chat("first", { max_tokens: 1300 }), { token })).status).toBe(200);
    await h.settlement();
    // $0.01125 left of the hour: the asked 1,000 tokens ($0.03) do not fit, about 370 do.
    h.upstream.enqueue({ text: "two", usage: { prompt_tokens: 5, completion_tokens: 300 } });
    const res = await h.post(chat("second", { max_tokens: 1000 }), { token });
    expect(res.status).toBe(200);
    await h.text(res);
    const sent = h.upstream.requests.at(-1)!.body.max_tokens as number;
    expect(sent).toBeGreaterThan(300);
    expect(sent).toBeLessThan(375);
    const s = await h.settlement();
    const [held] = await h.sql.query<{ worst: string }>("SELECT worst_micros::text AS worst FROM spend_reservations WHERE id = $1", [s.reservationId]);
    expect(Number(held!.worst)).toBeLessThanOrEqual(11_250);
    expect((await h.ledger.spent(tokenClientId(token))).clientHourUsd).toBeLessThanOrEqual(0.05);
  });

  it("429 'request' when the input alone is over the per-request cap; nothing is held", async () => {
    const token = h.token();
    await costsNothing(tokenClientId(token), async () => {
      // ~ 4,000 tokens of input at $10/M is over the $0.04 request cap before any output.
      const res = await h.post(chat("lorem ipsum dolor ".repeat(1500)), { token });
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBe("0");
      expect(JSON.parse(await h.text(res)).error).toMatchObject({ type: "spend_cap", cap: "request", limit_usd: 0.04, resets_at: NOW.toISOString() });
    });
  });
});

describe("a bad request costs nothing", () => {
  const cases: [string, { body?: unknown; raw?: string }, number, RegExp][] = [
    ["malformed JSON", { raw: '{"model": "scripted", "messages": [' }, 400, /^the request body is not JSON$/],
    ["messages not an array", { body: { model: "scripted", messages: "hi" } }, 400, /^messages: /],
    ["no messages", { body: { model: "scripted", messages: [] } }, 400, /^messages: /],
    ["a message without a role", { body: { model: "scripted", messages: [{ content: "hi" }] } }, 400, /^messages\.0\.role: /],
    ["a negative max_tokens", { body: chat("hi", { max_tokens: -5 }) }, 400, /^max_tokens: /],
    ["more than one choice", { body: chat("hi", { n: 3 }) }, 400, /^n: /],
    ["an unknown model", { body: { ...chat("hi"), model: "gpt-unpriced" } }, 400, /^model 'gpt-unpriced' is not offered by this proxy \(offered: scripted, free\)$/],
  ];
  it.each(cases)("%s: %i invalid_request", async (_name, input, status, message) => {
    const token = h.token();
    await costsNothing(tokenClientId(token), async () => {
      const res = await h.post(input.body, { token, raw: input.raw });
      expect(res.status).toBe(status);
      const body = JSON.parse(await h.text(res));
      expect(body.error.type).toBe("invalid_request");
      expect(body.error.message).toMatch(message);
    });
  });

  it("a body over the size limit: 413", async () => {
    const token = h.token();
    await costsNothing(tokenClientId(token), async () => {
      const res = await h.post(undefined, { token, raw: JSON.stringify(chat("x".repeat(MAX_BODY_BYTES))) });
      expect(res.status).toBe(413);
      expect(JSON.parse(await h.text(res)).error).toEqual({ type: "request_too_large", message: `request body over ${MAX_BODY_BYTES} bytes` });
    });
  });

  it("a body over the size limit without a Content-Length (streamed in): 413, read no further than the limit", async () => {
    const token = h.token();
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled += chunk.byteLength;
        if (pulled > 10 * MAX_BODY_BYTES) c.close();
        else c.enqueue(chunk);
      },
    });
    const req = new Request("http://proxy.test/x", { method: "POST", headers: { authorization: `Bearer ${token}` }, body, duplex: "half" } as RequestInit);
    const res = await handleChatCompletions(req, h.deps);
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThan(MAX_BODY_BYTES + 4 * chunk.byteLength);
    expect(await h.reservations(tokenClientId(token))).toBe(0);
  });
});

describe("the ledger unavailable", () => {
  it("503 ledger_unavailable, and no call is made", async () => {
    const db = await pglite.fresh();
    const sql = await db.open();
    const ledger = openLedger(sql, h.deps.config.caps);
    await sql.close();
    const calls = h.upstream.requests.length;
    const res = await handleChatCompletions(
      new Request("http://proxy.test/x", { method: "POST", headers: { authorization: `Bearer ${h.token()}` }, body: JSON.stringify(chat("hi")) }),
      { ...h.deps, ledger },
    );
    expect(res.status).toBe(503);
    expect(JSON.parse(await h.text(res)).error.type).toBe("ledger_unavailable");
    expect(h.upstream.requests.length).toBe(calls);
    await db.remove();
  }, 60_000);

  it("503 when the cookie secret cannot be read", async () => {
    const res = await handleChatCompletions(new Request("http://proxy.test/x", { method: "POST", body: JSON.stringify(chat("hi")) }), {
      ...h.deps,
      cookieSecret: () => Promise.reject(new Error("database closed")),
    });
    expect(res.status).toBe(503);
    expect(JSON.parse(await h.text(res)).error.type).toBe("ledger_unavailable");
  });
});

describe("who is calling", () => {
  it("an unknown bearer token: 401, costing nothing", async () => {
    const calls = h.upstream.requests.length;
    const res = await h.post(chat("hi"), { token: "not-a-token-the-host-gave" });
    expect(res.status).toBe(401);
    expect(JSON.parse(await h.text(res)).error.type).toBe("unauthorized");
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(h.upstream.requests.length).toBe(calls);
  });

  it("a token's client id is a hash prefix, not the token", () => {
    expect(tokenClientId(TOKENS[0]!)).toMatch(/^token:[0-9a-f]{16}$/);
    expect(tokenClientId(TOKENS[0]!)).not.toBe(tokenClientId(TOKENS[1]!));
  });

  it("anonymous: a signed HttpOnly SameSite=Strict cookie, kept while valid, replaced when forged", async () => {
    h.upstream.enqueue({ text: "a", usage: USAGE }, { text: "b", usage: USAGE }, { text: "c", usage: USAGE });
    const first = await h.post(chat("hi", { max_tokens: 10 }));
    expect(first.status).toBe(200);
    const setCookie = first.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(new RegExp(`^${CLIENT_COOKIE}=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+; Path=/api/llm; Max-Age=\\d+; HttpOnly; SameSite=Strict$`));
    const cookie = setCookie.split(";")[0]!;
    const a = await h.settlement();
    expect(a.clientId).toMatch(/^anon:/);

    const again = await h.post(chat("hi", { max_tokens: 10 }), { headers: { cookie: `other=1; ${cookie}` } });
    expect(again.headers.get("set-cookie")).toBeNull();
    expect((await h.settlement()).clientId).toBe(a.clientId);

    const forged = `${cookie.slice(0, -2)}${cookie.endsWith("AA") ? "BB" : "AA"}`;
    const fresh = await h.post(chat("hi", { max_tokens: 10 }), { headers: { cookie: forged } });
    expect(fresh.headers.get("set-cookie")).toMatch(new RegExp(`^${CLIENT_COOKIE}=`));
    expect((await h.settlement()).clientId).not.toBe(a.clientId);
    for (const r of [first, again, fresh]) await h.text(r);
  });

  it("the cookie is Secure when the proxy is reached over https", async () => {
    const res = await h.models({ headers: { "x-forwarded-proto": "https" } });
    expect(res.headers.get("set-cookie")).toMatch(/; Secure$/);
  });
});

describe("GET models", () => {
  it("lists the offered models with their prices", async () => {
    const res = await h.models({ token: h.token() });
    expect(res.status).toBe(200);
    expect(JSON.parse(await h.text(res))).toEqual({
      object: "list",
      data: [
        { id: "scripted", object: "model", owned_by: "reverie-proxy", pricing: { input: 10, output: 30 } },
        { id: "free", object: "model", owned_by: "reverie-proxy", pricing: { input: 0, output: 0 } },
      ],
    });
  });
});

describe("the key", () => {
  it("appears in no response of this file", () => {
    expect(h.seen.length).toBeGreaterThan(20);
    for (const r of h.seen) expect(r).not.toContain(HOST_KEY);
  });
});
