// The WebContainer backend against a fake of its API: boot and its time
// limit, the workspace copied in and back, the network guard every process
// starts with, limits and kills, the bridge between worker and page, and the
// node/npm/npx commands on top. (The guard script itself runs in real Node:
// net-guard-script.test.ts.)
import { InMemoryFs, type IFileSystem } from "just-bash";
import { describe, expect, it } from "vitest";
import { node, npm, npx, type NodePorts } from "@/lib/shell/commands/node";
import type { CommandIO } from "@/lib/shell/commands/command";
import type { RuntimeStatus, SpawnRequest, SpawnResult } from "@/lib/shell/ports";
import { justBashSandbox } from "@/lib/shell/just-bash-sandbox";
import { DEFAULT_PERMISSIONS } from "@/lib/trajectory/permissions";
import { CANCEL_ANSWER_MS, RuntimeBridge, type RuntimeReplyMessage, type RuntimeRequestMessage } from "@/lib/shell/webcontainer/bridge";
import { linkRuntime } from "@/lib/shell/webcontainer/link";
import { GUARD_FILE } from "@/lib/shell/webcontainer/net-guard";
import { WebContainerRuntime } from "@/lib/shell/webcontainer/runtime";
import { FakeClock, settle, until } from "../../helpers/fake-clock";
import { fakeBoot, heldBoot, text, utf8 } from "../../helpers/fake-webcontainer";

const never = new AbortController().signal;

/** Minds m1's and m2's spaces, their network off as it is by default. */
const M1 = { space: "m1", allow: [] };
const M2 = { space: "m2", allow: [] };

/** What every process gets when its mind has no network (the guard as processes see it: under the workdir). */
const GUARD_ENV = { NODE_OPTIONS: `--require /home/reverie/${GUARD_FILE}`, REVERIE_NET_ALLOW: "[]", npm_config_offline: "true" };

function req(command: string, args: string[], files: SpawnRequest["files"] = [], cwd = "/workspace", env: Record<string, string> = {}): SpawnRequest {
  return { command, args, cwd, env, files };
}

/** A result with its files as [path, text] pairs, to compare whole. */
const readable = (r: SpawnResult) => ({ ...r, files: r.files.map((f) => [f.path, utf8(f.data)]) });

async function booted() {
  const boot = fakeBoot();
  const clock = new FakeClock();
  const rt = new WebContainerRuntime(boot, clock);
  await rt.boot();
  return { rt, boot, clock, wc: boot.latest() };
}

describe("WebContainerRuntime: boot", () => {
  it("boots, and says so to its subscribers", async () => {
    const rt = new WebContainerRuntime(fakeBoot(), new FakeClock());
    const seen: RuntimeStatus[] = [];
    rt.subscribe((s) => seen.push(s));
    expect(rt.status()).toEqual({ state: "off" });
    await expect(rt.boot()).resolves.toEqual({ state: "ready" });
    expect(seen).toEqual([{ state: "booting" }, { state: "ready" }]);
  });

  it("gives up after 20 s with a reason, and still takes a boot that finishes later", async () => {
    const boot = heldBoot();
    const clock = new FakeClock();
    const rt = new WebContainerRuntime(boot, clock);
    const booting = rt.boot();
    await until(() => clock.sleeping.includes(20_000), "the boot timer");
    expect(rt.status()).toEqual({ state: "booting" });
    clock.advance(20_000);
    await expect(booting).resolves.toEqual({
      state: "unavailable",
      reason: "the WebContainer did not boot within 20 s (StackBlitz's servers could not be reached?)",
    });
    boot.finish();
    await until(() => rt.status().state === "ready", "the late boot taken");
    expect(boot.calls).toBe(1);
  });

  it("a boot that fails is unavailable with the error; booting again tries again", async () => {
    const boot = heldBoot();
    const rt = new WebContainerRuntime(boot, new FakeClock());
    const booting = rt.boot();
    await until(() => boot.calls === 1, "boot called");
    boot.fail("Failed to fetch");
    await expect(booting).resolves.toEqual({ state: "unavailable", reason: "the WebContainer failed to boot (Failed to fetch)" });
    const again = rt.boot();
    await until(() => boot.calls === 2, "boot called again");
    boot.finish();
    await expect(again).resolves.toEqual({ state: "ready" });
  });

  it("an internal error of the container makes it unavailable and tears it down", async () => {
    const { rt, wc } = await booted();
    wc.emitError("out of memory");
    expect(rt.status()).toEqual({ state: "unavailable", reason: "the WebContainer stopped with an error (out of memory)" });
    expect(wc.torn).toBe(true);
  });

  it("does not run anything before it is ready", async () => {
    const rt = new WebContainerRuntime(fakeBoot(), new FakeClock());
    await expect(rt.spawn(req("node", ["-v"]), never, M1)).resolves.toEqual({ output: "", exit: 127, files: [], ended: "not run: the WebContainer is off" });
  });
});

