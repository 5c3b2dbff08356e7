#!/usr/bin/env node
// The README's picture of a mind's page (docs/images/mind-page.png): build the
// app, serve it as `npm start` does, point a new mind at the tests' scripted
// model server (test/fixtures/model-server.ts), let it think a little, send it
// a message, and screenshot its page in Debian's Chromium.
//
//   node scripts/screenshot.mjs [--reuse-build] [--out FILE]
//
// --reuse-build serves the build in .next as it is, if there is one (else it
// builds, a few minutes). The server's data and Chromium's profile live in a
// fresh temporary folder, removed at the end. CHROMIUM_PATH overrides
// /usr/bin/chromium. On a shared machine, run it under the same lock as the
// end-to-end tests (it builds and runs a browser).
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { tsImport } from "tsx/esm/api";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const reuse = args.includes("--reuse-build");
const outAt = args.indexOf("--out");
const out = resolve(outAt >= 0 && args[outAt + 1] ? args[outAt + 1] : join(root, "docs/images/mind-page.png"));
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const { startModelServer, thinkerRequests } = await tsImport("../test/fixtures/model-server.ts", import.meta.url);

// The mind's first wakes, one reply per model call of its inner life (each taking a
// second and a half, so its person's message comes between them); then it idles.
const bash = (thought, code) => ({ text: `${thought}\n\n\`\`\`bash\n${code}\n\`\`\``, delayMs: 1500 });
const LIFE = [
  bash("A new day. Before anything else I want a short list of what I mean to do.", 'focus set "Start a garden log in notes/garden.md"\nfocus set "Learn what the seedlings need"\nfocus list'),
  bash("Two goals. The log first: a file with today's date and what I know so far.", 'mkdir -p notes\nprintf "# Garden log\\n\\n- %s: tomato seedlings up, 12 of 16 trays\\n" "$(date -u +%F)" > notes/garden.md\ncat notes/garden.md\nFINAL="started the garden log"'),
  bash("Seedlings grow leggy without enough light. That is worth keeping for later.", 'mem add "Tomato seedlings want 14 to 16 hours of light a day, or they grow leggy" --tags garden,seedlings\nfocus done "$(focus list | head -n 1 | cut -d" " -f1)"\nFINAL="remembered the seedlings\' light"'),
  { text: "The log is started and the one fact I needed is in memory. Nothing else asks for me right now; I will look again later.", delayMs: 1500 },
];
const IDLE = { text: "Nothing needs doing just now.\n\n```bash\nFINAL=idle\n```" };

function freePort() {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });
}

async function waitForHttp(url, child, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the app exited with code ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the app did not answer at ${url}`);
}

// A clean environment: no proxy, runner, sync limits or database of the caller's.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(LLM_PROXY_|RUNNER_|SYNC_MAX_)/.test(k) && k !== "DATABASE_URL"));
env.NEXT_TELEMETRY_DISABLED = "1";

if (!(reuse && existsSync(join(root, ".next/BUILD_ID")))) {
  console.log("building the app (next build)…");
  const build = spawnSync(process.execPath, [join(root, "node_modules/next/dist/bin/next"), "build", root], { stdio: "inherit", env, cwd: root });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const scratch = mkdtempSync(join(tmpdir(), "reverie-screenshot-"));
const model = await startModelServer({
  responder: () => {
    const n = thinkerRequests(model.requests, 0).length - 1;
    return LIFE[n] ?? IDLE;
  },
});
model.setReplyResponder(() => ({ text: "Morning, Ada! I started a garden log in notes/garden.md and noted how much light the seedlings need. Anything you want in it?" }));

const port = await freePort();
const app = spawn(process.execPath, [join(root, "scripts/start.mjs")], { cwd: scratch, env: { ...env, PORT: String(port) }, stdio: ["ignore", "ignore", "inherit"] });
const base = `http://localhost:${port}`;
let context;
try {
  await waitForHttp(base, app, 120_000);
  context = await chromium.launchPersistentContext(join(scratch, "profile"), {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 1280, height: 1180 },
    colorScheme: "light",
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(base);
  await page.getByTestId("new-mind-name").fill("Sol");
  await page.getByTestId("new-mind-persona").fill("You keep a small household's garden notes and like to get things written down.");
  await page.getByTestId("model-provider").selectOption("openai-compatible");
  await page.getByTestId("model-base-url").fill(model.url);
  await page.getByTestId("model-name").fill("scripted");
  await page.getByTestId("create-mind").click();
  await page.waitForURL(/\/mind\/[0-9a-f-]{36}$/);

  // Its person writes while it works: after its first run, before it has done the rest.
  const step = (type, text) => page.locator(`[data-testid="step"][data-step-type="${type}"]`, { hasText: text });
  await step("shell-output", "# Garden log").waitFor({ timeout: 60_000 });
  await page.getByTestId("sender-name").fill("Ada");
  await page.getByTestId("message-input").fill("Good morning Sol, what are you up to?");
  await page.getByTestId("send-message").click();
  const reply = step("message", "Morning, Ada!");
  await reply.waitFor({ timeout: 30_000 });
  await step("thought", "The log is started").waitFor({ timeout: 60_000 });
  // Idle again, backing off; the stream scrolled as a reader does (the wheel, so it
  // stops following its newest step) until its last row is the reply.
  await page.getByTestId("next-wake").filter({ hasText: /next thought in [1-9]\d* s/ }).waitFor({ timeout: 60_000 });
  await page.getByTestId("thought-stream").hover();
  await page.mouse.wheel(0, -200);
  await reply.evaluate((e) => e.scrollIntoView({ block: "end" }));
  await page.waitForTimeout(500);

  mkdirSync(dirname(out), { recursive: true });
  await page.screenshot({ path: out });
  console.log(`wrote ${out} (${Math.round(statSync(out).size / 1024)} KiB)`);
} finally {
  await context?.close();
  app.kill("SIGTERM");
  await new Promise((r) => (app.exitCode !== null ? r() : app.once("exit", r)));
  await model.close();
  rmSync(scratch, { recursive: true, force: true });
}
