// The server runner's network guard (lib/server/runner/network.ts and its two
// helpers): RUNNER_NETWORK_ALLOW's parser, the intersection of a mind's list
// with the host's, the address policy, and the real just-bash sandbox built as
// the runner builds it, against two loopback servers standing in for the
// app's port (node:http) and the database's (node:net), each counting the
// connections it saw. Names are resolved by a resolver the test hands in
// (never real DNS); traffic goes to 127.0.0.1 only.
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { InMemoryFs } from "just-bash";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ShellScope } from "@/lib/mind/ports";
import { blockedKind, listedAddresses } from "@/lib/server/net/address-policy";
import { checkedAddress, guardedRequest, type Resolver } from "@/lib/server/net/guarded-fetch";
import { effectiveAllow, hostBoundNetwork, networkGuard, parseNetworkAllow } from "@/lib/server/runner/network";
import { skills } from "@/lib/shell/commands/skills";
import { justBashSandbox } from "@/lib/shell/just-bash-sandbox";
import { WORKSPACE } from "@/lib/shell/limits";
import { DEFAULT_PERMISSIONS, urlAllowed, type Permissions } from "@/lib/trajectory/permissions";

describe("parseNetworkAllow (RUNNER_NETWORK_ALLOW)", () => {
  it("reads prefixes separated by commas or whitespace, each as origin and path", () => {
    expect(parseNetworkAllow(undefined)).toEqual({ ok: true, prefixes: [] });
    expect(parseNetworkAllow("")).toEqual({ ok: true, prefixes: [] });
    expect(parseNetworkAllow(" ,\n ")).toEqual({ ok: true, prefixes: [] });
    expect(parseNetworkAllow("https://api.example.com/v1/, http://127.0.0.1:8080\nhttps://Docs.Example.com:443/guide  http://[::1]:11434/")).toEqual({
      ok: true,
      prefixes: ["https://api.example.com/v1/", "http://127.0.0.1:8080/", "https://docs.example.com/guide", "http://[::1]:11434/"],
    });
    expect(parseNetworkAllow("https://a.example/,https://A.example:443/")).toEqual({ ok: true, prefixes: ["https://a.example/"] });
  });

  it("names every malformed entry", () => {
    expect(parseNetworkAllow("api.example.com")).toEqual({
      ok: false,
      problems: ['RUNNER_NETWORK_ALLOW: "api.example.com" is not a URL (an allowed prefix is a scheme, a host and optionally a path, such as https://api.example.com/v1/)'],
    });
    expect(parseNetworkAllow("https://ok.example/ ftp://files.example/ https://me:secret@api.example/ https://api.example/v1?key=1 file:///etc/passwd https://")).toEqual({
      ok: false,
      problems: [
        'RUNNER_NETWORK_ALLOW: "ftp://files.example/" is not an http or https URL (it is ftp:)',
        'RUNNER_NETWORK_ALLOW: "https://me:secret@api.example/" has a user name or password in it',
        'RUNNER_NETWORK_ALLOW: "https://api.example/v1?key=1" has a query or fragment (an allowed prefix is a scheme, a host and optionally a path)',
        'RUNNER_NETWORK_ALLOW: "file:///etc/passwd" is not an http or https URL (it is file:)',
        'RUNNER_NETWORK_ALLOW: "https://" is not a URL (an allowed prefix is a scheme, a host and optionally a path, such as https://api.example.com/v1/)',
      ],
    });
  });
});