describe("WebContainerRuntime: the workspace in and out", () => {
  it("copies files in, runs, and copies back what the process wrote and removed", async () => {
    const { rt, wc } = await booted();
    const files = [
      { path: "/workspace/src/in.txt", data: text("copied") },
      { path: "/workspace/old.txt", data: text("bye") },
      { path: "/workspace/node_modules/x/index.js", data: text("not copied") },
      { path: "/tmp/elsewhere.txt", data: text("not in the workspace") },
    ];
    const script = 'fs.writeFileSync("out.txt", fs.readFileSync("src/in.txt","utf8"));fs.rmSync("old.txt");console.log(process.cwd())';
    const r = await rt.spawn(req("node", ["-e", script], files), never, M1);
    expect(readable(r)).toEqual({
      output: "/workspace\n",
      exit: 0,
      files: [
        ["/workspace/out.txt", "copied"],
        ["/workspace/old.txt", null],
      ],
    });
    // The guard sits beside the space, never in it (nothing copies it back).
    expect([...wc.fs.files.keys()].sort()).toEqual([GUARD_FILE, "m1/out.txt", "m1/src/in.txt"]);
  });

  it("maps /workspace in arguments, variables and the working directory, and back in the output", async () => {
    const { rt, wc } = await booted();
    const main = "console.log(process.argv[1]);console.log(process.argv[2]);console.log(process.env.DATA);console.log(process.cwd())";
    const r = await rt.spawn(
      req("node", ["/workspace/src/main.js", "/workspace/data"], [{ path: "/workspace/src/main.js", data: text(main) }], "/workspace/src", { DATA: "/workspace/data.json", KEEP: "/workspaces" }),
      never,
      M1,
    );
    expect(wc.spawned).toEqual([
      { command: "node", args: ["/home/reverie/m1/src/main.js", "/home/reverie/m1/data"], cwd: "m1/src", env: { DATA: "/home/reverie/m1/data.json", KEEP: "/workspaces", ...GUARD_ENV } },
    ]);
    expect(r).toEqual({ output: "/workspace/src/main.js\n/workspace/data\n/workspace/data.json\n/workspace/src\n", exit: 0, files: [] });
  });

  it("keeps node_modules in the container: npm install sends back package.json only", async () => {
    const { rt, wc } = await booted();
    const r = await rt.spawn(req("npm", ["install", "left-pad"]), never, M1);
    // The spinner is gone from the output; what the terminal finally shows stays.
    expect(readable(r)).toEqual({ output: "added 1 package in 1s\n", exit: 0, files: [["/workspace/package.json", '{"dependencies":{"left-pad":"1.0.0"}}\n']] });
    expect(wc.fs.files.has("m1/node_modules/left-pad/index.js")).toBe(true);
  });

  it("does not write again what the container already has (only the guard, before every spawn)", async () => {
    const { rt, wc } = await booted();
    const files = [{ path: "/workspace/a.txt", data: text("a") }];
    await rt.spawn(req("node", ["-e", "process.exit(0)"], files), never, M1);
    const writes = wc.fs.writes;
    await rt.spawn(req("node", ["-e", "process.exit(0)"], files), never, M1);
    expect(wc.fs.writes).toBe(writes + 1);
  });

  it("after forget, the next request is the whole workspace: what it does not list is removed", async () => {
    const { rt, wc } = await booted();
    await rt.spawn(req("node", ["-e", "process.exit(0)"], [{ path: "/workspace/a.txt", data: text("a") }, { path: "/workspace/b.txt", data: text("b") }]), never, M1);
    rt.forget("m1");
    const r = await rt.spawn(req("node", ["-e", "process.exit(0)"], [{ path: "/workspace/a.txt", data: text("a") }]), never, M1);
    expect(r).toEqual({ output: "", exit: 0, files: [] });
    expect([...wc.fs.files.keys()].sort()).toEqual([GUARD_FILE, "m1/a.txt"]);
  });

  it("keeps each mind in its own space", async () => {
    const { rt, wc } = await booted();
    await rt.spawn(req("node", ["-e", 'fs.writeFileSync("note.txt", "one")']), never, M1);
    const r = await rt.spawn(req("node", ["-e", 'fs.writeFileSync("note.txt", "two")']), never, M2);
    expect(readable(r).files).toEqual([["/workspace/note.txt", "two"]]);
    expect(utf8(wc.fs.files.get("m1/note.txt"))).toBe("one");
  });

  it("passes the process's exit code, and a command it does not have", async () => {
    const { rt } = await booted();
    await expect(rt.spawn(req("node", ["-e", 'console.log("bad");process.exit(3)']), never, M1)).resolves.toEqual({ output: "bad\n", exit: 3, files: [] });
    await expect(rt.spawn(req("deno", ["run"]), never, M1)).resolves.toEqual({ output: "jsh: command not found: deno\n", exit: 127, files: [] });
  });
});

