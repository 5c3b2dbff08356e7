// Builds the app (unless REVERIE_E2E_REUSE_BUILD=1 and a build exists) and
// serves it with `npm start`'s own script on a free port, for every e2e file.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
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

let server: ChildProcess | null = null;

export async function setup(project: TestProject) {
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  if (!(process.env.REVERIE_E2E_REUSE_BUILD === "1" && existsSync(".next/BUILD_ID"))) {
    const build = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: "inherit", env });
    if (build.status !== 0) throw new Error(`next build failed (exit ${build.status})`);
  }
  const port = await freePort();
  server = spawn(process.execPath, ["scripts/start.mjs"], { env: { ...env, PORT: String(port) }, stdio: ["ignore", "inherit", "inherit"] });
  const baseUrl = `http://localhost:${port}`;
  await waitForHttp(baseUrl, server, 60_000);
  project.provide("baseUrl", baseUrl);
}

export async function teardown() {
  if (!server || server.exitCode !== null) return;
  const exited = new Promise((r) => server?.once("exit", r));
  server.kill("SIGTERM");
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (server.exitCode === null) server.kill("SIGKILL");
}
