// `reverie sh -c SCRIPT` (cli/sh.ts), run as the real CLI in a child process
// in a temp folder; then its two bridges to the host, cli/folder-store.ts (the
// workspace folder) and cli/jsonl-log.ts (the trajectory file), in-process.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { folderStore } from "@/cli/folder-store";
import { openJsonlLog, readJsonl } from "@/cli/jsonl-log";
import { main } from "@/cli/reverie";
import { Journal } from "@/lib/mind/log/journal";
import type { Clock } from "@/lib/mind/ports";
import type { FileRecord } from "@/lib/shell/persistent-fs";
import type { Step } from "@/lib/trajectory/schema";
import { stepLine } from "@/lib/trajectory/summary";
import { runBin } from "../helpers/cli-bin";
import { sequentialIds } from "../helpers/memory-log";

const scratch = mkdtempSync(join(tmpdir(), "reverie-sh-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let folders = 0;
const freshDir = () => {
  const dir = join(scratch, `t${++folders}`);
  mkdirSync(dir);
  return dir;
};

/** Run `reverie sh …` in `cwd` as a separate process, as a person would. */
const sh = (cwd: string, ...args: string[]) => runBin(["sh", ...args], { cwd });

const trajOf = (cwd: string) => readJsonl(join(cwd, ".reverie-sh/trajectory.jsonl")).steps;
const withoutIdTs = (s: Step) => {
  const { step_id: _id, ts: _ts, ...rest } = s;
  return rest;
};

async function usage(): Promise<string> {
  let out = "";
  await main(["help", "sh"], { out: (s) => void (out += s), err: () => undefined });
  return out;
}

describe("reverie sh", { timeout: 90_000 }, () => {
  it("passes the script's stdout, stderr and exit status through exactly", async () => {
    const r = await sh(freshDir(), "-c", "echo out; printf 'no newline'; echo err >&2; exit 3");
    expect([r.code, r.out, r.err]).toEqual([3, "out\nno newline", "err\n"]);
  });

  it("keeps the workspace folder between calls (default ./.reverie-sh/workspace), and /tmp only for one call", async () => {
    const cwd = freshDir();
    expect(await sh(cwd, "-c", "mkdir -p notes; echo kept > notes/a.txt; chmod 755 notes/a.txt; echo gone > /tmp/t; pwd")).toMatchObject({ code: 0, out: "/workspace\n", err: "" });
    const ws = join(cwd, ".reverie-sh/workspace");
    expect(readFileSync(join(ws, "notes/a.txt"), "utf8")).toBe("kept\n");
    expect(lstatSync(join(ws, "notes/a.txt")).mode & 0o777).toBe(0o755);
    expect(await sh(cwd, "-c", "cat notes/a.txt; ls; cat /tmp/t")).toMatchObject({ code: 1, out: "kept\nnotes\n", err: "cat: /tmp/t: No such file or directory\n" });
    expect(await sh(cwd, "-c", "rm -r notes; echo b > b.txt")).toMatchObject({ code: 0, out: "", err: "" });
    expect(readdirSync(ws)).toEqual(["b.txt"]);
  });

  it("--workspace and --traj point elsewhere; a script may start with dashes", async () => {
    const cwd = freshDir();
    expect(await sh(cwd, "--workspace", "w", "--traj", "logs/t.jsonl", "-c", "echo x > f; echo --help")).toMatchObject({ code: 0, out: "--help\n", err: "" });
    expect(readFileSync(join(cwd, "w/f"), "utf8")).toBe("x\n");
    expect(readJsonl(join(cwd, "logs/t.jsonl")).steps.map((s) => s.type)).toEqual(["trajectory", "shellm-run", "final"]);
    expect(existsSync(join(cwd, ".reverie-sh"))).toBe(false);
  });

  it("chat send appends a message to the trajectory file, in the call's run; traj tail shows it next time", async () => {
    const cwd = freshDir();
    const sent = await sh(cwd, "-c", "chat send --to ada hi");
    const [header, run, message] = trajOf(cwd) as [Step, Step, Step];
    expect(sent).toMatchObject({ code: 0, out: `sent ${message.step_id.slice(0, 8)} to ada\n`, err: "" });
    expect(trajOf(cwd).map(withoutIdTs)).toEqual([
      { type: "trajectory", name: "reverie sh", source: "system" },
      { type: "shellm-run", model: "none", launched_by: "reverie-sh" },
      { type: "message", run_id: run.step_id, from: "reverie", to: "ada", content: "hi", source: "chat" },
      // Each call's run is closed, so none reads as cut off.
      { type: "final", run_id: run.step_id, content: "reverie sh: exit 0" },
    ]);
    expect(header.step_id).toMatch(/^[0-9a-f-]{36}$/);

    const tail = await sh(cwd, "-c", "traj tail -n 2");
    const [, , , closed, run2] = trajOf(cwd) as Step[];
    expect(tail).toMatchObject({ code: 0, out: `${stepLine(closed as Step)}\n${stepLine(run2 as Step)}\n`, err: "" });
    expect(stepLine(message)).toBe(`${message.step_id.slice(0, 8)} ${message.ts.slice(11, 19)} message [chat] reverie → ada: hi`);
    // The script itself is not recorded: only the run headers and what the commands wrote.
    expect(trajOf(cwd).map((s) => s.type)).toEqual(["trajectory", "shellm-run", "message", "final", "shellm-run", "final"]);
  });

  it("a script ended by a limit exits non-zero with the [reverie] note on stderr", async () => {
    const cwd = freshDir();
    const loop = await sh(cwd, "-c", "echo before; while true; do :; done");
    expect([loop.code, loop.out]).toEqual([126, "before\n"]);
    expect(loop.err).toBe("bash: too many commands executed (>100000), increase executionLimits.maxCommandCount\n[reverie] ended by the command limit (max_commands per block)\n");
    const recursion = await sh(cwd, "-c", "f() { f; }; f");
    expect([recursion.code, recursion.out]).toEqual([126, ""]);
    expect(recursion.err).toBe("bash: f: maximum recursion depth (100) exceeded, increase executionLimits.maxCallDepth\n[reverie] ended by the recursion limit\n");
  });

  it("--silence 0.3 stops a sleeping script by the watchdog, keeping what it printed", async () => {
    const r = await sh(freshDir(), "--silence", "0.3", "-c", "echo before; sleep 30; echo after");
    expect(r).toMatchObject({ code: 124, out: "before\n", err: "[reverie] stopped: no sign of life for 0.3 s (the watchdog); the output above is what it printed before\n" });
    expect(r.ms).toBeLessThan(20_000);
  });

  it("64 MB of output ends the block by the output limit, in bounded time; 2 MB is cut at 1 MiB with a note", async () => {
    const cwd = freshDir();
    const huge = await sh(cwd, "-c", "s=0123456789abcdef; for i in $(seq 22); do s=$s$s; done; echo \"$s\"; echo never");
    expect(huge).toMatchObject({ code: 126, out: "", err: "bash: pipeline: total output size exceeded (>4194304 bytes), increase executionLimits.maxOutputSize\n[reverie] ended by the output limit\n" });
    expect(huge.ms).toBeLessThan(30_000);
    const big = await sh(cwd, "-c", "s=0123456789abcdef; for i in $(seq 17); do s=$s$s; done; echo \"$s\"");
    expect(big.code).toBe(0);
    expect(big.out).toBe(`${"0123456789abcdef".repeat(65536)}\n[reverie] stdout cut at 1048576 bytes\n`);
  });

  it("shows nothing of the host: paths out of the workspace, /etc, the root", async () => {
    const r = await sh(freshDir(), "-c", "cat ../../etc/passwd; cat /etc/hostname; ls /");
    expect(r).toMatchObject({
      code: 0,
      out: "bin\ndev\nproc\ntmp\nusr\nworkspace\n",
      err: "cat: ../../etc/passwd: No such file or directory\ncat: /etc/hostname: No such file or directory\n",
    });
    expect(r.out + r.err).not.toContain(hostname());
  });

  it("symlinks planted in the workspace folder are not read or written through", async () => {
    const cwd = freshDir();
    const outside = join(cwd, "outside");
    mkdirSync(outside);
    const secret = join(outside, "secret.txt");
    writeFileSync(secret, "HOST-SECRET\n");
    const ws = join(cwd, ".reverie-sh/workspace");
    mkdirSync(ws, { recursive: true });
    symlinkSync(secret, join(ws, "leak"));
    symlinkSync(outside, join(ws, "leakdir"));
    symlinkSync(relative(ws, secret), join(ws, "rel"));
    const r = await sh(cwd, "-c", "cat leak; cat leakdir/secret.txt; cat rel; cat /workspace/leak; ls -la; grep -r HOST . ; find / -name 'secret*'; echo pwned > leak; echo pwned > leakdir/secret.txt; echo pwned > leakdir/new.txt; echo done");
    expect(r.out + r.err).not.toContain("HOST-SECRET");
    expect(r.out.endsWith("done\n")).toBe(true);
    expect(readFileSync(secret, "utf8")).toBe("HOST-SECRET\n");
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
    // Writing to a link whose target is not in the sandbox replaces the link (just-bash's way); on the host too, never its target.
    expect([lstatSync(join(ws, "leak")).isFile(), readFileSync(join(ws, "leak"), "utf8")]).toEqual([true, "pwned\n"]);
    // The links it left alone are left alone, with no complaint that they cannot be saved.
    expect([readlinkSync(join(ws, "leakdir")), readlinkSync(join(ws, "rel"))]).toEqual([outside, relative(ws, secret)]);
    expect(r.err).not.toContain("could not be saved");
  });

  it("refuses the network with the default permissions: no request leaves", async () => {
    let requests = 0;
    const server = createHttpServer((_req, res) => {
      requests++;
      res.end("HOST-SERVER");
    });
    await new Promise<void>((up) => server.listen(0, "127.0.0.1", up));
    const { port } = server.address() as { port: number };
    try {
      const refused = "curl: the network is off for this mind. Its human can allow URL prefixes in Settings; nothing inside the sandbox can.\n";
      expect(await sh(freshDir(), "-c", `curl http://127.0.0.1:1/; curl -s http://127.0.0.1:${port}/`)).toMatchObject({ code: 1, out: "", err: refused + refused });
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
  });

  it("shellm fails with its reason: there is no model", async () => {
    expect(await sh(freshDir(), "-c", 'shellm "x"')).toMatchObject({ code: 1, out: "", err: "shellm: nested runs need a model; reverie sh has none\n" });
  });

  it("bad arguments print sh's usage and exit 2; --help prints it and exits 0", async () => {
    const text = await usage();
    expect(text.startsWith("usage: reverie sh [--workspace DIR] [--traj FILE] [--silence S] [--wall S] -c SCRIPT\n")).toBe(true);
    const cwd = freshDir();
    const cases: [string[], string][] = [
      [["--frob", "-c", "true"], "unknown option --frob"],
      [["--workspace", "w"], "sh needs -c SCRIPT"],
      [["-c"], "-c needs a value"],
      [["-c", "true", "extra"], "unexpected argument 'extra' (the script goes after -c, quoted)"],
      [["--silence", "abc", "-c", "true"], "--silence takes seconds above 0 (at most 3600), not 'abc'"],
      [["--wall", "0", "-c", "true"], "--wall takes seconds above 0 (at most 86400), not '0'"],
    ];
    for (const [args, problem] of cases) expect(await sh(cwd, ...args)).toMatchObject({ code: 2, out: "", err: `reverie: ${problem}\n${text}` });
    expect(await sh(cwd, "--help")).toMatchObject({ code: 0, out: text, err: "" });
    // Nothing was opened for a refused call.
    expect(existsSync(join(cwd, ".reverie-sh"))).toBe(false);
  });
});

const file = (path: string, text: string, mtime = 1_700_000_000_000): FileRecord => ({ path, kind: "file", data: new TextEncoder().encode(text), mode: 0o644, mtime });

describe("folderStore", () => {
  it("saves only plain paths under /workspace: /tmp is ignored, `..` is refused, the rest is still saved", async () => {
    const dir = freshDir();
    const root = join(dir, "ws");
    const store = folderStore(root);
    await expect(store.save([file("/workspace/../escape.txt", "x"), file("/workspace/a/../../escape2.txt", "x"), file("/tmp/t.txt", "x"), file("/workspace/ok.txt", "ok")], [])).rejects.toThrow(
      'refusing "/workspace/../escape.txt": not a plain path under /workspace; refusing "/workspace/a/../../escape2.txt": not a plain path under /workspace',
    );
    expect(readdirSync(dir)).toEqual(["ws"]);
    expect(readdirSync(root)).toEqual(["ok.txt"]);
    await expect(store.save([], ["/workspace/../ws"])).rejects.toThrow("not a plain path");
    expect(readdirSync(root)).toEqual(["ok.txt"]);
  });

  it("never writes or removes through a symlink in the folder, and keeps only links that stay inside", async () => {
    const dir = freshDir();
    const root = join(dir, "ws");
    const outside = join(dir, "outside");
    mkdirSync(root);
    mkdirSync(outside);
    writeFileSync(join(outside, "victim.txt"), "intact");
    symlinkSync(outside, join(root, "linkdir"));
    symlinkSync(join(outside, "victim.txt"), join(root, "linkfile"));
    const store = folderStore(root);
    await expect(store.save([file("/workspace/linkdir/new.txt", "x")], ["/workspace/linkdir/victim.txt"])).rejects.toThrow("is not a real folder");
    expect(readdirSync(outside)).toEqual(["victim.txt"]);
    // A file put where a symlink is replaces the link; its target is untouched.
    await store.save([file("/workspace/linkfile", "mine")], []);
    expect([lstatSync(join(root, "linkfile")).isFile(), readFileSync(join(root, "linkfile"), "utf8"), readFileSync(join(outside, "victim.txt"), "utf8")]).toEqual([true, "mine", "intact"]);
    const link = (path: string, target: string): FileRecord => ({ path, kind: "symlink", target, mode: 0o777, mtime: 0 });
    await expect(store.save([link("/workspace/abs", "/etc/passwd"), link("/workspace/up", "../outside/victim.txt"), link("/workspace/in", "linkfile")], [])).rejects.toThrow(
      "refusing the symlink /workspace/up -> ../outside/victim.txt: a saved link must be relative and stay in the workspace; refusing the symlink /workspace/abs -> /etc/passwd: a saved link must be relative and stay in the workspace",
    );
    expect([existsSync(join(root, "abs")), existsSync(join(root, "up")), readlinkSync(join(root, "in"))]).toEqual([false, false, "linkfile"]);
  });

  it("loads files, folders and symlinks (their target text, never their content); skips sockets", async () => {
    const root = join(freshDir(), "ws");
    const store = folderStore(root);
    await store.save([{ path: "/workspace/d", kind: "dir", mode: 0o755, mtime: 1_700_000_000_000 }, file("/workspace/d/f.txt", "hello")], []);
    symlinkSync("/etc/passwd", join(root, "abs"));
    const socket = createNetServer();
    await new Promise<void>((up) => socket.listen(join(root, "sock"), up));
    try {
      const records = (await store.loadAll()).sort((a, b) => a.path.localeCompare(b.path));
      expect(records.map(({ path, kind, data, target, mode }) => ({ path, kind, text: data && new TextDecoder().decode(data), target, mode }))).toEqual([
        { path: "/workspace/abs", kind: "symlink", text: undefined, target: "/etc/passwd", mode: 0o777 },
        { path: "/workspace/d", kind: "dir", text: undefined, target: undefined, mode: 0o755 },
        { path: "/workspace/d/f.txt", kind: "file", text: "hello", target: undefined, mode: 0o644 },
      ]);
      expect(records.find((r) => r.path === "/workspace/d/f.txt")?.mtime).toBe(1_700_000_000_000);
      await expect(folderStore(root, { maxBytes: 4 }).loadAll()).rejects.toThrow(`the workspace folder ${root} holds more than 4 bytes, the workspace's limit`);
    } finally {
      socket.close();
    }
  });
});

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
const clock: Clock = { now: () => NOW, sleep: async () => undefined };

describe("jsonl log", () => {
  const stepAt = (n: number, type = "thought") => ({ type, step_id: `0000000${n}-0000-4000-8000-000000000000`, ts: "2026-01-01T00:00:00.000Z", content: `step ${n} Needle` });

  it("starts a missing file with a trajectory line whose id is the log's", async () => {
    const path = join(freshDir(), "deep/er/trajectory.jsonl");
    const log = openJsonlLog(path, { ids: sequentialIds(), now: clock.now });
    expect(readFileSync(path, "utf8")).toBe('{"type":"trajectory","step_id":"00000001-0000-4000-8000-000000000000","ts":"2026-01-02T03:04:05.678Z","name":"reverie sh","source":"system"}\n');
    expect([log.trajId, await log.count()]).toEqual(["00000001-0000-4000-8000-000000000000", 1]);
  });

  it("a malformed line in the middle hides nothing after it; appends start a new line", async () => {
    const path = join(freshDir(), "trajectory.jsonl");
    const lines = [JSON.stringify({ ...stepAt(1, "trajectory"), name: "t" }), JSON.stringify(stepAt(2)), "not json {", '{"type":"thought"}', "[1,2]", JSON.stringify(stepAt(3))];
    writeFileSync(path, lines.join("\n")); // no newline at the end
    const log = openJsonlLog(path, { ids: sequentialIds(), now: clock.now });
    expect([log.trajId, await log.count()]).toEqual([stepAt(1).step_id, 3]);
    expect((await log.tail(2)).map((s) => s.step_id)).toEqual([stepAt(2).step_id, stepAt(3).step_id]);
    expect((await log.search("needle", 5)).map((s) => s.step_id)).toEqual([stepAt(3).step_id, stepAt(2).step_id]);
    expect((await log.find("00000003", 5)).map((f) => [f.step.step_id, f.trajId])).toEqual([[stepAt(3).step_id, stepAt(1).step_id]]);
    await log.append(stepAt(4) as Step);
    await expect(log.append({ type: "message", step_id: stepAt(5).step_id, ts: "2026-01-01T00:00:00.000Z" } as Step)).rejects.toThrow("Refusing to append an invalid step");
    expect(readJsonl(path)).toEqual({ steps: [{ ...stepAt(1, "trajectory"), name: "t" }, stepAt(2), stepAt(3), stepAt(4)], skipped: 3, openLine: false });
  });

  it("forks into a nested Headlong folder; find spans parent and child; blobs live in each folder and refs cannot leave it", async () => {
    const dir = freshDir();
    const path = join(dir, "trajectory.jsonl");
    const ids = sequentialIds();
    const journal = new Journal(openJsonlLog(path, { ids, now: clock.now }), ids, clock);
    const fork = await journal.append({ type: "fork", child: "0000000a-0000-4000-8000-000000000000", child_ref: "0000000a-shellm-x" });
    const child = await journal.fork({ trajId: "0000000a-0000-4000-8000-000000000000", name: "shellm x", forkStepId: fork.step_id });
    const note = await child.append({ type: "thought", content: "in the child" });
    const childFile = join(dir, "0000000a-shellm-x/trajectory.jsonl");
    expect(readJsonl(childFile).steps).toEqual([
      { type: "trajectory", step_id: "0000000a-0000-4000-8000-000000000000", ts: "2026-01-02T03:04:05.678Z", name: "shellm x", parent_traj: journal.log.trajId, parent_step: fork.step_id, parent_traj_ref: "..", source: "system" },
      note,
    ]);
    expect(await journal.log.count()).toBe(2);
    expect((await journal.log.find(note.step_id.slice(0, 8), 5)).map((f) => f.trajId)).toEqual([child.log.trajId]);
    await expect(journal.log.fork({ trajId: child.log.trajId, name: "again" })).rejects.toThrow("forked twice");

    await child.log.putBlob("out.stdout", "whole text");
    expect(readFileSync(join(dir, "0000000a-shellm-x/blobs/out.stdout"), "utf8")).toBe("whole text");
    await expect(child.log.putBlob("out.stdout", "again")).rejects.toThrow();
    await expect(child.log.putBlob("../escape", "x")).rejects.toThrow("not a blob name");
    expect(await journal.log.blob("blobs/out.stdout", child.log.trajId)).toBe("whole text");
    expect(await journal.log.blob("blobs/out.stdout")).toBeUndefined();
    writeFileSync(join(dir, "secret"), "HOST-SECRET");
    mkdirSync(join(dir, "blobs"));
    symlinkSync(join(dir, "secret"), join(dir, "blobs/planted"));
    for (const ref of ["blobs/../secret", "../secret", "blobs/planted", "/etc/passwd"]) expect(await journal.log.blob(ref)).toBeUndefined();
  });
});