describe("WebContainerRuntime: limits and kills", () => {
  it("cuts the output at 1 MiB and ends the process", async () => {
    const { rt, wc } = await booted();
    const r = await rt.spawn(req("node", ["-e", 'setInterval(()=>process.stdout.write("x".repeat(65536)))']), never, M1);
    expect({ ...r, output: r.output.length }).toEqual({ output: 1024 * 1024, exit: 143, files: [], ended: "killed: its output passed 1048576 bytes" });
    expect(r.output).toBe("x".repeat(1024 * 1024));
    expect(wc.processes[0]?.killed).toBe(true);
  });

  it("a stopped block kills its process, and what it wrote still comes back", async () => {
    const { rt, wc } = await booted();
    const stop = new AbortController();
    const running = rt.spawn(req("node", ["-e", 'console.log("working");fs.writeFileSync("partial.txt", "half");setInterval(()=>{})']), stop.signal, M1);
    await until(() => wc.fs.files.has("m1/partial.txt"), "the process wrote");
    stop.abort();
    expect(readable(await running)).toEqual({ output: "working\n", exit: 143, files: [["/workspace/partial.txt", "half"]], ended: "killed: the block was stopped" });
    expect(wc.processes[0]?.killed).toBe(true);
  });

  it("ends a process at the wall-time limit", async () => {
    const { rt, clock } = await booted();
    const running = rt.spawn(req("node", ["-e", "setInterval(()=>{})"]), never, M1);
    await until(() => clock.sleeping.includes(15 * 60_000), "the wall timer");
    clock.advance(15 * 60_000);
    await expect(running).resolves.toEqual({ output: "", exit: 143, files: [], ended: "killed: it ran longer than 900 s" });
  });

  it("a process that ignores kill: teardown, boot again, the spaces written back, the next spawn works", async () => {
    const { rt, boot, clock } = await booted();
    await rt.spawn(req("node", ["-e", "process.exit(0)"], [{ path: "/workspace/keep.txt", data: text("kept") }]), never, M1);
    // Another mind's process in the same container goes down with it.
    const other = rt.spawn(req("node", ["-e", "setInterval(()=>{})"]), never, M2);
    const stop = new AbortController();
    const stuck = rt.spawn(req("node", ["-e", 'console.log("stuck");fs.writeFileSync("lost.txt", "x");while(true){}']), stop.signal, M1);
    await until(() => boot.latest().fs.files.has("m1/lost.txt"), "the stuck process wrote");
    const seen: RuntimeStatus[] = [];
    rt.subscribe((s) => seen.push(s));
    stop.abort();
    await until(() => clock.sleeping.includes(2000), "the kill grace");
    const first = boot.latest();
    expect(first.processes[first.spawned.findIndex((s) => s.args[1]?.includes("while"))]?.killed).toBe(true);
    clock.advance(2000);
    await expect(stuck).resolves.toEqual({
      output: "stuck\n",
      exit: 137,
      files: [],
      ended: "killed: the block was stopped (the WebContainer was torn down and booted again)",
    });
    await expect(other).resolves.toEqual({ output: "", exit: 137, files: [], ended: "killed: the WebContainer was torn down (a process would not stop)" });
    expect(boot.booted.map((wc) => wc.torn)).toEqual([true, false]);
    expect(seen).toEqual([{ state: "booting" }, { state: "ready" }]);
    // The new container has the space as the page knew it; the stuck process's file is gone with the old one.
    const next = await rt.spawn(req("node", ["-e", 'console.log(fs.readFileSync("keep.txt","utf8"))']), never, M1);
    expect(next).toEqual({ output: "kept\n", exit: 0, files: [] });
    expect([...boot.latest().fs.files.keys()].sort()).toEqual([GUARD_FILE, "m1/keep.txt"]);
  });
});

