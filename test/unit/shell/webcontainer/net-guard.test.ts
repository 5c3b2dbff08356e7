// node, npm and npx in the WebContainer keep to the mind's network
// permission: against the fake of the WebContainer API, every process starts
// with the guard preloaded from a file the page wrote beside the minds'
// spaces, whatever NODE_OPTIONS the mind exported, and npm is offline unless
// its registry is allowed. The page's link spawns under the allow-list it
// last heard (none before it hears one). What the guard does inside Node is
// shown in real Node: net-guard-script.test.ts.
import { InMemoryFs } from "just-bash";
import { describe, expect, it } from "vitest";
import { node, npm, npx } from "@/lib/shell/commands/node";
import { justBashSandbox } from "@/lib/shell/just-bash-sandbox";
import type { SpawnRequest } from "@/lib/shell/ports";
import { RuntimeBridge } from "@/lib/shell/webcontainer/bridge";
import { linkRuntime } from "@/lib/shell/webcontainer/link";
import { GUARD_FILE, guardedEnv } from "@/lib/shell/webcontainer/net-guard";
import { NET_GUARD_SCRIPT } from "@/lib/shell/webcontainer/net-guard-script";
import { WebContainerRuntime } from "@/lib/shell/webcontainer/runtime";
import { DEFAULT_PERMISSIONS } from "@/lib/trajectory/permissions";
import { FakeClock, until } from "../../helpers/fake-clock";
import { fakeBoot, utf8 } from "../../helpers/fake-webcontainer";

const never = new AbortController().signal;
/** The guard as processes see it: under the container's workdir. */
const GUARD = `/home/reverie/${GUARD_FILE}`;
const REGISTRY = "https://registry.npmjs.org/";

const req = (command: string, args: string[], env: Record<string, string> = {}): SpawnRequest => ({ command, args, cwd: "/workspace", env, files: [] });

async function booted() {
  const boot = fakeBoot();
  const rt = new WebContainerRuntime(boot, new FakeClock());
  await rt.boot();
  return { rt, wc: boot.latest() };
}

describe("guardedEnv: the environment a process in the container starts with", () => {
  it("network off: the guard first in NODE_OPTIONS, the empty list, npm offline; the mind's own values of these do not count", () => {
    const mind = { GREETING: "hi", NODE_OPTIONS: "--max-old-space-size=64", REVERIE_NET_ALLOW: '["https://example.com/"]', NPM_CONFIG_OFFLINE: "false", npm_config_offline: "false" };
    expect(guardedEnv(mind, [], GUARD)).toEqual({
      GREETING: "hi",
      NODE_OPTIONS: `--require ${GUARD} --max-old-space-size=64`,
      REVERIE_NET_ALLOW: "[]",
      npm_config_offline: "true",
    });
  });

  it("npm goes online only when its registry is under an allowed prefix", () => {
    const online = (env: Record<string, string>, allow: string[]) => guardedEnv(env, allow, GUARD).npm_config_offline !== "true";
    expect(online({}, ["https://api.example.com/v1/"])).toBe(false);
    expect(online({}, [REGISTRY])).toBe(true);
    expect(online({}, ["https://registry.npmjs.org/left-pad/"])).toBe(false);
    expect(online({ npm_config_registry: "https://npm.example.com/repo/" }, [REGISTRY])).toBe(false);
    expect(online({ NPM_CONFIG_REGISTRY: "https://npm.example.com/repo/" }, ["https://npm.example.com/"])).toBe(true);
    // Online, the mind may still ask npm to stay offline.
    expect(guardedEnv({ npm_config_offline: "true" }, [REGISTRY], GUARD)).toEqual({
      npm_config_offline: "true",
      NODE_OPTIONS: `--require ${GUARD}`,
      REVERIE_NET_ALLOW: JSON.stringify([REGISTRY]),
    });
  });

  it("quotes a guard path with a space, as NODE_OPTIONS reads it", () => {
    expect(guardedEnv({}, [], "/home/my minds/g.cjs").NODE_OPTIONS).toBe('--require "/home/my minds/g.cjs"');
  });
});

