// The network guard that Node in the WebContainer preloads (see ./net-guard):
// the text of a CommonJS file, kept as a string so the page can write it into
// the container without a loader for .cjs files. It is tested as it is, by
// running it in real Node (test/unit/shell/webcontainer/net-guard-script.test.ts).
// Written without backticks or dollar-braces, so the text is exactly the file.
//
// It reads the mind's allow-list from REVERIE_NET_ALLOW (a JSON array of URL
// prefixes; empty: no network) and replaces the JavaScript doors to the
// network with locked functions that keep to it: fetch, http(s).request/get
// and WebSocket by URL (same rule as curl: origin equal, path a prefix at a
// segment boundary), raw sockets (net, tls) and DNS by host, UDP never. Child
// processes and worker threads get the guard again whatever environment they
// are given.
//
// A defence, not a sandbox: code set on getting out can still (native
// bindings reached through flags such as --expose-internals, this file
// rewritten and then loaded by a child process, or by the next process of
// another mind sharing the tab's container; `new http.ClientRequest` to an
// allowed host past the URL check). It makes the ordinary ways (npm, fetch,
// http.get, a library's socket) keep to what the mind's owner allowed, and
// locks what it replaces, so that putting the originals back fails.
export const NET_GUARD_SCRIPT = String.raw`"use strict";
// Reverie's network guard: preloaded by NODE_OPTIONS=--require, written by the
// page before each spawn. A defence, not a sandbox (see lib/shell/webcontainer/net-guard-script.ts).
// A Node where it cannot be put in place does not run: it throws.
try {
  (function reverieNetGuard() {
    const MARK = Symbol.for("reverie.net-guard");
    if (globalThis[MARK]) return; // a second --require of the same guard
    Object.defineProperty(globalThis, MARK, { value: true });

    const ALLOW = readAllow(process.env.REVERIE_NET_ALLOW);
    const PREFIXES = ALLOW.map((p) => { try { return new URL(p); } catch { return null; } }).filter(Boolean);
    const OFF = PREFIXES.length === 0;
    const SETTINGS = "its human can allow URL prefixes in Settings";

    function readAllow(text) {
      try {
        const list = JSON.parse(text || "[]");
        return Array.isArray(list) ? list.filter((s) => typeof s === "string") : [];
      } catch {
        return [];
      }
    }

    function refusal(what) {
      const why = OFF
        ? "the network is off for this mind (" + SETTINGS + ")"
        : "it is not under this mind's network allow-list: " + ALLOW.join(", ") + " (" + SETTINGS + ")";
      const e = new Error("reverie: " + what + " refused: " + why);
      e.code = "ERR_REVERIE_NETWORK";
      return e;
    }

    // Same rule as lib/trajectory/permissions.ts urlAllowed; ws: and wss: count as http: and https:.
    function urlAllowed(raw) {
      let u;
      try { u = new URL(String(raw)); } catch { return false; }
      const scheme = u.protocol === "ws:" ? "http:" : u.protocol === "wss:" ? "https:" : u.protocol;
      return PREFIXES.some((p) => {
        if (p.protocol + "//" + p.host !== scheme + "//" + u.host) return false;
        if (p.pathname === "/" || p.pathname === "") return true;
        const base = p.pathname.endsWith("/") ? p.pathname : p.pathname + "/";
        return u.pathname === p.pathname || u.pathname.startsWith(base);
      });
    }

    const bare = (h) => String(h).toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
    const portOf = (p) => Number(p.port || (p.protocol === "https:" ? 443 : 80));

    /** A host (and port, when known) that some allowed prefix names. */
    function hostAllowed(host, port) {
      return PREFIXES.some((p) => bare(p.hostname) === bare(host) && (port === undefined || portOf(p) === Number(port)));
    }

    /** Replace a property so that it cannot be written or redefined again. */
    function lock(obj, name, value) {
      const was = Object.getOwnPropertyDescriptor(obj, name);
      Object.defineProperty(obj, name, { value, writable: false, configurable: false, enumerable: was ? was.enumerable : true });
    }

    /** A built-in module, or null where this Node has none (nothing to guard then). */
    function builtin(name) {
      try { return require(name); } catch { return null; }
    }

    // --- raw sockets: every TCP/TLS connection goes through net.Socket.prototype.connect.
    const net = builtin("net");
    if (net) {
      const realConnect = net.Socket.prototype.connect;
      const target = (args) => {
        let a = args[0];
        if (Array.isArray(a)) a = a[0]; // net.connect's normalized arguments
        if (a !== null && typeof a === "object") {
          if (a.path !== undefined && a.path !== null) return { what: "connection to " + a.path };
          return { host: a.host || "localhost", port: a.port };
        }
        if (typeof a === "number" || (typeof a === "string" && /^\d+$/.test(a))) return { host: typeof args[1] === "string" ? args[1] : "localhost", port: a };
        return { what: "connection to " + String(a) };
      };
      lock(net.Socket.prototype, "connect", function connect(...args) {
        const t = target(args);
        if (t.host !== undefined && hostAllowed(t.host, t.port)) return realConnect.apply(this, args);
        const err = refusal(t.what || "connection to " + t.host + ":" + t.port);
        this.connecting = true; // callers wait for "connect" (http2 would take the socket as connected), and get the error
        setImmediate(() => this.destroy(err));
        return this;
      });
    }

    // --- http and https by URL, so a prefix with a path is kept to. A refused
    // request still is a ClientRequest, whose socket fails with the refusal.
    function requestUrl(args, scheme) {
      let base = null;
      let opts = {};
      if (typeof args[0] === "string" || args[0] instanceof URL) {
        try { base = new URL(String(args[0])); } catch { return null; }
        if (args[1] && typeof args[1] === "object") opts = args[1];
      } else if (args[0] && typeof args[0] === "object") opts = args[0];
      if (opts.socketPath) return null;
      const protocol = opts.protocol || (base ? base.protocol : scheme);
      const named = opts.hostname || opts.host;
      const hostname = String(named || (base ? base.hostname : "localhost"));
      const port = opts.port !== undefined && opts.port !== null && opts.port !== "" ? opts.port : base && !named ? base.port : opts.defaultPort || "";
      const path = opts.path || (base ? base.pathname + base.search : "/");
      const host = hostname.includes(":") && !hostname.startsWith("[") ? "[" + hostname + "]" : hostname;
      try { return new URL(protocol + "//" + host + (port ? ":" + port : "") + path).href; } catch { return null; }
    }

    function refusedArgs(args, err) {
      const createConnection = () => {
        const socket = new net.Socket();
        socket.connecting = true; // what the request writes waits, as for a socket still connecting
        setImmediate(() => socket.destroy(err));
        return socket;
      };
      const out = args.slice();
      const at = typeof out[0] === "string" || out[0] instanceof URL ? 1 : 0;
      if (at === 1 && (out[1] === null || typeof out[1] !== "object")) out.splice(1, 0, {});
      out[at] = Object.assign({}, out[at], { agent: null, createConnection, socketPath: undefined });
      return out;
    }

    for (const [name, scheme] of [["http", "http:"], ["https", "https:"]]) {
      const mod = builtin(name);
      if (!mod || !net) continue;
      const realRequest = mod.request;
      const request = function request(...args) {
        const url = requestUrl(args, scheme);
        if (url !== null && urlAllowed(url)) return realRequest.apply(this, args);
        return realRequest.apply(this, refusedArgs(args, refusal(name + " request to " + (url || "a local socket"))));
      };
      lock(mod, "request", request);
      lock(mod, "get", function get(...args) {
        const req = request.apply(this, args);
        req.end();
        return req;
      });
    }

    // http2 wraps a refused socket in a stream that looks connected: refuse before, by
    // origin (its streams' paths are not seen here, so only a whole allowed origin will do).
    const http2 = builtin("http2");
    if (http2) {
      const realH2 = http2.connect;
      lock(http2, "connect", function connect(authority, ...rest) {
        const url = authority instanceof URL ? authority.href : typeof authority === "string" ? authority : authority && authority.protocol + "//" + (authority.host || authority.hostname) + "/";
        if (!urlAllowed(url)) throw refusal("http2 session with " + String(url));
        return realH2.call(this, authority, ...rest);
      });
    }

    // --- fetch by URL; a redirect is followed only to a URL that is allowed too.
    if (typeof globalThis.fetch === "function") {
      const realFetch = globalThis.fetch;
      const REDIRECT = new Set([301, 302, 303, 307, 308]);
      const isRequest = (x) => typeof Request === "function" && x instanceof Request;
      lock(globalThis, "fetch", async function fetch(input, init) {
        let url = isRequest(input) ? input.url : String(input);
        if (!urlAllowed(url)) throw refusal("fetch " + url);
        const wanted = (init && init.redirect) || (isRequest(input) ? input.redirect : "follow");
        if (wanted !== "follow") return realFetch(input, init);
        let opts = Object.assign({}, init, { redirect: "manual" });
        let next = input;
        for (let hop = 0; ; hop++) {
          const res = await realFetch(next, opts);
          const location = res.headers.get("location");
          if (!REDIRECT.has(res.status) || location === null) return res;
          const method = String(opts.method || (isRequest(next) ? next.method : "GET")).toUpperCase();
          const toGet = (res.status === 303 && method !== "HEAD") || ((res.status === 301 || res.status === 302) && method === "POST");
          if (!toGet && method !== "GET" && method !== "HEAD") return res; // its body cannot be sent again: as "manual" gives it
          if (hop === 20) throw new TypeError("fetch failed: too many redirects");
          const to = new URL(location, url).href;
          if (!urlAllowed(to)) throw refusal("fetch " + to + " (a redirect from " + url + ")");
          if (res.body) await res.body.cancel().catch(() => undefined);
          if (isRequest(next)) opts = Object.assign({ method: next.method, headers: next.headers }, opts);
          if (toGet) opts = Object.assign({}, opts, { method: "GET", body: undefined });
          next = to;
          url = to;
        }
      });
    }

    // --- name lookups: only of hosts an allowed prefix names.
    function guardLookups(obj, promised) {
      if (!obj) return;
      for (const name of Object.getOwnPropertyNames(obj)) {
        if (!/^(lookup|lookupService|reverse|resolve\w*)$/.test(name)) continue;
        const real = obj[name];
        if (typeof real !== "function") continue;
        lock(obj, name, function (...args) {
          if (hostAllowed(args[0])) return real.apply(this, args);
          const err = refusal("DNS " + name + " of " + String(args[0]));
          if (promised) return Promise.reject(err);
          const callback = args.filter((a) => typeof a === "function").pop();
          if (!callback) throw err;
          process.nextTick(callback, err);
        });
      }
    }
    const dns = builtin("dns");
    if (dns) {
      guardLookups(dns, false);
      if (dns.Resolver) guardLookups(dns.Resolver.prototype, false);
      const promises = builtin("dns/promises");
      guardLookups(promises, true);
      if (promises && promises.Resolver) guardLookups(promises.Resolver.prototype, true);
    }

    // --- UDP: no prefix names it; never.
    const dgram = builtin("dgram");
    if (dgram) {
      for (const name of ["send", "connect"]) {
        lock(dgram.Socket.prototype, name, function (...args) {
          const err = refusal("UDP " + name);
          const callback = args.filter((a) => typeof a === "function").pop();
          process.nextTick(() => (callback ? callback(err) : this.emit("error", err)));
        });
      }
    }

    // --- the web's doors, where this Node (or the browser under a WebContainer) has them.
    function guardConstructor(name, describe) {
      const Real = globalThis[name];
      if (typeof Real !== "function") return;
      const Guarded = new Proxy(Real, {
        construct(target, args, newTarget) {
          if (!urlAllowed(args[0])) throw refusal(describe + " " + String(args[0]));
          return Reflect.construct(target, args, newTarget);
        },
        apply() {
          throw refusal(describe);
        },
      });
      if (Real.prototype) lock(Real.prototype, "constructor", Guarded);
      lock(globalThis, name, Guarded);
    }
    guardConstructor("WebSocket", "WebSocket to");
    guardConstructor("EventSource", "EventSource from");
    if (typeof globalThis.XMLHttpRequest === "function") {
      const realOpen = globalThis.XMLHttpRequest.prototype.open;
      lock(globalThis.XMLHttpRequest.prototype, "open", function open(method, url, ...rest) {
        if (!urlAllowed(url)) throw refusal("XMLHttpRequest to " + String(url));
        return realOpen.call(this, method, url, ...rest);
      });
    }
    if (typeof navigator === "object" && navigator && typeof navigator.sendBeacon === "function") {
      const realBeacon = navigator.sendBeacon.bind(navigator);
      lock(navigator, "sendBeacon", (url, data) => urlAllowed(url) && realBeacon(url, data));
    }
    for (const name of ["WebTransport", "RTCPeerConnection", "importScripts"]) {
      if (typeof globalThis[name] === "function") {
        lock(globalThis, name, function () {
          throw refusal(name);
        });
      }
    }

    // --- the native sockets under net, dns and dgram.
    const NATIVE = new Set(["tcp_wrap", "udp_wrap", "pipe_wrap", "tls_wrap", "cares_wrap", "stream_wrap", "js_stream"]);
    for (const name of ["binding", "_linkedBinding"]) {
      const real = process[name];
      if (typeof real !== "function") continue;
      lock(process, name, function (module) {
        if (NATIVE.has(String(module))) throw refusal("process." + name + "(" + String(module) + ")");
        return real.call(this, module);
      });
    }

    // --- child processes and worker threads: the guard again, with this process's allow-list, whatever env they are given.
    const cp = builtin("child_process");
    if (cp) {
      const file = __filename;
      const ours = "--require " + (/[\s"]/.test(file) ? JSON.stringify(file) : file);
      const forced = { REVERIE_NET_ALLOW: JSON.stringify(ALLOW) };
      if (process.env.npm_config_offline === "true") forced.npm_config_offline = "true";
      const forcedNames = new Set(Object.keys(forced).map((k) => k.toLowerCase()));
      const guardedEnv = (env) => {
        const out = {};
        for (const k of Object.keys(env)) if (!forcedNames.has(k.toLowerCase())) out[k] = env[k];
        const theirs = typeof out.NODE_OPTIONS === "string" ? out.NODE_OPTIONS.trim() : "";
        out.NODE_OPTIONS = theirs === ours || theirs.startsWith(ours + " ") ? theirs : (ours + " " + theirs).trim();
        return Object.assign(out, forced);
      };
      // Where each function takes its options: after the arguments array, if it has one.
      const withEnv = (real, hasArgs) =>
        function (...a) {
          const at = hasArgs && (Array.isArray(a[1]) || a[1] === undefined || a[1] === null) ? 2 : 1;
          if (typeof a[at] === "function") a.splice(at, 0, {}); // (…, callback): the options go before it
          const given = a[at] !== null && typeof a[at] === "object" ? a[at] : {};
          a[at] = Object.assign({}, given, { env: guardedEnv(given.env || process.env) });
          return real.apply(this, a);
        };
      for (const [name, hasArgs] of [["spawn", true], ["spawnSync", true], ["execFile", true], ["execFileSync", true], ["fork", true], ["exec", false], ["execSync", false]]) {
        if (typeof cp[name] === "function") lock(cp, name, withEnv(cp[name], hasArgs));
      }
      // Workers load preloads from their own NODE_OPTIONS (or execArgv); give them ours in both.
      const threads = builtin("worker_threads");
      if (threads && typeof threads.Worker === "function") {
        const RealWorker = threads.Worker;
        const GuardedWorker = new Proxy(RealWorker, {
          construct(target, args, newTarget) {
            const given = args[1] !== null && typeof args[1] === "object" ? args[1] : {};
            const options = Object.assign({}, given, { execArgv: ["--require", file].concat(given.execArgv || process.execArgv) });
            if (given.env !== threads.SHARE_ENV) options.env = guardedEnv(given.env || process.env);
            return Reflect.construct(target, [args[0], options].concat(args.slice(2)), newTarget);
          },
        });
        lock(RealWorker.prototype, "constructor", GuardedWorker);
        lock(threads, "Worker", GuardedWorker);
      }
      const proto = cp.ChildProcess && cp.ChildProcess.prototype;
      if (proto && typeof proto.spawn === "function") {
        const realSpawn = proto.spawn;
        lock(proto, "spawn", function spawn(options) {
          if (options && Array.isArray(options.envPairs)) {
            const env = {};
            for (const pair of options.envPairs) {
              const eq = String(pair).indexOf("=");
              if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
            }
            options.envPairs = Object.entries(guardedEnv(env)).map(([k, v]) => k + "=" + v);
          }
          return realSpawn.call(this, options);
        });
      }
    }
  })();
} catch (e) {
  throw new Error("reverie: the network guard could not be put in place here (" + (e && e.message) + "), so this process does not run without it");
}
`;