describe("RuntimeBridge", () => {
  const ready: RuntimeReplyMessage = { type: "runtime-status", status: { state: "ready" } };
  const result: SpawnResult = { output: "hi\n", exit: 0, files: [{ path: "/workspace/a", data: text("a") }] };

  function bridge() {
    const sent: RuntimeRequestMessage[] = [];
    const clock = new FakeClock();
    return { sent, clock, bridge: new RuntimeBridge((m) => sent.push(m), clock) };
  }

  it("status is what the page last said, off until it says anything", () => {
    const { bridge: b } = bridge();
    expect(b.status()).toEqual({ state: "off" });
    b.onMessage({ type: "runtime-status", status: { state: "unavailable", reason: "this page is not cross-origin isolated" } });
    expect(b.status()).toEqual({ state: "unavailable", reason: "this page is not cross-origin isolated" });
  });

  it("a spawn is a request answered by the result with its id; output on the page is a sign of life", async () => {
    const { bridge: b, sent } = bridge();
    b.onMessage(ready);
    let beacons = 0;
    const call = b.spawn(req("node", ["-v"]), never, () => beacons++);
    expect(sent).toEqual([{ type: "runtime-spawn", id: 1, req: req("node", ["-v"]) }]);
    b.onMessage({ type: "runtime-alive", id: 1 });
    b.onMessage({ type: "runtime-result", id: 2, result: { output: "not mine", exit: 1, files: [] } });
    b.onMessage({ type: "runtime-result", id: 1, result });
    await expect(call).resolves.toEqual(result);
    expect(beacons).toBe(1);
  });

  it("a stop sends a cancel, and the page's answer still ends the call", async () => {
    const { bridge: b, sent } = bridge();
    b.onMessage(ready);
    const stop = new AbortController();
    const call = b.spawn(req("node", ["-v"]), stop.signal);
    stop.abort();
    expect(sent.at(-1)).toEqual({ type: "runtime-cancel", id: 1 });
    b.onMessage({ type: "runtime-result", id: 1, result: { output: "", exit: 143, files: [], ended: "killed: the block was stopped" } });
    await expect(call).resolves.toEqual({ output: "", exit: 143, files: [], ended: "killed: the block was stopped" });
  });

  it("a stop the page never answers ends the call after the grace", async () => {
    const { bridge: b, clock } = bridge();
    b.onMessage(ready);
    const stop = new AbortController();
    const call = b.spawn(req("node", ["-v"]), stop.signal);
    stop.abort();
    await until(() => clock.sleeping.includes(CANCEL_ANSWER_MS), "the grace timer");
    clock.advance(CANCEL_ANSWER_MS);
    await expect(call).resolves.toEqual({ output: "", exit: 127, files: [], ended: "lost: the page did not answer within 27 s of the stop" });
  });

  it("the page saying unavailable mid-call ends the call with the reason", async () => {
    const { bridge: b } = bridge();
    b.onMessage(ready);
    const call = b.spawn(req("node", ["-v"]), never);
    b.onMessage({ type: "runtime-status", status: { state: "unavailable", reason: "the WebContainer stopped with an error (oops)" } });
    await expect(call).resolves.toEqual({
      output: "",
      exit: 127,
      files: [],
      ended: "lost: the WebContainer became unavailable (the WebContainer stopped with an error (oops)); nothing was copied back",
    });
  });

  it("does not ask the page when the runtime is not ready", async () => {
    const { bridge: b, sent } = bridge();
    await expect(b.spawn(req("node", ["-v"]), never)).resolves.toEqual({ output: "", exit: 127, files: [], ended: "not run: the WebContainer is off" });
    expect(sent).toEqual([]);
  });
});