describe("effectiveAllow: what both lists allow", () => {
  const cases: { mind: string[]; host: string[]; both: string[] }[] = [
    { mind: [], host: ["https://a.example/"], both: [] },
    { mind: ["https://a.example/"], host: [], both: [] },
    // One origin: the narrower prefix of the two.
    { mind: ["https://a.example/"], host: ["https://a.example/v1/"], both: ["https://a.example/v1/"] },
    { mind: ["https://a.example/v1/docs"], host: ["https://a.example/v1"], both: ["https://a.example/v1/docs"] },
    { mind: ["https://a.example/v1"], host: ["https://a.example/v1/"], both: ["https://a.example/v1/"] },
    { mind: ["https://a.example/v1/"], host: ["https://a.example/v1"], both: ["https://a.example/v1/"] },
    // Side by side, or a lookalike path: nothing.
    { mind: ["https://a.example/v1"], host: ["https://a.example/v2"], both: [] },
    { mind: ["https://a.example/v1"], host: ["https://a.example/v10"], both: [] },
    // Another scheme, port or host: nothing.
    { mind: ["http://a.example/"], host: ["https://a.example/"], both: [] },
    { mind: ["https://a.example:8443/"], host: ["https://a.example/"], both: [] },
    { mind: ["https://b.a.example/"], host: ["https://a.example/"], both: [] },
    { mind: ["http://localhost:8080/"], host: ["http://127.0.0.1:8080/"], both: [] },
    // Spelled differently, meant the same: the default port, the host's case, a query.
    { mind: ["https://a.example:443/x"], host: ["https://A.EXAMPLE/"], both: ["https://a.example/x"] },
    { mind: ["https://a.example/v1?lang=en"], host: ["https://a.example/"], both: ["https://a.example/v1"] },
    // Several: each pair that overlaps, and nothing inside another.
    {
      mind: ["https://a.example/", "https://b.example/x/", "https://c.example/"],
      host: ["https://a.example/v1/", "https://a.example/v2/", "https://b.example/"],
      both: ["https://a.example/v1/", "https://a.example/v2/", "https://b.example/x/"],
    },
    { mind: ["https://a.example/", "https://a.example/v1/"], host: ["https://a.example/"], both: ["https://a.example/"] },
  ];

  it("intersects prefix by prefix", () => {
    expect(cases.map((c) => ({ ...c, both: effectiveAllow(c.mind, c.host) }))).toEqual(cases);
  });

  it("allows a URL exactly when both lists do", () => {
    const probes = [
      "https://a.example/",
      "https://a.example/v1",
      "https://a.example/v1/",
      "https://a.example/v1/docs",
      "https://a.example/v1/docs/x",
      "https://a.example/v10",
      "https://a.example/v2/x",
      "https://a.example/x",
      "https://b.example/x/y",
      "https://b.example/y",
      "https://c.example/",
      "http://a.example/v1/",
    ];
    for (const { mind, host } of cases) {
      const both = effectiveAllow(mind, host);
      for (const url of probes) expect([mind, host, url, urlAllowed(url, both)]).toEqual([mind, host, url, urlAllowed(url, mind) && urlAllowed(url, host)]);
    }
  });
});

describe("the lists' refusals", () => {
  it("says which list refuses a URL, and refuses a path a server could read another way", () => {
    const none = resolverOf({});
    const cases: [string[], string[], string, string | null][] = [
      [["https://a.example/v1/"], ["https://a.example/"], "https://a.example/v1/ok", null],
      [["https://a.example/v1/"], ["https://a.example/"], "https://a.example/v2", "URL not in this mind's allow-list (https://a.example/v1/)"],
      [["https://a.example/v1/"], ["https://a.example/"], "ftp://a.example/v1/", "not an http(s) URL"],
      [["https://b.example/"], ["https://a.example/"], "https://b.example/", "URL not in what this server's host allows (on this server this mind may reach nothing)"],
      [["https://a.example/"], ["https://a.example/v1/"], "https://a.example/v2/", "URL not in what this server's host allows (on this server this mind may reach https://a.example/v1/)"],
      // Under a prefix with a path, as just-bash's own check: an encoded separator, or an encoding inside one, is refused.
      ...["https://a.example/v1/..%2fadmin", "https://a.example/v1/x%252f..%252fadmin", "https://a.example/v1/a;b"].map(
        (url): [string[], string[], string, string] => [["https://a.example/v1/"], ["https://a.example/"], url, "URL path has ambiguous separators (an encoded '/', '\\', ';' or '.', or an encoding inside an encoding)"],
      ),
      // An encoded dot segment is a dot segment to URL parsing: this one leaves the prefix.
      [["https://a.example/v1/"], ["https://a.example/"], "https://a.example/v1/%2e%2e/admin", "URL not in this mind's allow-list (https://a.example/v1/)"],
      // Under a whole origin there is no path to escape.
      [["https://a.example/"], ["https://a.example/"], "https://a.example/v1/..%2fadmin", null],
    ];
    expect(cases.map(([mind, host, url]) => [mind, host, url, networkGuard(mind, host, none).refuseUrl(url)])).toEqual(cases);
  });
});

