#!/usr/bin/env node
// `npm start`: build once when there is no build, then serve on $PORT (3000).
import { spawnSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";

process.env.NEXT_TELEMETRY_DISABLED = "1";
const next = "node_modules/next/dist/bin/next";

if (!existsSync(".next/BUILD_ID")) {
  console.log("No build yet: building first (next build)…");
  const build = spawnSync(process.execPath, [next, "build"], { stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const port = process.env.PORT || "3000";
const server = spawn(process.execPath, [next, "start", "-p", port], { stdio: "inherit" });
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.kill(sig));
server.on("exit", (code) => process.exit(code ?? 0));
