// The server's outbound fetch (lib/server/net/outbound.ts) against a canary
// server on loopback that counts its connections: what OUTBOUND_ALLOW does
// not list is refused before any connection (by address, by a name that
// resolves to it, by localhost), what it lists is reached and streams; the
// request arrives as sent, an abort ends it, a redirect comes back unfollowed.
// Names are resolved by a resolver the test hands in (never real DNS), and
// the only traffic sent goes to 127.0.0.1: a refusal of any other address is
// checked by node:http never being asked to connect.
import http from "node:http";
import https from "node:https";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { ListedPort } from "@/lib/server/net/address-policy";
import type { Resolver } from "@/lib/server/net/guarded-fetch";
import { outboundFetch, outboundGuard, OutboundRefused } from "@/lib/server/net/outbound";
import { startCanary, type Canary } from "./canary";

/** A resolver over a fixed table, keeping every name it was asked. */
function table(answers: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (name: string) => {
    asked.push(name);
    const addresses = answers[name];
    if (!addresses) throw Object.assign(new Error(`no such name: ${name}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

let canary: Canary;
beforeAll(async () => {
  canary = await startCanary();
});
afterAll(() => canary.close());
afterEach(() => vi.restoreAllMocks());

const fetchWith = (allow: ListedPort[], resolve: Resolver = table({})) => outboundFetch(outboundGuard(allow, resolve));
const listed = (): ListedPort[] => [{ host: "127.0.0.1", port: canary.port }];

/** Runs `attempt`, which must be refused, and says with what, checking no connection was made or even asked of node:http. */
async function refused(attempt: () => Promise<Response>): Promise<string> {
  const before = canary.connections();
  // Not called through: a guard that let one pass must not send the test's traffic anywhere but loopback.
  const dial = () => {
    throw new Error("node:http was asked to connect");
  };
  const dialled = [vi.spyOn(http, "request").mockImplementation(dial), vi.spyOn(https, "request").mockImplementation(dial)];
  const error = await attempt().then(
    () => new Error("it was not refused"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundRefused);
  for (const spy of dialled) expect(spy).not.toHaveBeenCalled();
  expect(canary.connections()).toBe(before);
  return error instanceof Error ? error.message : String(error);
}

describe("refused before any connection", () => {
  it("a loopback port OUTBOUND_ALLOW does not list: the message says what, why, and where to list it", async () => {
    const url = `http://127.0.0.1:${canary.port}/v1/chat/completions`;
    expect(await refused(() => fetchWith([])(url, { method: "POST", body: "{}" }))).toBe(
      `refused to connect to ${url}: 127.0.0.1 is a loopback address, which this server's host has not listed in OUTBOUND_ALLOW`,
    );
    // Another port of the same address is not listed by it.
    expect(await refused(() => fetchWith([{ host: "127.0.0.1", port: canary.port + 1 }])(url))).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(canary.connections()).toBe(0);
  });

  it("a name that resolves to loopback, resolved once, and localhost without asking a resolver", async () => {
    const resolve = table({ "canary.test": ["127.0.0.1"], "mixed.test": ["203.0.113.7", "127.0.0.1"] });
    expect(await refused(() => fetchWith([], resolve)(`http://canary.test:${canary.port}/x`))).toBe(
      `refused to connect to http://canary.test:${canary.port}/x: canary.test resolves to 127.0.0.1, a loopback address, which this server's host has not listed in OUTBOUND_ALLOW`,
    );
    // One public answer does not make up for a loopback one.
    expect(await refused(() => fetchWith([], resolve)(`http://mixed.test:${canary.port}/x`))).toMatch(/mixed\.test resolves to 127\.0\.0\.1, a loopback address/);
    expect(resolve.asked).toEqual(["canary.test", "mixed.test"]);
    expect(await refused(() => fetchWith([], resolve)(`http://localhost:${canary.port}/`))).toMatch(/: localhost is a loopback address, which this server's host has not listed in OUTBOUND_ALLOW$/);
    expect(await refused(() => fetchWith([], resolve)(`http://models.localhost:${canary.port}/`))).toMatch(/models\.localhost is a loopback address/);
    expect(resolve.asked).toEqual(["canary.test", "mixed.test"]);
    expect(canary.connections()).toBe(0);
  });

  it("private, link-local, cloud metadata and IPv6 spellings of loopback, written or resolved", async () => {
    const resolve = table({ "metadata.test": ["169.254.169.254"], "inside.test": ["10.1.2.3"], "v6.test": ["::1"] });
    const cases: [string, RegExp][] = [
      ["http://10.0.0.1/", /10\.0\.0\.1 is a private address/],
      ["http://192.168.1.1:8080/", /192\.168\.1\.1 is a private address/],
      ["http://100.64.0.1/", /a private \(carrier-grade NAT\) address/],
      ["http://169.254.169.254/latest/meta-data/", /169\.254\.169\.254 is a link-local address/],
      [`http://[::ffff:127.0.0.1]:${canary.port}/`, /::ffff:7f00:1 is a loopback address/],
      [`http://[::1]:${canary.port}/`, /::1 is a loopback address/],
      ["http://[fe80::1]/", /is a link-local address/],
      ["http://[fd00::1]/", /is a private address/],
      ["http://0.0.0.0/", /is an unspecified address/],
      ["https://metadata.test/computeMetadata/v1/", /metadata\.test resolves to 169\.254\.169\.254, a link-local address/],
      ["https://inside.test/", /inside\.test resolves to 10\.1\.2\.3, a private address/],
      [`http://v6.test:${canary.port}/`, /v6\.test resolves to ::1, a loopback address/],
    ];
    for (const [url, why] of cases) expect(await refused(() => fetchWith([], resolve)(url))).toMatch(why);
  });

  it("what is not http or https, or carries a password, and never the query (it may hold a key)", async () => {
    expect(await refused(() => fetchWith(listed())(`ftp://127.0.0.1:${canary.port}/`))).toBe(`refused to connect to ftp://127.0.0.1:${canary.port}/: not an http or https URL (it is ftp:)`);
    expect(await refused(() => fetchWith(listed())("file:///etc/passwd"))).toMatch(/not an http or https URL \(it is file:\)/);
    expect(await refused(() => fetchWith(listed())(`http://me:secret@127.0.0.1:${canary.port}/`))).toMatch(/has a user name or password/);
    const message = await refused(() => fetchWith([])(`http://127.0.0.1:${canary.port}/v1?key=fake-key-not-real`));
    expect(message).not.toContain("fake-key-not-real");
  });

  it("a name that does not resolve, saying why", async () => {
    expect(await refused(() => fetchWith([])("https://nowhere.test/"))).toBe("refused to connect to https://nowhere.test/: nowhere.test could not be resolved (ENOTFOUND)");
  });

  it("a public address passes the guard (the request itself is not made here: the tests reach loopback only)", () => {
    const guard = outboundGuard([]);
    expect(guard.refuseAddress(new URL("https://api.example.com/v1"), "203.0.113.7")).toBeNull();
    expect(guard.refuseAddress(new URL("https://api.example.com/v1"), "2001:db8::1")).toBeNull();
  });
});

describe("reached when OUTBOUND_ALLOW lists it", () => {
  it("a POST arrives with its headers and body, on a connection of its own", async () => {
    const before = canary.connections();
    const seen = canary.requests.length;
    const res = await fetchWith(listed())(`http://127.0.0.1:${canary.port}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer fake-key-not-real", "x-extra": "one" },
      body: JSON.stringify({ model: "m", messages: [] }),
    });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`http://127.0.0.1:${canary.port}/v1/chat/completions`);
    expect(res.headers.get("content-type")).toBe("application/json");
    const echoed = await res.json();
    expect(echoed).toMatchObject({
      method: "POST",
      url: "/v1/chat/completions",
      body: '{"model":"m","messages":[]}',
      headers: { "content-type": "application/json", authorization: "Bearer fake-key-not-real", "x-extra": "one", "content-length": "27", host: `127.0.0.1:${canary.port}` },
    });
    expect(canary.requests.length).toBe(seen + 1);
    expect(canary.connections()).toBe(before + 1);
  });

  it("bytes, a Request and a URL as what to send", async () => {
    const go = fetchWith(listed());
    const bytes = await (await go(new URL(`http://127.0.0.1:${canary.port}/bytes`), { method: "PUT", body: new TextEncoder().encode("héllo") })).json();
    expect(bytes).toMatchObject({ method: "PUT", body: "héllo", headers: { "content-length": "6" } });
    const request = new Request(`http://127.0.0.1:${canary.port}/request`, { method: "POST", headers: { "x-from": "request" }, body: "as a Request" });
    expect(await (await go(request)).json()).toMatchObject({ method: "POST", url: "/request", body: "as a Request", headers: { "x-from": "request", "content-type": "text/plain;charset=UTF-8" } });
  });

  it("streams the body as it arrives", async () => {
    const res = await fetchWith(listed())(`http://127.0.0.1:${canary.port}/stream`);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    // The first chunk is read while the server still holds the second.
    expect(decoder.decode((await reader.read()).value)).toBe("first\n");
    canary.release();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += decoder.decode(r.value);
    expect(rest).toBe("second\n");
  });

  it("a name that resolves to a listed address, connected to that address (the pinned answer, not a second lookup)", async () => {
    const resolve = table({ "canary.test": ["127.0.0.1"] });
    const res = await fetchWith(listed(), resolve)(`http://canary.test:${canary.port}/named`);
    expect(await res.json()).toMatchObject({ url: "/named", headers: { host: `canary.test:${canary.port}` } });
    expect(resolve.asked).toEqual(["canary.test"]);
  });

  it("localhost:PORT lists this machine's loopback at that port", async () => {
    const resolve = table({ localhost: ["127.0.0.1"] });
    const res = await fetchWith([{ host: "localhost", port: canary.port }], resolve)(`http://localhost:${canary.port}/local`);
    expect(await res.json()).toMatchObject({ url: "/local" });
  });

  it("a redirect comes back as it is, not followed (its next hop was never checked)", async () => {
    const seen = canary.requests.length;
    const res = await fetchWith(listed())(`http://127.0.0.1:${canary.port}/redirect`, { headers: { "x-location": "http://169.254.169.254/latest/meta-data/" } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("http://169.254.169.254/latest/meta-data/");
    expect(canary.requests.slice(seen).map((r) => r.url)).toEqual(["/redirect"]);
  });

  it("a HEAD has no body; a listed port nobody listens on fails as fetch does", async () => {
    const head = await fetchWith(listed())(`http://127.0.0.1:${canary.port}/head`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    const spare = await startCanary();
    const port = spare.port;
    await spare.close();
    const error = await fetchWith([{ host: "127.0.0.1", port }])(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ message: "fetch failed", cause: { code: "ECONNREFUSED" } });
  });
});

describe("an abort", () => {
  it("before the answer: the request ends with the abort's reason and its connection closes", async () => {
    const closed = canary.closed();
    const stop = new AbortController();
    const pending = fetchWith(listed())(`http://127.0.0.1:${canary.port}/hang`, { signal: stop.signal });
    await vi.waitFor(() => expect(canary.requests.at(-1)?.url).toBe("/hang"));
    stop.abort(new Error("stopped by the test"));
    await expect(pending).rejects.toThrow("stopped by the test");
    await vi.waitFor(() => expect(canary.closed()).toBeGreaterThan(closed));
  });

  it("partway through the body: the next read fails with the abort's reason", async () => {
    const stop = new AbortController();
    const res = await fetchWith(listed())(`http://127.0.0.1:${canary.port}/stream`, { signal: stop.signal });
    const reader = res.body!.getReader();
    await reader.read();
    stop.abort(new Error("stopped mid-body"));
    await expect(reader.read()).rejects.toThrow("stopped mid-body");
  });

  it("already aborted: nothing is resolved or dialled", async () => {
    const resolve = table({ "canary.test": ["127.0.0.1"] });
    const before = canary.connections();
    await expect(fetchWith(listed(), resolve)(`http://canary.test:${canary.port}/`, { signal: AbortSignal.abort(new Error("too late")) })).rejects.toThrow("too late");
    expect(resolve.asked).toEqual([]);
    expect(canary.connections()).toBe(before);
  });
});
