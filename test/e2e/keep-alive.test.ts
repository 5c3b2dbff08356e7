// A mind that never sleeps, through the real app (`next start` with its
// embedded runner and the proxy in front of the scripted model server) in
// Debian's Chromium: keep-alive on, its tab closed, the mind goes on thinking
// on the server (new steps on its live link, wakes that say "server"); a
// guest's message through an invite is answered there; reopened, the tab
// shows what it did away, takes it back ("this tab"), has the file it wrote
// on the server, and goes on. Across the whole life: no seq gap, no step id
// twice, and the wake steps' epochs never go back in seq order.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer, type Responder } from "../fixtures/model-server";
import { launchChromium } from "./browser";
import { setPacing } from "./mind-page";
import { scriptedProxyEnv, startProxyApp } from "./proxy-app";

const UPSTREAM_KEY = "fake-key-e2e-keepalive-not-real-4c5d6e7f";
const LEASE_S = 5;

/** FAKE model (the scripted server): the inner life writes which home it thinks in, as the test says. */
let phase: "tab" | "server" = "tab";
const responder: Responder = () => ({
  text:
    phase === "server"
      ? 'Still here.\n```bash\necho "written while no tab was open" >> /workspace/from-server.txt\nFINAL="idle: noted"\n```'
      : 'In my tab.\n```bash\necho tab >> /workspace/from-tab.txt\nFINAL="idle: nothing new"\n```',
});

type Wire = { seq: number; traj: string; json: string };
type Row = { seq: number; step: Record<string, unknown> & { type: string; step_id: string } };