describe("the address policy", () => {
  it("says which addresses a mind may not reach by itself", () => {
    const cases: [string, string | null][] = [
      ["127.0.0.1", "a loopback address"],
      ["127.255.255.254", "a loopback address"],
      ["10.1.2.3", "a private address"],
      ["172.16.0.1", "a private address"],
      ["172.31.255.255", "a private address"],
      ["172.15.0.1", null],
      ["172.32.0.1", null],
      ["192.168.1.1", "a private address"],
      ["100.64.0.1", "a private (carrier-grade NAT) address"],
      ["100.127.255.255", "a private (carrier-grade NAT) address"],
      ["100.128.0.1", null],
      ["169.254.169.254", "a link-local address"],
      ["0.0.0.0", "an unspecified address"],
      ["0.1.2.3", "an unspecified address"],
      ["8.8.8.8", null],
      ["::1", "a loopback address"],
      ["[::1]", "a loopback address"],
      ["0:0:0:0:0:0:0:1", "a loopback address"],
      ["::", "an unspecified address"],
      ["fe80::1", "a link-local address"],
      ["fe80::1%eth0", "a link-local address"],
      ["febf::1", "a link-local address"],
      ["fec0::1", "a private address"],
      ["fc00::1", "a private address"],
      ["fd12:3456::1", "a private address"],
      // IPv4 inside IPv6: mapped, translated, compatible, NAT64, 6to4.
      ["::ffff:127.0.0.1", "a loopback address"],
      ["::ffff:7f00:1", "a loopback address"],
      ["::FFFF:10.0.0.1", "a private address"],
      ["::ffff:169.254.1.1", "a link-local address"],
      ["::ffff:0.0.0.0", "an unspecified address"],
      ["::ffff:8.8.8.8", null],
      ["::ffff:0:7f00:1", "a loopback address"],
      ["::127.0.0.1", "a loopback address"],
      ["64:ff9b::7f00:1", "a loopback address"],
      ["64:ff9b::808:808", null],
      ["2002:7f00:1::1", "a loopback address"],
      ["2002:808:808::1", null],
      ["2606:4700::1111", null],
      ["example.com", "not an IP address"],
    ];
    expect(cases.map(([ip]) => [ip, blockedKind(ip)])).toEqual(cases);
  });

  it("takes as listed by the host only the addresses it wrote, with their ports", () => {
    const listed = listedAddresses(["http://127.0.0.1:8080/", "http://[::1]:9000/", "http://localhost:7000/", "https://db.internal/", "http://10.0.0.5/api/"]);
    const cases: [string, number, boolean][] = [
      ["127.0.0.1", 8080, true],
      ["::ffff:127.0.0.1", 8080, true],
      ["127.0.0.1", 8081, false],
      ["127.0.0.2", 8080, false],
      ["::1", 9000, true],
      ["0:0:0:0:0:0:0:1", 9000, true],
      ["127.0.0.1", 9000, false],
      // localhost: this machine's loopback, on that port.
      ["127.0.0.1", 7000, true],
      ["127.0.0.53", 7000, true],
      ["::1", 7000, true],
      ["10.0.0.5", 7000, false],
      // A name lists no address: what it resolves to can change.
      ["10.0.0.9", 443, false],
      ["10.0.0.5", 80, true],
    ];
    expect(cases.map(([ip, port]) => [ip, port, listed(ip, port)])).toEqual(cases);
  });
});

/** Stand-ins for the app's port (node:http) and the database's (node:net), each counting the connections it saw. */
interface Targets {
  app: { port: number; connections: number; paths: string[] };
  db: { port: number; connections: number };
  close(): Promise<void>;
}

