// The network guard that node, npm and npx in the WebContainer preload, run
// for real: this machine's Node as a child process, with the environment the
// runtime gives a spawn (guardedEnv), against canary servers on loopback that
// count every connection. Nothing here leaves 127.0.0.1.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { NET_GUARD_SCRIPT } from "@/lib/shell/webcontainer/net-guard-script";
import { guardedEnv } from "@/lib/shell/webcontainer/net-guard";

const SETTINGS = "its human can allow URL prefixes in Settings";

/** A loopback HTTP server that counts connections; /allowed/away redirects out of /allowed/. */
interface Canary {
  base: string;
  port: number;
  connections: number;
  server: Server;
}

async function canary(): Promise<Canary> {
  const server = createServer((req, res) => {
    if (req.url === "/allowed/away") res.writeHead(302, { location: "/secret" }).end();
    else if (req.url === "/allowed/moved") res.writeHead(301, { location: "/allowed/here" }).end();
    else res.end(`canary ${req.url}`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const c: Canary = { base: `http://127.0.0.1:${port}`, port, connections: 0, server };
  server.on("connection", () => c.connections++);
  return c;
}

let dir = "";
let guard = "";
let inside: Canary;
let outside: Canary;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "reverie-net-guard-"));
  guard = join(dir, "reverie-net-guard.cjs");
  writeFileSync(guard, NET_GUARD_SCRIPT);
  [inside, outside] = await Promise.all([canary(), canary()]);
});

afterAll(async () => {
  await Promise.all([inside, outside].map((c) => new Promise((r) => c.server.close(r))));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  inside.connections = 0;
  outside.connections = 0;
});

/**
 * Runs `attempts` (name → async expression) in a child Node with the
 * environment a spawn gets, and returns each one's outcome: what it read, or
 * the error's message.
 */
async function attempt(allow: string[], attempts: Record<string, string>, opts: { mindEnv?: Record<string, string>; nodeArgs?: string[] } = {}): Promise<Record<string, string>> {
  const lines = Object.entries(attempts).map(
    ([name, expr]) => `try { out[${JSON.stringify(name)}] = String(await (${expr})); } catch (e) { out[${JSON.stringify(name)}] = e.message; }`,
  );
  const script = `const http = require("node:http"), net = require("node:net"), dns = require("node:dns"), cp = require("node:child_process"), { Worker } = require("node:worker_threads");
const get = (url) => new Promise((ok, no) => http.get(url, (res) => { let b = ""; res.on("data", (d) => (b += d)); res.on("end", () => ok(b)); }).on("error", no));
const connect = (port, host) => new Promise((ok, no) => { const s = net.connect(port, host, () => { s.destroy(); ok("connected"); }); s.on("error", no); });
const lookup = (host) => new Promise((ok, no) => dns.lookup(host, (e, a) => (e ? no(e) : ok(a))));
const inWorker = (code, options) => new Promise((ok, no) => { const w = new Worker(code, { eval: true, ...options }); w.on("message", (m) => { w.terminate(); ok(m); }); w.on("error", no); });
const out = {};
(async () => {
${lines.join("\n")}
process.stdout.write(JSON.stringify(out));
})();`;
  // Nothing of this process's environment but PATH: the child sees what a spawn in the container would.
  const env = { NODE_ENV: "test", PATH: process.env.PATH ?? "", ...guardedEnv(opts.mindEnv ?? {}, allow, guard) } as const;
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [...(opts.nodeArgs ?? []), "-e", script], { env, timeout: 20_000 }, (e, so, se) => (e ? reject(new Error(`${e.message}\n${se}`)) : resolve(so))),
  );
  return JSON.parse(stdout) as Record<string, string>;
}

const off = (what: string) => `reverie: ${what} refused: the network is off for this mind (${SETTINGS})`;

