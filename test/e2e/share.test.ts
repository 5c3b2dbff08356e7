// Sharing a mind, in Debian's Chromium against the real app and its real
// sharing routes, the mind thinking on the scripted model server: the host
// makes links on the mind's page; a viewer (another browser context) follows
// a live link, a snapshot stops at its step, a guest on an invite writes and
// sees the reply, and after revocation both lose access.
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserAndModelForFile } from "./browser";
import { createMind, setPacing } from "./mind-page";

const baseUrl = inject("baseUrl");
const env = browserAndModelForFile();

const stepIds = (page: Page) => page.locator('[data-testid="step"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-step-id") ?? ""));
const stepWith = (page: Page, text: string) => page.locator('[data-testid="step"]', { hasText: text }).first();

/** When (the page's Date.now) a step containing `text` first shows in the page. */
function sighting(page: Page, text: string, timeoutMs = 60_000): Promise<number> {
  return page.evaluate(
    ({ text, timeoutMs }) =>
      new Promise<number>((resolve, reject) => {
        const hit = () => [...document.querySelectorAll('[data-testid="step"]')].some((e) => e.textContent?.includes(text));
        if (hit()) return resolve(Date.now());
        const timer = setTimeout(() => reject(new Error(`no step with ${text} within ${timeoutMs} ms`)), timeoutMs);
        const mo = new MutationObserver(() => {
          if (!hit()) return;
          mo.disconnect();
          clearTimeout(timer);
          resolve(Date.now());
        });
        mo.observe(document.body, { subtree: true, childList: true, characterData: true });
      }),
    { text, timeoutMs },
  );
}

/**
 * FAKE network — a TCP pass-through to the app that can drop every open
 * connection and refuse new ones (a viewer's network going away), then let
 * them through again.
 */
async function startCutProxy(target: URL): Promise<{ url: string; cut(): void; restore(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let down = false;
  const server = createServer((client) => {
    if (down) return client.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Create a link from the share bar; resolves with its URL. */
async function createLink(host: Page, kind: "snapshot" | "live" | "invite"): Promise<string> {
  if (kind === "invite") {
    await host.getByTestId("invite-create").click();
    const field = host.getByTestId("invite-link");
    await field.waitFor({ timeout: 30_000 });
    return field.inputValue();
  }
  await host.getByTestId("share-mode").selectOption(kind);
  await host.getByTestId("share-create").click();
  const field = host.getByTestId("share-link");
  await field.waitFor({ timeout: 30_000 });
  return field.inputValue();
}

describe("sharing a mind with links", () => {
  let hostContext: BrowserContext;
  let viewerContext: BrowserContext;
  let guestContext: BrowserContext;
  let host: Page;
  let viewer: Page;
  let guest: Page;
  let liveUrl = "";
  let inviteUrl = "";

  beforeAll(async () => {
    hostContext = await env.browser.newContext();
    viewerContext = await env.browser.newContext();
    guestContext = await env.browser.newContext();
    host = await hostContext.newPage();
    viewer = await viewerContext.newPage();
    guest = await guestContext.newPage();
    await createMind(host, baseUrl, { name: "Sol", modelUrl: env.model.url, apiKey: "sol-held-key-123456" });
    // Short pauses between wakes, so new thoughts keep coming while the test watches.
    await setPacing(host, { base_s: 1, cap_s: 2 });
  });
  afterAll(async () => {
    await Promise.all([hostContext?.close(), viewerContext?.close(), guestContext?.close()]);
  });

  it("the share bar is on the mind's page, and sync reports what it did", async () => {
    for (const id of ["share-mode", "share-create", "invite-create", "sync-status"]) await expect(host.getByTestId(id).isVisible()).resolves.toBe(true);
    await expect(host.getByTestId("sync-status").textContent()).resolves.toMatch(/Sync is off/);
    liveUrl = await createLink(host, "live");
    expect(liveUrl).toMatch(new RegExp(`^${baseUrl}/s/[A-Za-z0-9_-]{43}$`));
    await host.getByTestId("sync-status").filter({ hasText: /\d+ steps? pending · last sync/ }).waitFor();
    await expect.poll(() => host.getByTestId("share-revoke").count()).toBe(1);
    // The mind's use of its quota on the server, as the server said it.
    await host.getByTestId("sync-quota").filter({ hasText: /· [\d.]+ (B|KiB|MiB) of 256 MiB used/ }).waitFor();
    await expect(host.getByTestId("sync-quota").getAttribute("data-quota-used")).resolves.toMatch(/^0\.\d{4}$/);
  });

  it("a viewer on a live link sees the stream read-only, and a new thought within 2 s of its append", async () => {
    await viewer.goto(liveUrl);
    await viewer.getByTestId("thought-stream").waitFor({ timeout: 30_000 });
    await viewer.locator('[data-testid="step"][data-step-type="trajectory"]').first().waitFor({ timeout: 30_000 });
    await expect(viewer.getByTestId("share-banner").textContent()).resolves.toMatch(/Sol's thought stream, live\. Read-only\./);
    expect(await viewer.getByTestId("message-input").count()).toBe(0);
    expect(await viewer.getByTestId("send-message").count()).toBe(0);

    // Three thoughts, each timed in both pages by a MutationObserver (Playwright's own polling is too coarse to time).
    const latencies: { append: number; hostPage: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const marker = `marker-${i}-${Math.random().toString(36).slice(2, 10)}`;
      const [onHost, onViewer] = [sighting(host, marker), sighting(viewer, marker)];
      env.model.enqueue({ text: `A thought about ${marker}.\n\n\`\`\`bash\necho ${marker}\nFINAL=ok\n\`\`\`` });
      const [h, v] = await Promise.all([onHost, onViewer]);
      // The step's ts is stamped by the host's worker as it appends (same machine, same clock).
      const appended = Date.parse((await stepWith(viewer, marker).locator("time").getAttribute("datetime")) ?? "");
      latencies.push({ append: v - appended, hostPage: v - h });
    }
    console.log(`[share e2e] a new thought reached the live viewer ${latencies.map((l) => `${l.append} ms after its append (${l.hostPage} ms after the host's page showed it)`).join("; ")}`);
    expect(Math.max(...latencies.map((l) => l.append))).toBeLessThan(2000);
    // The held model key never reaches the server's copy.
    expect(await viewer.evaluate(() => document.body.innerText.includes("sol-held-key-123456"))).toBe(false);
  });

  it("a live viewer cut off resumes from the last step it saw, missing nothing and repeating nothing", async () => {
    // The viewer reaches the app through a pass-through proxy, so the test can drop its connections.
    const proxy = await startCutProxy(new URL(baseUrl));
    const page = await viewerContext.newPage();
    try {
      const streams: string[] = [];
      page.on("request", (r) => {
        if (r.url().includes("/events")) streams.push(r.url());
      });
      await page.goto(`${proxy.url}${new URL(liveUrl).pathname}`);
      await page.locator('[data-testid="step"]').first().waitFor({ timeout: 30_000 });
      await expect.poll(() => streams.length).toBe(1);

      proxy.cut();
      const marker = `while-away-${Math.random().toString(36).slice(2, 10)}`;
      env.model.enqueue({ text: `Thinking alone about ${marker}.\n\n\`\`\`bash\necho ${marker}\nFINAL=ok\n\`\`\`` });
      await stepWith(host, marker).waitFor({ timeout: 60_000 });
      expect(await stepWith(page, marker).count()).toBe(0);
      proxy.restore();

      await stepWith(page, marker).waitFor({ timeout: 30_000 });
      expect(streams.length).toBeGreaterThanOrEqual(2);
      const markerId = await stepWith(host, marker).getAttribute("data-step-id");
      const upToMarker = (list: string[]) => list.slice(0, list.indexOf(markerId ?? "") + 1);
      const ids = await stepIds(page);
      expect(new Set(ids).size).toBe(ids.length);
      expect(upToMarker(ids)).toEqual(upToMarker(await stepIds(host)));
    } finally {
      await page.close();
      await proxy.close();
    }
  });

  it("a snapshot shows nothing past its step", async () => {
    const snapshotUrl = await createLink(host, "snapshot");
    const page = await viewerContext.newPage();
    await page.goto(snapshotUrl);
    await page.getByTestId("share-banner").filter({ hasText: /A snapshot of Sol's thought stream/ }).waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="step"]').first().waitFor();
    const shown = await stepIds(page);
    // The mind goes on: wait for a step the snapshot cannot have, then look again.
    const marker = `after-snapshot-${Math.random().toString(36).slice(2, 10)}`;
    env.model.enqueue({ text: `Later, ${marker}.\n\n\`\`\`bash\necho ${marker}\nFINAL=ok\n\`\`\`` });
    await stepWith(viewer, marker).waitFor({ timeout: 60_000 });
    await page.reload();
    await page.locator('[data-testid="step"]').first().waitFor({ timeout: 30_000 });
    expect(await stepIds(page)).toEqual(shown);
    expect(await stepWith(page, marker).count()).toBe(0);
    expect(await page.getByTestId("message-input").count()).toBe(0);
    await page.close();
  });

  it("a live link replays from its page: the scrubber runs over the steps the link showed, and the stream follows it", async () => {
    const page = await viewerContext.newPage();
    await page.goto(liveUrl);
    await page.locator('[data-testid="step"]').first().waitFor({ timeout: 30_000 });
    await page.getByTestId("replay-link").click();
    await page.waitForURL(new RegExp(`/replay/s/${new URL(liveUrl).pathname.split("/").pop()}$`));
    const position = page.getByTestId("replay-position");
    await expect.poll(() => position.textContent(), { timeout: 30_000 }).toMatch(/^step 1 of \d+ · /);
    const total = Number(/of (\d+)/.exec((await position.textContent()) ?? "")?.[1]);
    expect(total).toBeGreaterThan(3);
    await expect.poll(() => page.getByTestId("step-count").textContent()).toBe("1 step");
    await page.getByTestId("replay-scrubber").focus();
    await page.keyboard.press("End");
    await expect.poll(() => position.getAttribute("data-shown")).toBe(String(total));
    await expect.poll(() => page.getByTestId("step-count").textContent(), { timeout: 10_000 }).toBe(`${total} steps`);
    // Read-only, like the link itself: no message box on a replay.
    expect(await page.getByTestId("message-input").count()).toBe(0);
    await page.close();
  });

  it("a guest on an invite sends a message as a name and sees the mind's reply; the host sees who is talking", async () => {
    inviteUrl = await createLink(host, "invite");
    await guest.goto(inviteUrl);
    await guest.getByTestId("thought-stream").waitFor({ timeout: 30_000 });
    await guest.getByTestId("guest-name").fill("Gwen");
    await guest.getByTestId("message-input").fill("Hello Sol, it is Gwen.");
    await guest.getByTestId("send-message").click();
    await expect.poll(() => guest.getByTestId("message-input").inputValue()).toBe("");

    await guest.locator('[data-testid="step"][data-step-type="message"]', { hasText: "Hello Sol, it is Gwen." }).waitFor({ timeout: 20_000 });
    await guest.locator('[data-testid="step"][data-step-type="message"]', { hasText: "Hello Gwen, I got your message." }).waitFor({ timeout: 30_000 });
    await host.locator('[data-testid="step"][data-step-type="message"]', { hasText: "Hello Sol, it is Gwen." }).waitFor();
    await host.getByTestId("invite-guests").filter({ hasText: /Gwen \(1 message,/ }).waitFor({ timeout: 15_000 });
    // Over the invite's rate limit, the guest is told when to try again, and keeps what they typed.
    let refused = false;
    for (let i = 0; i < 12 && !refused; i++) {
      await guest.getByTestId("message-input").fill(`Message ${i} from Gwen`);
      await guest.getByTestId("send-message").click();
      await expect.poll(async () => (await guest.getByTestId("message-input").inputValue()) === "" || (await guest.getByTestId("message-error").count()) > 0).toBe(true);
      refused = (await guest.getByTestId("message-error").count()) > 0;
    }
    expect(refused).toBe(true);
    await expect(guest.getByTestId("message-error").textContent()).resolves.toMatch(/^Too many messages for now: try again in \d+ s\.$/);
    expect(await guest.getByTestId("message-input").inputValue()).toMatch(/^Message \d+ from Gwen$/);
    // The name is remembered in the guest's browser.
    await guest.reload();
    await expect.poll(() => guest.getByTestId("guest-name").inputValue(), { timeout: 15_000 }).toBe("Gwen");
  });

  it("after revocation the viewer and the guest lose access", async () => {
    const revoke = host.getByTestId("share-revoke");
    while ((await revoke.count()) > 0) {
      const before = await revoke.count();
      await revoke.first().click();
      await expect.poll(() => revoke.count(), { timeout: 15_000 }).toBe(before - 1);
    }
    await viewer.getByTestId("share-revoked").waitFor({ timeout: 15_000 });
    await guest.getByTestId("share-revoked").waitFor({ timeout: 15_000 });
    expect(await viewer.getByTestId("thought-stream").count()).toBe(0);
    await viewer.reload();
    await viewer.getByTestId("share-not-found").waitFor({ timeout: 15_000 });
    await expect(viewer.locator("body").innerText()).resolves.toContain("This link does not exist or was revoked");
    expect(await viewer.locator('[data-testid="step"]').count()).toBe(0);
    await guest.goto(inviteUrl);
    await guest.getByTestId("share-not-found").waitFor({ timeout: 15_000 });
    expect(await guest.getByTestId("message-input").count()).toBe(0);
  });
});