async function targets(): Promise<Targets> {
  const t = { app: { port: 0, connections: 0, paths: [] as string[] }, db: { port: 0, connections: 0 } };
  const app = http.createServer((req, res) => {
    t.app.paths.push(req.url ?? "");
    if (req.url === "/hello.md") return res.end("---\ndescription: Says hello.\n---\n# Hello\n");
    if (req.url === "/to-db") return res.writeHead(302, { location: `http://127.0.0.1:${t.db.port}/` }).end();
    if (req.url === "/to-db-by-name") return res.writeHead(302, { location: `http://db.test:${t.db.port}/` }).end();
    res.end(`hello from ${req.url}\n`);
  });
  app.on("connection", () => t.app.connections++);
  const db = net.createServer((socket) => socket.end());
  db.on("connection", () => t.db.connections++);
  const listen = (s: net.Server) => new Promise<number>((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as AddressInfo).port)));
  t.app.port = await listen(app);
  t.db.port = await listen(db);
  const close = (s: net.Server) => new Promise<void>((resolve) => s.close(() => resolve()));
  return { ...t, close: async () => void (await Promise.all([close(app), close(db)])) };
}

/** A resolver from a table, as DNS would answer; it remembers what it was asked. */
function resolverOf(table: Record<string, readonly { address: string; family: number }[] | Error>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const answer = table[hostname];
    if (answer instanceof Error || answer === undefined) throw Object.assign(answer ?? new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answer;
  };
  return Object.assign(resolve, { asked });
}

const LOOPBACK_NAMES = { "app.test": [{ address: "127.0.0.1", family: 4 }], "db.test": [{ address: "127.0.0.1", family: 4 }] };

let t: Targets;
beforeEach(async () => {
  t = await targets();
});
afterEach(async () => {
  await t.close();
});