/** A worker's bridge and the page's link over a fake channel that clones like postMessage. */
function wired(opts: { enabled?: boolean; isolated?: boolean } = {}) {
  const boot = fakeBoot();
  const clock = new FakeClock();
  const rt = new WebContainerRuntime(boot, clock);
  const toPage: RuntimeRequestMessage[] = [];
  const shown: RuntimeStatus[] = [];
  let link: ReturnType<typeof linkRuntime> | null = null;
  const bridge = new RuntimeBridge((m) => {
    toPage.push(structuredClone(m));
    queueMicrotask(() => link?.onWorkerMessage(structuredClone(m)));
  }, clock);
  link = linkRuntime({
    runtime: () => rt,
    space: "m1",
    post: (m) => queueMicrotask(() => bridge.onMessage(structuredClone(m))),
    onStatus: (s) => shown.push(s),
    isolated: () => opts.isolated ?? true,
    now: () => clock.now(),
  });
  link.setEnabled(opts.enabled ?? true);
  return { boot, clock, rt, bridge, link, toPage, shown };
}

function shellIO(fs: IFileSystem, signal = never): CommandIO {
  return { stdin: "", cwd: "/workspace", env: new Map([["HOME", "/workspace"], ["PATH", "/usr/bin:/bin"], ["PWD", "/workspace"], ["GREETING", "hi"]]), fs, signal };
}

