#!/usr/bin/env node
// `npm start`: check the proxy's settings, build once when there is no build,
// then serve on $PORT (3000). Paths are the repository's, so it can be run
// from another working folder (PGlite keeps the server's data under the
// working folder's .data/).
import { spawnSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

process.env.NEXT_TELEMETRY_DISABLED = "1";
const root = fileURLToPath(new URL("..", import.meta.url));
const next = fileURLToPath(new URL("../node_modules/next/dist/bin/next", import.meta.url));

// First, before any build: a proxy configured without its caps must not serve.
// The check is the server's own parser (TypeScript, run by tsx; the
// react-server condition lets its `server-only` import load outside Next).
const check = spawnSync(
  process.execPath,
  ["--conditions=react-server", "--import", fileURLToPath(new URL("../bin/text-imports.mjs", import.meta.url)), "--import", import.meta.resolve("tsx"), fileURLToPath(new URL("./check-proxy-env.ts", import.meta.url))],
  { stdio: "inherit" },
);
if (check.status !== 0) process.exit(check.status || 1);

if (!existsSync(fileURLToPath(new URL("../.next/BUILD_ID", import.meta.url)))) {
  console.log("No build yet: building first (next build)…");
  const build = spawnSync(process.execPath, [next, "build", root], { stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const port = process.env.PORT || "3000";
const server = spawn(process.execPath, [next, "start", root, "-p", port], { stdio: "inherit" });
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.kill(sig));
server.on("exit", (code) => process.exit(code ?? 0));