describe("the guard, past the lists", () => {
  // The lists are out of the way here (refuseUrl allows everything): only the address policy speaks.
  const resolve = resolverOf({
    ...LOOPBACK_NAMES,
    localhost: [
      { address: "127.0.0.1", family: 4 },
      { address: "::1", family: 6 },
    ],
    "public.test": [{ address: "93.184.216.34", family: 4 }],
    "mixed.test": [
      { address: "93.184.216.34", family: 4 },
      { address: "10.0.0.7", family: 4 },
    ],
    "mapped.test": [{ address: "::ffff:127.0.0.1", family: 6 }],
    "metadata.test": [{ address: "169.254.169.254", family: 4 }],
    "empty.test": [],
    "garbage.test": [{ address: "not-an-ip", family: 4 }],
  });
  const guard = { ...networkGuard([], ["http://127.0.0.1:8080/", "http://localhost:7000/"], resolve), refuseUrl: () => null };
  const unlisted = ", which this server's host has not listed in RUNNER_NETWORK_ALLOW";

  it("refuses an address the host did not list, and picks the one it checked otherwise", async () => {
    // Only the check, no request: whatever it decides, nothing is sent (so no test traffic can leave loopback).
    const cases: [string, string][] = [
      ["http://127.0.0.1:9/", `127.0.0.1 is a loopback address${unlisted}`],
      ["http://2130706433:9/", `127.0.0.1 is a loopback address${unlisted}`],
      ["http://0x7f.1:9/", `127.0.0.1 is a loopback address${unlisted}`],
      ["http://[::1]:9/", `::1 is a loopback address${unlisted}`],
      ["http://[::ffff:127.0.0.1]:9/", `::ffff:7f00:1 is a loopback address${unlisted}`],
      ["http://[::ffff:10.1.2.3]/", `::ffff:a01:203 is a private address${unlisted}`],
      ["http://0.0.0.0:9/", `0.0.0.0 is an unspecified address${unlisted}`],
      ["http://[::]:9/", `:: is an unspecified address${unlisted}`],
      ["http://169.254.169.254/", `169.254.169.254 is a link-local address${unlisted}`],
      ["http://[fe80::1]/", `fe80::1 is a link-local address${unlisted}`],
      ["http://10.0.0.1/", `10.0.0.1 is a private address${unlisted}`],
      ["http://172.16.0.1/", `172.16.0.1 is a private address${unlisted}`],
      ["http://192.168.0.1/", `192.168.0.1 is a private address${unlisted}`],
      ["http://100.64.0.1/", `100.64.0.1 is a private (carrier-grade NAT) address${unlisted}`],
      ["http://[fd00::1]/", `fd00::1 is a private address${unlisted}`],
      ["http://localhost:9/", `localhost is a loopback address${unlisted}`],
      ["http://api.localhost:9/", `api.localhost is a loopback address${unlisted}`],
      ["http://app.test:9/", `app.test resolves to 127.0.0.1, a loopback address${unlisted}`],
      ["http://mixed.test/", `mixed.test resolves to 10.0.0.7, a private address${unlisted}`],
      ["http://mapped.test:9/", `mapped.test resolves to ::ffff:127.0.0.1, a loopback address${unlisted}`],
      ["http://metadata.test/", `metadata.test resolves to 169.254.169.254, a link-local address${unlisted}`],
      // Listed with another port, or another loopback address than the one listed.
      ["http://127.0.0.1:8081/", `127.0.0.1 is a loopback address${unlisted}`],
      ["http://127.0.0.2:8080/", `127.0.0.2 is a loopback address${unlisted}`],
      // What a resolver cannot vouch for.
      ["http://nowhere.test/", "nowhere.test could not be resolved (ENOTFOUND)"],
      ["http://empty.test/", "empty.test resolves to no address"],
      ["http://garbage.test/", "garbage.test resolves to something that is not an IP address (not-an-ip)"],
    ];
    const check = async (url: string) => {
      const signal = new AbortController().signal;
      return checkedAddress(new URL(url), guard, signal).then(
        (pinned) => pinned,
        (e: Error) => e.message,
      );
    };
    expect(await Promise.all(cases.map(async ([url]) => [url, await check(url)]))).toEqual(cases.map(([url, why]) => [url, `Network access denied: ${why}: ${new URL(url).href}`]));
    // What the host listed, and public addresses, pass: the address to connect to is the one checked.
    expect(await check("http://127.0.0.1:8080/")).toEqual({ address: "127.0.0.1", family: 4 });
    expect(await check("http://[::ffff:127.0.0.1]:8080/")).toEqual({ address: "::ffff:7f00:1", family: 6 });
    expect(await check("http://localhost:7000/")).toEqual({ address: "127.0.0.1", family: 4 });
    expect(await check("http://public.test/")).toEqual({ address: "93.184.216.34", family: 4 });
    expect(await check("http://93.184.216.34/")).toEqual({ address: "93.184.216.34", family: 4 });
    // An unlisted localhost is refused by its name: no resolver was asked about it.
    expect(resolve.asked.filter((h) => h.includes("localhost"))).toEqual(["localhost"]);
  });

  it("refuses before any connection", async () => {
    const g = { ...networkGuard([], [], resolverOf(LOOPBACK_NAMES)), refuseUrl: () => null };
    const urls = [`http://127.0.0.1:${t.app.port}/`, `http://localhost:${t.db.port}/`, `http://app.test:${t.app.port}/`, `http://[::ffff:127.0.0.1]:${t.db.port}/`];
    for (const url of urls) {
      const e = await guardedRequest(url, { method: "GET", signal: AbortSignal.timeout(5000), maxBytes: 1000 }, g).catch((err: Error) => err);
      expect(e).toBeInstanceOf(Error);
      expect((e as Error).message).toMatch(/^Network access denied: .* a loopback address, which this server's host has not listed in RUNNER_NETWORK_ALLOW: /);
    }
    expect([t.app.connections, t.db.connections]).toEqual([0, 0]);
  });

  it("connects to the address it checked, not to a second answer", async () => {
    // A resolver that answers once with the listed loopback address, and with another (where nothing listens) after.
    let calls = 0;
    const rebinding: Resolver = async () => [{ address: calls++ === 0 ? "127.0.0.1" : "127.0.0.2", family: 4 }];
    const g = { ...networkGuard([], [`http://127.0.0.1:${t.app.port}/`], rebinding), refuseUrl: () => null };
    const r = await guardedRequest(`http://app.test:${t.app.port}/pinned`, { method: "GET", signal: AbortSignal.timeout(5000), maxBytes: 1000 }, g);
    expect([r.status, new TextDecoder().decode(r.body), calls, t.app.paths]).toEqual([200, "hello from /pinned\n", 1, ["/pinned"]]);
  });
});

/** The sandbox as the runner builds it (lib/server/runner/hosted-mind.ts): the mind's permissions bounded by the host's list. */
function runnerShell(mindAllow: string[], hostAllow: string[], resolve: Resolver) {
  const permissions: Permissions = { ...DEFAULT_PERMISSIONS, network: { allow: mindAllow } };
  const network = hostBoundNetwork(permissions, hostAllow, { resolve });
  const shell = justBashSandbox({
    fs: new InMemoryFs(),
    flush: async () => {},
    permissions: { ...permissions, network: { allow: network.allow } },
    ids: { uuid: () => "00000000-0000-4000-8000-000000000000" },
    clock: { now: () => 0 },
    fetch: network.fetch,
    network: network.sandbox,
    commands: [skills],
  });
  // curl and `skills install` use none of the run's scope.
  const unused = () => {
    throw new Error("not used here");
  };
  const session = shell.open({ traj: unused as never, chat: unused as never, shellm: unused as never, alarms: unused as never, depth: 0 } as ShellScope);
  return async (code: string) => {
    const r = await session.exec(code, { env: {}, cwd: WORKSPACE, signal: new AbortController().signal });
    return { stdout: r.stdout, stderr: r.stderr, exit: r.exit };
  };
}

const refused = (stderr: string, exit: number) => ({ stdout: "", stderr, exit });

describe("the runner's sandbox", () => {
  it("refuses the app's and the database's ports on loopback, by address and by name, with no connection made", async () => {
    const { app, db } = t;
    const resolve = resolverOf(LOOPBACK_NAMES);
    // The host lists names; the mind lists those and the loopback addresses themselves.
    const host = [`http://app.test:${app.port}/`, `http://db.test:${db.port}/`];
    const mind = [`http://127.0.0.1:${app.port}/`, `http://127.0.0.1:${db.port}/`, `http://localhost:${app.port}/`, ...host];
    const run = runnerShell(mind, host, resolve);
    const notHost = (url: string) => `Network access denied: URL not in what this server's host allows (on this server this mind may reach ${host.join(", ")}): ${url}`;
    const loopback = (name: string, url: string) => `Network access denied: ${name} resolves to 127.0.0.1, a loopback address, which this server's host has not listed in RUNNER_NETWORK_ALLOW: ${url}`;

    const appUrl = `http://127.0.0.1:${app.port}/`;
    const dbUrl = `http://127.0.0.1:${db.port}/`;
    const localUrl = `http://localhost:${app.port}/`;
    expect(await run(`curl ${appUrl}`)).toEqual(refused(`curl: (7) ${notHost(appUrl)}\n`, 7));
    expect(await run(`curl ${dbUrl}`)).toEqual(refused(`curl: (7) ${notHost(dbUrl)}\n`, 7));
    expect(await run(`curl ${localUrl}`)).toEqual(refused(`curl: (7) ${notHost(localUrl)}\n`, 7));
    expect(await run(`curl http://app.test:${app.port}/`)).toEqual(refused(`curl: (7) ${loopback("app.test", `http://app.test:${app.port}/`)}\n`, 7));
    expect(await run(`curl http://db.test:${db.port}/`)).toEqual(refused(`curl: (7) ${loopback("db.test", `http://db.test:${db.port}/`)}\n`, 7));
    // The agent's commands fetch through the same guard.
    expect(await run(`skills install ${appUrl}hello.md`)).toEqual(refused(`skills install: network: ${notHost(`${appUrl}hello.md`).replace("Network access denied: ", "")}\n`, 1));
    expect(await run(`skills install http://app.test:${app.port}/hello.md`)).toEqual(
      refused(
        `skills install: network: http://app.test:${app.port}/hello.md could not be fetched (refused before connecting: app.test resolves to 127.0.0.1, a loopback address, which this server's host has not listed in RUNNER_NETWORK_ALLOW)\n`,
        1,
      ),
    );
    expect([app.connections, db.connections]).toEqual([0, 0]);
  });

  it("reaches what the host listed itself, and still nothing else", async () => {
    const { app, db } = t;
    const resolve = resolverOf(LOOPBACK_NAMES);
    const host = [`http://127.0.0.1:${app.port}/`, `http://db.test:${db.port}/`];
    const mind = [`http://127.0.0.1:${app.port}/`, `http://127.0.0.1:${db.port}/`, `http://db.test:${db.port}/`];
    const run = runnerShell(mind, host, resolve);
    const dbUrl = `http://127.0.0.1:${db.port}/`;

    expect(await run(`curl -s http://127.0.0.1:${app.port}/ok`)).toEqual({ stdout: "hello from /ok\n", stderr: "", exit: 0 });
    expect(await run(`skills install http://127.0.0.1:${app.port}/hello.md && skills list`)).toEqual({
      stdout: "installed hello: Says hello.\nhello  Says hello.\n",
      stderr: "",
      exit: 0,
    });
    expect(await run(`curl ${dbUrl}`)).toEqual(refused(`curl: (7) Network access denied: URL not in what this server's host allows (on this server this mind may reach ${host.join(", ")}): ${dbUrl}\n`, 7));
    // A redirect is a request of its own: to the database's port by address (not listed), then by name (resolves to loopback).
    expect(await run(`curl -L http://127.0.0.1:${app.port}/to-db`)).toEqual(
      refused(`curl: (7) Network access denied: URL not in what this server's host allows (on this server this mind may reach ${host.join(", ")}): ${dbUrl}\n`, 7),
    );
    expect(await run(`curl -L http://127.0.0.1:${app.port}/to-db-by-name`)).toEqual(
      refused(`curl: (7) Network access denied: db.test resolves to 127.0.0.1, a loopback address, which this server's host has not listed in RUNNER_NETWORK_ALLOW: http://db.test:${db.port}/\n`, 7),
    );
    // Only the methods curl has in the tab.
    expect(await run(`curl -X POST http://127.0.0.1:${app.port}/ok`)).toEqual(refused("curl: (3) HTTP method 'POST' not allowed. Allowed methods: GET, HEAD\n", 3));
    expect(app.paths).toEqual(["/ok", "/hello.md", "/to-db", "/to-db-by-name"]);
    expect([app.connections, db.connections]).toEqual([4, 0]);
  });

  it("with nothing listed by the host, refuses every URL and says so", async () => {
    const { app, db } = t;
    const resolve = resolverOf(LOOPBACK_NAMES);
    const mind = [`http://127.0.0.1:${app.port}/`, `http://127.0.0.1:${db.port}/`, `http://localhost:${app.port}/`, "https://example.com/"];
    const run = runnerShell(mind, [], resolve);
    const nothing = "this server's host allows minds no network (RUNNER_NETWORK_ALLOW is empty)";
    for (const url of [...mind, "https://elsewhere.example/"]) {
      expect(await run(`curl ${url}`)).toEqual(refused(`curl: (7) Network access denied: ${nothing}: ${url}\n`, 7));
      expect(await run(`skills install ${url}x.md`)).toEqual(refused(`skills install: network: ${nothing}: ${url}x.md\n`, 1));
    }
    expect(resolve.asked).toEqual([]);
    expect([app.connections, db.connections]).toEqual([0, 0]);
  });

  it("keeps the mind's own network off when its list is empty, whatever the host lists", async () => {
    const run = runnerShell([], [`http://127.0.0.1:${t.app.port}/`], resolverOf({}));
    const url = `http://127.0.0.1:${t.app.port}/`;
    expect(await run(`curl ${url}`)).toEqual(refused(`curl: (7) Network access denied: the network is off for this mind (its human can allow URL prefixes in Settings): ${url}\n`, 7));
    expect(t.app.connections).toBe(0);
  });
});
