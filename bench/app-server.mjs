// The app, served for a benchmark: a free port on loopback, and a wait until it answers.
import { createServer } from "node:net";

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