describe("the network guard, network off (empty allow-list)", () => {
  it("refuses fetch, http.get, net.connect, DNS and WebSocket, and nothing reaches the canary", async () => {
    const b = inside.base;
    const seen = await attempt(
      [],
      {
        fetch: `fetch("${b}/x").then((r) => r.text())`,
        "http.get": `get("${b}/x")`,
        "net.connect": `connect(${inside.port}, "127.0.0.1")`,
        "dns.lookup": `lookup("localhost")`,
        WebSocket: `new WebSocket("ws://127.0.0.1:${inside.port}/socket")`,
      },
      { nodeArgs: ["--experimental-websocket"] },
    );
    expect(seen).toEqual({
      fetch: off(`fetch ${b}/x`),
      "http.get": off(`http request to ${b}/x`),
      "net.connect": off(`connection to 127.0.0.1:${inside.port}`),
      "dns.lookup": off("DNS lookup of localhost"),
      WebSocket: off(`WebSocket to ws://127.0.0.1:${inside.port}/socket`),
    });
    expect(inside.connections).toBe(0);
  });

  it("a child process or worker started with an empty environment has the guard too", async () => {
    const b = inside.base;
    const probe = `fetch("${b}/child").then(() => "reached", (e) => e.message)`;
    const seen = await attempt([], {
      "child, env {}": `cp.execFileSync(process.execPath, ["-e", ${JSON.stringify(`${probe}.then(console.log)`)}], { env: {}, encoding: "utf8" }).trim()`,
      "worker, env {}": `inWorker(${JSON.stringify(`${probe}.then((m) => require("node:worker_threads").parentPort.postMessage(m))`)}, { env: {}, execArgv: [] })`,
    });
    expect(seen).toEqual({ "child, env {}": off(`fetch ${b}/child`), "worker, env {}": off(`fetch ${b}/child`) });
    expect(inside.connections).toBe(0);
  });

  it("a mind's own NODE_OPTIONS runs after the guard and cannot take it back", async () => {
    const undo = join(dir, "undo.cjs");
    writeFileSync(
      undo,
      `const http = require("node:http");
try { http.request = () => "mine"; } catch {}
try { Object.defineProperty(globalThis, "fetch", { value: async () => "mine" }); } catch (e) { globalThis.undoError = e.message; }
globalThis.undoRan = true;`,
    );
    const b = inside.base;
    const seen = await attempt([], { ran: "globalThis.undoRan", redefine: "globalThis.undoError", fetch: `fetch("${b}/x")`, "http.get": `get("${b}/x")` }, { mindEnv: { NODE_OPTIONS: `--require ${undo}` } });
    expect(seen).toEqual({ ran: "true", redefine: "Cannot redefine property: fetch", fetch: off(`fetch ${b}/x`), "http.get": off(`http request to ${b}/x`) });
    expect(inside.connections).toBe(0);
  });
});

describe("the network guard where it cannot be put in place", () => {
  it("ends the process before anything runs", async () => {
    // Something preloaded before the guard pins http.request (the guard always comes first in a spawn's NODE_OPTIONS; here it is made second).
    const pin = join(dir, "pin.cjs");
    writeFileSync(pin, `Object.defineProperty(require("node:http"), "request", { value: () => null, writable: false, configurable: false });`);
    const env = { NODE_ENV: "test", PATH: process.env.PATH ?? "", REVERIE_NET_ALLOW: "[]", NODE_OPTIONS: `--require ${pin} --require ${guard}` } as const;
    const ran = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, ["-e", `fetch("${inside.base}/x"); console.log("ran")`], { env, timeout: 20_000 }, (e, stdout, stderr) => resolve({ code: e ? (typeof e.code === "number" ? e.code : null) : 0, stdout, stderr })),
    );
    expect({ code: ran.code, stdout: ran.stdout }).toEqual({ code: 1, stdout: "" });
    expect(ran.stderr).toContain("Error: reverie: the network guard could not be put in place here (Cannot redefine property: request), so this process does not run without it");
    expect(inside.connections).toBe(0);
  });
});

describe("the network guard, with an allow-list", () => {
  it("reaches URLs under an allowed prefix and refuses the rest, redirects included", async () => {
    const b = inside.base;
    const allow = [`${b}/allowed/`];
    const notListed = (what: string) => `reverie: ${what} refused: it is not under this mind's network allow-list: ${b}/allowed/ (${SETTINGS})`;
    const seen = await attempt(allow, {
      "fetch in": `fetch("${b}/allowed/a").then((r) => r.text())`,
      "http.get in": `get("${b}/allowed/b")`,
      "redirect in": `fetch("${b}/allowed/moved").then((r) => r.text())`,
      "fetch out": `fetch("${b}/secret").then((r) => r.text())`,
      "http.get out": `get("${b}/secret")`,
      "redirect out": `fetch("${b}/allowed/away").then((r) => r.text())`,
      "net other host": `connect(${outside.port}, "127.0.0.1")`,
      "fetch other host": `fetch("${outside.base}/allowed/a")`,
    });
    expect(seen).toEqual({
      "fetch in": "canary /allowed/a",
      "http.get in": "canary /allowed/b",
      "redirect in": "canary /allowed/here",
      "fetch out": notListed(`fetch ${b}/secret`),
      "http.get out": notListed(`http request to ${b}/secret`),
      "redirect out": notListed(`fetch ${b}/secret (a redirect from ${b}/allowed/away)`),
      "net other host": notListed(`connection to 127.0.0.1:${outside.port}`),
      "fetch other host": notListed(`fetch ${outside.base}/allowed/a`),
    });
    expect(inside.connections).toBeGreaterThan(0);
    expect(outside.connections).toBe(0);
  });
});