describe("keep-alive: the mind moves to the server when its tab closes, and back", () => {
  let upstream: ModelServer;
  let app: { url: string; close(): Promise<void> };
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;

  beforeAll(async () => {
    upstream = await startModelServer({ responder });
    app = await startProxyApp({
      ...scriptedProxyEnv(upstream.url, UPSTREAM_KEY),
      RUNNER_LEASE_S: String(LEASE_S),
      RUNNER_MAX_MINDS: "5",
    });
    browser = await launchChromium();
    context = await browser.newContext();
  }, 240_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await app?.close();
    await upstream?.close();
  });

  const steps = async (token: string): Promise<Row[]> => {
    const out: Row[] = [];
    let after = 0;
    for (;;) {
      const res = await fetch(`${app.url}/api/share/${token}/steps?after=${after}&limit=2000`);
      const page = (await res.json()) as { steps: Wire[] };
      if (!page.steps.length) return out;
      for (const s of page.steps) out.push({ seq: s.seq, step: JSON.parse(s.json) as Row["step"] });
      after = page.steps[page.steps.length - 1]!.seq;
    }
  };
  async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms: number): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await probe().catch(() => undefined);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const linkToken = (url: string) => new URL(url).pathname.split("/").pop() ?? "";

  it("keeps thinking on the server with its tab closed, answers a guest there, and comes back to the tab with what it did", async () => {
    let page: Page = await context.newPage();
    await page.goto(app.url);
    await page.waitForFunction(() => (document.querySelector('[data-testid="model-provider"]') as HTMLSelectElement | null)?.value === "proxy", null, { timeout: 30_000 });
    await page.getByTestId("new-mind-name").fill("Kept");
    await page.getByTestId("create-mind").click();
    await page.waitForURL(/\/mind\/[0-9a-f-]{36}$/);
    const mindUrl = page.url();
    await setPacing(page, { base_s: 1, cap_s: 2, ticks_per_level: 1 });

    // Links (which switch sync on), then keep-alive.
    await page.getByTestId("share-mode").selectOption("live");
    await page.getByTestId("share-create").click();
    const live = linkToken(await page.getByTestId("share-link").inputValue());
    await page.getByTestId("invite-create").click();
    await page.getByTestId("invite-link").waitFor({ timeout: 30_000 });
    const invite = linkToken(await page.getByTestId("invite-link").inputValue());
    await expect(page.getByTestId("mind-home").getAttribute("data-home")).resolves.toBe("this tab");
    await page.getByTestId("keep-alive").check();
    await page.waitForFunction(() => (document.querySelector('[data-testid="keep-alive"]') as HTMLInputElement | null)?.checked === true, null, { timeout: 30_000 });
    await expect(page.getByTestId("keep-alive-error").count()).resolves.toBe(0);
    // The tab holds the lease once it has looked again; its steps reach the server under it.
    await until("a tab wake under a lease on the live link", async () => (await steps(live)).some((r) => r.step.type === "wake" && r.step.home === "tab" && typeof r.step.epoch === "number"), 60_000).catch(async (e: unknown) => {
      const tail = (await steps(live)).slice(-6).map((r) => `${r.seq} ${r.step.type} ${String(r.step.home ?? "")} ${String(r.step.epoch ?? "")}`);
      const home = await page.getByTestId("home-bar").textContent().catch(() => "(no home bar)");
      throw new Error(`${e instanceof Error ? e.message : String(e)}; home bar: ${home}; last steps: ${tail.join(" | ")}`);
    });

    // Close the tab: the mind's only page in this browser.
    phase = "server";
    await page.close();
    const closedAt = Date.now();
    const firstServer = await until("a wake on the server", async () => (await steps(live)).find((r) => r.step.type === "wake" && r.step.home === "server"), (LEASE_S + 30) * 1000);
    const handoverMs = Date.now() - closedAt;
    // New steps keep appearing on its live link while no tab is open.
    const seen = (await steps(live)).length;
    await until("more steps from the server", async () => (await steps(live)).length > seen + 3, 30_000);

    // A guest writes through the invite: the server's mind answers.
    const sent = await fetch(`${app.url}/api/share/${invite}/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ from: "Gwen", content: "Are you awake?" }) });
    expect(sent.status).toBe(202);
    const { id } = (await sent.json()) as { id: string };
    const reply = await until("the server's reply to the guest", async () => (await steps(live)).find((r) => r.step.type === "message" && r.step.reply_to === id), 30_000);
    expect(reply.step).toMatchObject({ from: "Kept", to: "Gwen" });
    const replyWake = (await steps(live)).filter((r) => r.seq < reply.seq && r.step.type === "wake").at(-1);
    if (replyWake?.step.home !== "server") {
      const tail = (await steps(live)).filter((r) => r.seq <= reply.seq).slice(-12).map((r) => `${r.seq} ${r.step.type} ${String(r.step.home ?? "-")} ${String(r.step.epoch ?? "-")} ${String(r.step.reason ?? "")} ${r.step.step_id.slice(0, 8)}`);
      throw new Error(`the wake before the reply was not the server's: ${tail.join(" | ")}`);
    }
    await until("a file written on the server", async () => (await steps(live)).some((r) => r.seq > firstServer.seq && JSON.stringify(r.step).includes("from-server.txt")), 30_000);

    // Reopen the mind in this browser: it says what happened, takes the mind back, and has the server's file.
    phase = "tab";
    page = await context.newPage();
    const consoleLines: string[] = [];
    let openedAt = Date.now();
    page.on("console", (m) => consoleLines.push(`${Date.now() - openedAt} ${m.type()}: ${m.text().slice(0, 200)}`));
    openedAt = Date.now();
    await page.goto(mindUrl);
    await page.getByTestId("away-digest").waitFor({ timeout: 30_000 }).catch(async (e: unknown) => {
      const home = await page.getByTestId("home-bar").textContent().catch(() => "(no home bar)");
      const status = await page.getByTestId("mind-status").textContent().catch(() => "(no status)");
      throw new Error(`${e instanceof Error ? e.message : String(e)}; home bar: ${home}; status: ${status}; console: ${consoleLines.slice(-15).join(" | ")}`);
    });
    await expect(page.getByTestId("away-digest").textContent()).resolves.toMatch(/on the server: \d+ steps?, \d+ wakes?, [1-9]\d* repl(y|ies)/);
    await page.waitForFunction(() => document.querySelector('[data-testid="mind-home"]')?.getAttribute("data-home") === "this tab", null, { timeout: 30_000 });
    const backAt = await until("a tab wake after the server's", async () => {
      const all = await steps(live);
      const lastServer = all.filter((r) => r.step.type === "wake" && r.step.home === "server").at(-1);
      return all.some((r) => r.step.type === "wake" && r.step.home === "tab" && lastServer && r.seq > lastServer.seq) && Date.now();
    }, 30_000);
    await page.getByTestId("tab-files").click();
    await page.locator('[data-testid="file-item"][data-path="/workspace/from-server.txt"]').waitFor({ timeout: 30_000 });

    // The whole life, as the server holds it.
    const all = await steps(live);
    expect(all.map((r) => r.seq)).toEqual(all.map((_, i) => i + 1));
    expect(new Set(all.map((r) => r.step.step_id)).size).toBe(all.length);
    const epochs = all.flatMap((r) => (r.step.type === "wake" && typeof r.step.epoch === "number" ? [r.step.epoch] : []));
    expect(epochs).toEqual([...epochs].sort((a, b) => a - b));
    // For the note: how long each move took (the tab's lease lapsing, then the next wake; the tab asking, then its first wake).
    console.error(`keep-alive handover: tab closed → first server wake ${handoverMs} ms (lease ${LEASE_S} s); tab opened → first tab wake ${backAt - openedAt} ms`);
  }, 300_000);
});
