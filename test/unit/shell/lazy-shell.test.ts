// lib/shell/lazy-shell.ts: the browser worker's sandbox is made when first
// wanted (warmed once the first model call is out, or by the first block).
// The sandbox here is a FAKE ShellPort (the port is the boundary): it counts
// how often it is made and answers each block with what it was given.
import { describe, expect, it } from "vitest";
import type { ShellPort, ShellRequest, ShellScope } from "@/lib/mind/ports";
import { lazyShell } from "@/lib/shell/lazy-shell";

const scope = { depth: 0 } as unknown as ShellScope;
const req = (): ShellRequest => ({ env: { A: "1" }, cwd: "/workspace", signal: new AbortController().signal });

/** A FAKE sandbox: `made` counts the sandboxes made, `opened` the sessions. */
function fakeSandbox() {
  const counts = { made: 0, opened: 0 };
  const shell: ShellPort = {
    open: () => {
      counts.opened++;
      return { exec: async (code, r) => ({ stdout: `ran ${code}`, stderr: "", exit: 0, env: r.env, cwd: r.cwd, timedOut: false, execS: 0 }) };
    },
  };
  return { counts, make: async () => (counts.made++, shell) };
}

describe("lazyShell", () => {
  it("makes nothing until warmed or used, then one sandbox, and one session per run", async () => {
    const { counts, make } = fakeSandbox();
    const shell = lazyShell(make);
    const session = shell.open(scope);
    expect(counts).toEqual({ made: 0, opened: 0 });
    expect(shell.made()).toBe(false);
    await Promise.all([shell.warm(), shell.warm()]);
    expect(counts).toEqual({ made: 1, opened: 0 });
    expect(shell.made()).toBe(true);
    expect((await session.exec("a", req())).stdout).toBe("ran a");
    expect((await session.exec("b", req())).stdout).toBe("ran b");
    expect(counts).toEqual({ made: 1, opened: 1 });
    await shell.open(scope).exec("c", req());
    expect(counts).toEqual({ made: 1, opened: 2 });
  });

  it("lets a block that comes first wait for the sandbox", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { counts, make } = fakeSandbox();
    const shell = lazyShell(async () => (await gate, make()));
    const pending = shell.open(scope).exec("early", req());
    let settled = false;
    void pending.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBe(false);
    release();
    expect((await pending).stdout).toBe("ran early");
    expect(counts.made).toBe(1);
  });

  it("fails the block, not the mind, when the sandbox cannot be loaded, and tries again with the next", async () => {
    const { counts, make } = fakeSandbox();
    let fail = true;
    const shell = lazyShell(async () => {
      if (fail) throw new Error("Failed to load chunk /_next/static/chunks/x.js");
      return make();
    });
    const session = shell.open(scope);
    await expect(shell.warm()).rejects.toThrow("Failed to load chunk");
    const failed = await session.exec("x", req());
    expect(failed).toMatchObject({ exit: 126, stdout: "", env: { A: "1" }, cwd: "/workspace" });
    expect(failed.stderr).toBe("[reverie] the shell could not be loaded: Failed to load chunk /_next/static/chunks/x.js\n");
    expect(shell.made()).toBe(false);
    fail = false;
    expect((await session.exec("y", req())).stdout).toBe("ran y");
    expect(counts).toEqual({ made: 1, opened: 1 });
  });
});
