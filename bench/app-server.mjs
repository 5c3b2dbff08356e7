// The app, served for a benchmark: a free port on loopback, and a wait until it answers.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";

/** Build the app unless REVERIE_BENCH_REUSE_BUILD=1 and a build exists, then start it on a free port (call `waitUp` before use). */
export async function startApp(env) {
  if (!(process.env.REVERIE_BENCH_REUSE_BUILD === "1" && existsSync(".next/BUILD_ID"))) {
    console.log("building the app…");
    const b = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: ["ignore", "ignore", "inherit"], env });
    if (b.status !== 0) process.exit(1);
  }
  const port = await freePort();
  const app = spawn(process.execPath, ["scripts/start.mjs"], { env: { ...env, PORT: String(port) }, stdio: "ignore" });
  return { app, base: `http://localhost:${port}` };
}

export function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export async function waitUp(url, child) {
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error("the app exited");
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("the app did not start");
}
