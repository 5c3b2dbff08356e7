// Builds the app (unless REVERIE_E2E_REUSE_BUILD=1 and a build exists) and
// serves it with `npm start`'s own script on a free port, for every e2e file.
import { spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { CANARY_BUILD_MARKER, KEY_LEAK_CANARY } from "./key-leak-canary";
import { serveBuiltApp, stopApp } from "./serve";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

let server: ChildProcess | null = null;

export async function setup(project: TestProject) {
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  if (!(process.env.REVERIE_E2E_REUSE_BUILD === "1" && existsSync(".next/BUILD_ID"))) {
    // Built with a known fake host key in the environment, so key-leak.test.ts
    // can check that it reached no file the browser can download.
    const buildEnv = { ...env, LLM_PROXY_UPSTREAM_URL: "http://127.0.0.1:9/v1", LLM_PROXY_API_KEY: KEY_LEAK_CANARY };
    const build = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: "inherit", env: buildEnv });
    if (build.status !== 0) throw new Error(`next build failed (exit ${build.status})`);
    writeFileSync(CANARY_BUILD_MARKER, "this build had the key-leak canary in its environment\n");
  }
  // Served as `npm start` with the caller's env: no proxy unless the caller configured one.
  const served = await serveBuiltApp(env);
  server = served.child;
  project.provide("baseUrl", served.url);
}

export async function teardown() {
  if (server) await stopApp(server);
}
