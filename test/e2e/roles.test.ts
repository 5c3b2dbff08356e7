// Roles on invites, in Debian's Chromium against the real app and its sharing
// routes, the mind thinking on the scripted model server, with three browser
// contexts: the owner makes a guest's and an operator's invite; the guest's
// page shows only the conversation and says the mind keeps no secrets, and
// its control request is refused while the mind keeps thinking; the
// operator pauses the mind from their page and it pauses (the owner's page
// shows it stopped, and who did it), then resumes it and it thinks again; an
// alert posted to an alert link reaches the stream and the model, tagged.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserAndModelForFile } from "./browser";
import { defaultResponder } from "../fixtures/model-server";
import { createMind, invite, rows, setPacing, waitForStatus, RUNNING } from "./mind-page";

const baseUrl = inject("baseUrl");
const env = browserAndModelForFile();

/** The newest thought or command the owner's page shows ("" before the first): a new one means the mind thought again. */
const lastWork = async (page: Page) => (await rows(page)).filter((r) => r.type === "reasoning" || r.type === "thought").at(-1)?.id ?? "";

describe("roles on invites", () => {
  let hostContext: BrowserContext;
  let guestContext: BrowserContext;
  let operatorContext: BrowserContext;
  let host: Page;
  let guest: Page;
  let operator: Page;
  let guestUrl = "";
  let operatorUrl = "";

  beforeAll(async () => {
    hostContext = await env.browser.newContext();
    guestContext = await env.browser.newContext();
    operatorContext = await env.browser.newContext();
    host = await hostContext.newPage();
    guest = await guestContext.newPage();
    operator = await operatorContext.newPage();
    await createMind(host, baseUrl, { name: "Rho", modelUrl: env.model.url });
    await setPacing(host, { base_s: 1, cap_s: 2 });
    guestUrl = await invite(host, "guest");
    await host.getByTestId("share-link-item").filter({ hasText: "invite · guest" }).waitFor({ timeout: 15_000 });
    operatorUrl = await invite(host, "operator", guestUrl);
    await host.getByTestId("share-link-item").filter({ hasText: "invite · operator" }).waitFor({ timeout: 15_000 });
    expect(operatorUrl).not.toBe(guestUrl);
  });
  afterAll(async () => {
    await Promise.all([hostContext?.close(), guestContext?.close(), operatorContext?.close()]);
  });

  it("a guest's page shows what a guest may do, that the mind keeps no secrets, and only the conversation", async () => {
    await guest.goto(guestUrl);
    await expect(guest.getByTestId("invite-may").getAttribute("data-role", { timeout: 30_000 })).resolves.toBe("guest");
    await expect(guest.getByTestId("no-secrets").textContent()).resolves.toMatch(/may be shared with everyone who talks to it/);
    expect(await guest.getByTestId("operator-controls").count()).toBe(0);
    await guest.getByTestId("guest-name").fill("Gwen");
    await guest.getByTestId("message-input").fill("Hello Rho, it is Gwen.");
    await guest.getByTestId("send-message").click();
    await guest.locator('[data-testid="step"][data-step-type="message"]', { hasText: "Hello Gwen, I got your message." }).waitFor({ timeout: 30_000 });
    // The owner's page has thoughts and commands by now; the guest's only messages.
    await expect.poll(() => lastWork(host), { timeout: 30_000 }).not.toBe("");
    const types = new Set((await rows(guest)).map((r) => r.type));
    expect([...types]).toEqual(["message"]);
    // The mind saw the sender's role.
    await host.locator('[data-testid="step"][data-step-type="message"]', { hasText: "Hello Rho, it is Gwen." }).waitFor();
  });

  it("the mind writes to the guest unprompted: the guest's page shows it at once, with an unread count in its title", async () => {
    // The reply to Gwen's first message came after she last touched the page: unread until she does.
    await expect(guest.getByTestId("unread-count").getAttribute("data-count")).resolves.toBe("1");
    await guest.getByTestId("message-input").press("Shift");
    await expect.poll(() => guest.title()).toBe("Rho · Reverie");
    expect(await guest.getByTestId("unread-count").count()).toBe(0);
    let sent = false;
    env.model.setResponder((req) => {
      if (sent) return defaultResponder(req);
      sent = true;
      return { text: `Gwen asked nothing, but she will want this.\n\n\`\`\`bash\nchat send --to Gwen "The tomatoes are ripe, Gwen."\nFINAL="act: told Gwen"\n\`\`\`` };
    });
    try {
      await guest.locator('[data-testid="step"][data-step-type="message"]', { hasText: "The tomatoes are ripe, Gwen." }).waitFor({ timeout: 30_000 });
      await expect.poll(() => guest.title(), { timeout: 10_000 }).toBe("(1) Rho · Reverie");
      await expect(guest.getByTestId("unread-count").getAttribute("data-count")).resolves.toBe("1");
      // Touching the page reads them.
      await guest.getByTestId("message-input").press("Shift");
      await expect.poll(() => guest.title()).toBe("Rho · Reverie");
    } finally {
      env.model.setResponder(defaultResponder);
    }
  });

  it("a guest's control request is refused with 403, and the mind keeps thinking", async () => {
    const token = new URL(guestUrl).pathname.split("/").pop();
    const refused = await guest.evaluate(async (t) => {
      const res = await fetch(`/api/share/${t}/control`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ action: "pause", from: "Gwen" }) });
      return { status: res.status, body: (await res.json()) as { error: { code: string } } };
    }, token);
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
    const before = await lastWork(host);
    await expect.poll(() => lastWork(host), { timeout: 30_000 }).not.toBe(before);
    await waitForStatus(host, RUNNING);
  });

  it("an operator pauses the mind from the invite page and it pauses, the owner sees who did it; a resume starts it again", async () => {
    await operator.goto(operatorUrl);
    await expect(operator.getByTestId("invite-may").getAttribute("data-role", { timeout: 30_000 })).resolves.toBe("operator");
    await operator.getByTestId("guest-name").fill("Cy");
    await operator.getByTestId("control-pause").click();
    await operator.getByTestId("control-result").filter({ hasText: /^Paused/ }).waitFor({ timeout: 15_000 });
    await host.getByTestId("mind-status").filter({ hasText: /^stopped$/ }).waitFor({ timeout: 20_000 });
    await host.locator('[data-testid="step"][data-step-type="observation"]', { hasText: "Cy (operator) paused you" }).waitFor({ timeout: 15_000 });
    await host.getByTestId("mind-start").waitFor();
    // Paused: no more thoughts.
    const paused = await lastWork(host);
    await new Promise((r) => setTimeout(r, 4_000));
    expect(await lastWork(host)).toBe(paused);
    // The operator's page follows the whole stream, so it sees the pause too.
    await operator.locator('[data-testid="step"][data-step-type="observation"]', { hasText: "Cy (operator) paused you" }).waitFor({ timeout: 20_000 });

    await operator.getByTestId("control-resume").click();
    await operator.getByTestId("control-result").filter({ hasText: /^Resumed/ }).waitFor({ timeout: 15_000 });
    await waitForStatus(host, RUNNING, 20_000);
    await host.locator('[data-testid="step"][data-step-type="observation"]', { hasText: "Cy (operator) resumed you" }).waitFor({ timeout: 15_000 });
    await expect.poll(() => lastWork(host), { timeout: 30_000 }).not.toBe(paused);
  });

  it("an alert posted to an alert link appears tagged in the stream and in what the model saw", async () => {
    await host.getByTestId("alert-name").fill("CI");
    await host.getByTestId("alert-create").click();
    const made = await host.waitForFunction(() => (document.querySelector('[data-testid="alert-link"]') as HTMLInputElement | null)?.value || null, null, { timeout: 30_000 });
    const token = new URL((await made.jsonValue()) as string).pathname.split("/").pop();
    const res = await fetch(`${baseUrl}/api/share/${token}/alerts`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "build 42 failed", body: "test_garden.py::test_water FAILED", severity: "error" }) });
    expect(res.status).toBe(202);
    // An alert link reads nothing.
    expect((await fetch(`${baseUrl}/api/share/${token}/steps`)).status).toBe(403);
    const row = host.locator('[data-testid="step"][data-step-type="observation"]', { hasText: "build 42 failed" });
    await row.waitFor({ timeout: 20_000 });
    await expect(row.textContent()).resolves.toMatch(/alert/);
    const seen = `[alert] Alert (error) from the alert link "CI": build 42 failed`;
    await expect
      .poll(() => env.model.requests.some((r) => JSON.stringify(r.messages).includes(JSON.stringify(seen).slice(1, -1))), { timeout: 30_000 })
      .toBe(true);
  });
});