async function workspace(files: Record<string, string>): Promise<InMemoryFs> {
  const fs = new InMemoryFs();
  await fs.mkdir("/workspace", { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    await fs.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await fs.writeFile(path, content);
  }
  return fs;
}

describe("the page's link", () => {
  it("a mind without the permission hears off; a page that is not isolated, why", async () => {
    const off = wired({ enabled: false });
    expect(off.shown).toEqual([]);
    off.link.setEnabled(true);
    await until(() => off.bridge.status().state === "ready", "ready");
    off.link.setEnabled(false);
    expect(off.shown).toEqual([{ state: "booting" }, { state: "ready" }, { state: "off" }]);
    await settle();
    expect(off.bridge.status()).toEqual({ state: "off" });
    const plain = wired({ isolated: false });
    await settle();
    expect(plain.shown).toEqual([{ state: "unavailable", reason: "this page is not cross-origin isolated" }]);
    expect(plain.bridge.status()).toEqual({ state: "unavailable", reason: "this page is not cross-origin isolated" });
    expect(plain.boot.booted).toEqual([]);
  });

  it("boots when the permission is on and tells the worker", async () => {
    const w = wired();
    await until(() => w.bridge.status().state === "ready", "the worker hears ready");
    expect(w.shown).toEqual([{ state: "booting" }, { state: "ready" }]);
  });
});

describe("node, npm, npx", () => {
  const activity = { beacon: () => {} };
  const notAvailable = (name: string, why: string) => ({
    stdout: "",
    stderr: `${name}: real Node is not available here: ${why}. The built-in shell (bash, grep, sed, awk, jq …) still works.\n`,
    exitCode: 127,
  });
  const port = (status: RuntimeStatus): NodePorts => ({
    runtime: { status: () => status, spawn: () => Promise.reject(new Error("not to be called")) },
    activity,
  });

  it("say why when the WebContainer is off, booting or unavailable", async () => {
    const fs = await workspace({});
    await expect(node.run(["-v"], shellIO(fs), port({ state: "off" }))).resolves.toEqual(
      notAvailable("node", "WebContainer is off for this mind; its human can switch it on in Settings"),
    );
    await expect(npm.run(["install"], shellIO(fs), port({ state: "booting" }))).resolves.toEqual(
      notAvailable("npm", "the WebContainer is still booting; try again in a few seconds"),
    );
    const reason = "the WebContainer did not boot within 20 s (StackBlitz's servers could not be reached?)";
    await expect(npx.run(["cowsay"], shellIO(fs), port({ state: "unavailable", reason }))).resolves.toEqual(notAvailable("npx", reason));
  });

  it("run in the container over the same workspace: files go in, changes come back, node_modules stays there", async () => {
    const w = wired();
    await until(() => w.bridge.status().state === "ready", "ready");
    let beacons = 0;
    const ports: NodePorts = { runtime: w.bridge, activity: { beacon: () => beacons++ } };
    const fs = await workspace({
      "/workspace/hello.js": 'console.log("hello from node");fs.writeFileSync("made.txt", "by node");fs.rmSync("gone.txt")',
      "/workspace/gone.txt": "bye",
      "/workspace/node_modules/local/x.js": "stays here",
    });
    await expect(node.run(["hello.js"], shellIO(fs), ports)).resolves.toEqual({ stdout: "hello from node\n", stderr: "", exitCode: 0 });
    await expect(fs.readFile("/workspace/made.txt")).resolves.toBe("by node");
    await expect(fs.exists("/workspace/gone.txt")).resolves.toBe(false);
    expect(beacons).toBeGreaterThan(0);
    const spawns = () => w.toPage.flatMap((m) => (m.type === "runtime-spawn" ? [m.req] : []));
    expect(spawns()[0]?.files.map((f) => f.path).sort()).toEqual(["/workspace/gone.txt", "/workspace/hello.js"]);
    expect(w.boot.latest().spawned[0]?.env).toEqual({ GREETING: "hi", ...GUARD_ENV });

    await expect(npm.run(["install", "left-pad"], shellIO(fs), ports)).resolves.toEqual({ stdout: "added 1 package in 1s\n", stderr: "", exitCode: 0 });
    // Nothing changed here since the last call: nothing was sent.
    expect(spawns()[1]?.files).toEqual([]);
    await expect(fs.readFile("/workspace/package.json")).resolves.toBe('{"dependencies":{"left-pad":"1.0.0"}}\n');
    await expect(fs.exists("/workspace/node_modules/left-pad")).resolves.toBe(false);

    await fs.writeFile("/workspace/hello.js", 'console.log("edited");process.exit(4)');
    await expect(node.run(["hello.js"], shellIO(fs), ports)).resolves.toEqual({ stdout: "edited\n", stderr: "", exitCode: 4 });
    expect(spawns()[2]?.files.map((f) => [f.path, utf8(f.data)])).toEqual([["/workspace/hello.js", 'console.log("edited");process.exit(4)']]);

    await expect(npx.run(["cowsay", "moo"], shellIO(fs), ports)).resolves.toEqual({ stdout: "cowsay moo\n", stderr: "", exitCode: 0 });
  });

  it("a stopped block ends the process and says so", async () => {
    const w = wired();
    await until(() => w.bridge.status().state === "ready", "ready");
    const fs = await workspace({});
    const stop = new AbortController();
    const running = node.run(["-e", 'console.log("serving");setInterval(()=>{})'], shellIO(fs, stop.signal), { runtime: w.bridge, activity });
    await until(() => w.boot.latest().processes.length === 1, "the process started");
    stop.abort();
    await expect(running).resolves.toEqual({ stdout: "serving\n", stderr: "[reverie] node: killed: the block was stopped\n", exitCode: 143 });
  });
});

describe("node in the real sandbox", () => {
  it("bash runs node over the shared workspace and goes on after it", async () => {
    const w = wired();
    await until(() => w.bridge.status().state === "ready", "ready");
    const fs = await workspace({});
    const unused = () => {
      throw new Error("not used here");
    };
    const shell = justBashSandbox({
      fs,
      flush: async () => {},
      permissions: DEFAULT_PERMISSIONS,
      ids: { uuid: () => "00000000-0000-4000-8000-000000000000" },
      clock: { now: () => 0 },
      runtime: w.bridge,
      commands: [node, npm, npx],
    }).open({ traj: unused as never, chat: unused as never, shellm: unused as never, alarms: unused as never, depth: 0 });
    const code = [
      `echo 'console.log(fs.readFileSync("in.txt","utf8"));fs.writeFileSync("out.txt", "from node")' > run.js`,
      "printf 'from bash' > in.txt",
      "export GREETING=hello",
      "node run.js | tr a-z A-Z",
      'echo "exit $? and $(cat out.txt)"',
      "node -e 'console.log(process.env.GREETING)'",
    ].join("\n");
    const r = await shell.exec(code, { env: {}, cwd: "/workspace", signal: never });
    expect({ stdout: r.stdout, stderr: r.stderr, exit: r.exit }).toEqual({ stdout: "FROM BASH\nexit 0 and from node\nhello\n", stderr: "", exit: 0 });
  });
});