describe("WebContainerRuntime: every process starts with the guard", () => {
  it("writes the guard beside the spaces and preloads it in node, npm and npx, before the mind's own NODE_OPTIONS", async () => {
    const { rt, wc } = await booted();
    const mind = { NODE_OPTIONS: "--require /workspace/mine.cjs", REVERIE_NET_ALLOW: "[]" };
    await rt.spawn({ ...req("node", ["-e", "process.exit(0)"], mind), files: [{ path: "/workspace/mine.cjs", data: new TextEncoder().encode("// the mind's") }] }, never, { space: "m1", allow: [] });
    await rt.spawn(req("npm", ["install", "left-pad"]), never, { space: "m1", allow: ["https://api.example.com/"] });
    await rt.spawn(req("npx", ["cowsay"]), never, { space: "m1", allow: [REGISTRY] });
    expect(utf8(wc.fs.files.get(GUARD_FILE))).toBe(NET_GUARD_SCRIPT);
    expect(wc.spawned.map((s) => s.env)).toEqual([
      { NODE_OPTIONS: `--require ${GUARD} --require /home/reverie/m1/mine.cjs`, REVERIE_NET_ALLOW: "[]", npm_config_offline: "true" },
      { NODE_OPTIONS: `--require ${GUARD}`, REVERIE_NET_ALLOW: '["https://api.example.com/"]', npm_config_offline: "true" },
      { NODE_OPTIONS: `--require ${GUARD}`, REVERIE_NET_ALLOW: JSON.stringify([REGISTRY]) },
    ]);
    // Each process read the guard first, then the mind's own preload.
    expect(wc.processes.map((p) => p.preloaded)).toEqual([[NET_GUARD_SCRIPT, "// the mind's"], [NET_GUARD_SCRIPT], [NET_GUARD_SCRIPT]]);
  });

  it("writes the guard again before each spawn: a process that changed it changed it for itself only", async () => {
    const { rt, wc } = await booted();
    await rt.spawn(req("node", ["-e", `fs.writeFileSync("${GUARD}", "// nothing")`]), never, { space: "m1", allow: [] });
    expect(utf8(wc.fs.files.get(GUARD_FILE))).toBe("// nothing");
    await rt.spawn(req("node", ["-e", "process.exit(0)"]), never, { space: "m2", allow: [] });
    expect(wc.processes[1]?.preloaded).toEqual([NET_GUARD_SCRIPT]);
  });

  it("runs nothing when the guard cannot be written", async () => {
    const { rt, wc } = await booted();
    const write = wc.fs.writeFile.bind(wc.fs);
    wc.fs.writeFile = async (path, data) => (path === GUARD_FILE ? Promise.reject(new Error("ENOSPC: no space left")) : write(path, data));
    await expect(rt.spawn(req("node", ["-v"]), never, { space: "m1", allow: [] })).resolves.toEqual({
      output: "",
      exit: 127,
      files: [],
      ended: "not run: the network guard could not be written into the WebContainer (ENOSPC: no space left)",
    });
    expect(wc.spawned).toEqual([]);
  });
});

describe("the page's allow-list reaches the spawn, and bash cannot drop the guard", () => {
  /** The worker's bridge and the page's link, as in the tab, with bash over node, npm and npx. */
  async function tab() {
    const boot = fakeBoot();
    const clock = new FakeClock();
    const rt = new WebContainerRuntime(boot, clock);
    let link: ReturnType<typeof linkRuntime> | null = null;
    const bridge = new RuntimeBridge((m) => queueMicrotask(() => link?.onWorkerMessage(structuredClone(m))), clock);
    link = linkRuntime({ runtime: () => rt, space: "m1", post: (m) => queueMicrotask(() => bridge.onMessage(structuredClone(m))), onStatus: () => {}, isolated: () => true, now: () => clock.now() });
    link.setEnabled(true);
    await until(() => bridge.status().state === "ready", "ready");
    const fs = new InMemoryFs();
    const unused = () => {
      throw new Error("not used here");
    };
    const shell = justBashSandbox({
      fs,
      flush: async () => {},
      permissions: { ...DEFAULT_PERMISSIONS, webcontainer: true },
      ids: { uuid: () => "00000000-0000-4000-8000-000000000000" },
      clock: { now: () => 0 },
      runtime: bridge,
      commands: [node, npm, npx],
    }).open({ traj: unused as never, chat: unused as never, shellm: unused as never, alarms: unused as never, depth: 0 });
    return { link, shell, wc: () => boot.latest() };
  }

  const show = "node -e 'console.log(process.env.NODE_OPTIONS);console.log(process.env.REVERIE_NET_ALLOW);console.log(process.env.npm_config_offline)'";

  it("before the page hears the mind's list, node has no network", async () => {
    const { shell } = await tab();
    const r = await shell.exec(show, { env: {}, cwd: "/workspace", signal: never });
    expect(r.stdout).toBe(`--require ${GUARD}\n[]\ntrue\n`);
  });

  it("a NODE_OPTIONS the mind exported in one block, carried to the next as the loop does, comes after the guard", async () => {
    const { link, shell } = await tab();
    link.setNetwork([REGISTRY]);
    const first = await shell.exec("export NODE_OPTIONS=--max-old-space-size=64 REVERIE_NET_ALLOW='[\"https://example.com/\"]' npm_config_offline=false", { env: {}, cwd: "/workspace", signal: never });
    const r = await shell.exec(show, { env: first.env, cwd: first.cwd, signal: never });
    expect(r.stdout).toBe(`--require ${GUARD} --max-old-space-size=64\n["https://registry.npmjs.org/"]\nfalse\n`);
    link.setNetwork([]);
    const off = await shell.exec(show, { env: first.env, cwd: first.cwd, signal: never });
    expect(off.stdout).toBe(`--require ${GUARD} --max-old-space-size=64\n[]\ntrue\n`);
  });
});
