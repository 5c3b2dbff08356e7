// Serving the built app for tests: a free loopback port, `npm start`'s own
// script, and a wait until it answers. Shared by the e2e global setup and
// startProxyApp, so both serve the app the same way.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { resolve } from "node:path";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

export async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the app exited with code ${child.exitCode} before serving`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the app did not answer at ${url} within ${timeoutMs / 1000} s`);
}

/**
 * Serve the already-built app (.next) with scripts/start.mjs on a free port, and wait until it answers.
 * `cwd` is the server's working folder (its PGlite data lives in `cwd`/.data); the repository by default.
 */
export async function serveBuiltApp(env: NodeJS.ProcessEnv, opts: { cwd?: string; timeoutMs?: number } = {}): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [resolve("scripts/start.mjs")], {
    cwd: opts.cwd,
    env: { ...env, NEXT_TELEMETRY_DISABLED: "1", PORT: String(port) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://localhost:${port}`;
  try {
    await waitForHttp(url, child, opts.timeoutMs ?? 60_000);
  } catch (e) {
    await stopApp(child);
    throw e;
  }
  return { url, child };
}

/** SIGTERM, then SIGKILL after 5 s if it has not gone. */
export async function stopApp(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
