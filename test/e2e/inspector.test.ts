// "What the model saw", in Debian's Chromium: a mind thinks against the
// scripted model server; from a step of its run a person opens the inspector,
// which shows exactly the messages the server received for that call, the
// tokens of each part adding up to the total, and links that move the stream
// to the steps a part covers. A run with no record says so.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { isResponderCall } from "../fixtures/model-server";
import { browserAndModelForFile } from "./browser";
import { createMind, sendMessage, startMind, stopMind, waitForRowAfter } from "./mind-page";

const baseUrl = inject("baseUrl");
const env = browserAndModelForFile({ responder: () => ({ text: "Nothing needs doing.\n\n```bash\nFINAL=idle\n```" }) });
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  context = await env.browser.newContext();
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
});

const MARKUP = '<img src=x onerror="document.body.dataset.pwned=1"><b>not bold</b>';
const inspector = () => page.getByTestId("context-inspector");

/** The inspector's messages as shown: role and text. */
function shownMessages(): Promise<{ role: string; content: string }[]> {
  return inspector()
    .getByTestId("context-message")
    .evaluateAll((els) => els.map((e) => ({ role: e.getAttribute("data-role") ?? "", content: e.querySelector('[data-testid="context-message-content"]')?.textContent ?? "" })));
}

function partTokens(): Promise<{ kind: string; tokens: number }[]> {
  return inspector()
    .getByTestId("context-part")
    .evaluateAll((els) => els.map((e) => ({ kind: e.getAttribute("data-kind") ?? "", tokens: Number(e.getAttribute("data-tokens")) })));
}

/** The inner life's calls, in order (the responder's have instructions of their own). */
const innerRequests = () => env.model.requests.filter((r) => !isResponderCall(r.messages));

describe("what the model saw", () => {
  let reasoning: string[] = [];

  it("a mind thinks: two calls in its first run, each leading to a reasoning step", async () => {
    env.model.enqueue({ text: `I look around first. ${MARKUP}\n\n\`\`\`bash\necho '${MARKUP}'\n\`\`\`` });
    await createMind(page, baseUrl, { name: "Iris", modelUrl: env.model.url, persona: "I keep a small garden of notes." });
    const first = await waitForRowAfter(page, { type: "reasoning" });
    await waitForRowAfter(page, { type: "reasoning", afterId: first });
    await stopMind(page);
    reasoning = await page.locator('[data-testid="step"][data-step-type="reasoning"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-step-id") ?? ""));
    // The first run's two calls are the server's first two; each led to one reasoning step (every scripted reply carries code).
    expect(reasoning.length).toBeGreaterThanOrEqual(2);
    expect(innerRequests().length).toBeGreaterThanOrEqual(reasoning.length);
  });

  it("opens from the second call's reasoning step and shows exactly the messages the server received", async () => {
    const step = page.locator(`[data-testid="step"][data-step-id="${reasoning[1]}"]`);
    await step.getByTestId("inspect-context").focus();
    await page.keyboard.press("Enter");
    await inspector().getByTestId("context-message").first().waitFor();
    // The keyboard lands in the panel.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("context-inspector");
    await expect.poll(shownMessages).toEqual(innerRequests()[1]?.messages);
    const shown = await shownMessages();
    expect(shown[0]?.role).toBe("system");
    expect(shown[0]?.content).toContain("I keep a small garden of notes.");
    // The first call's reply and its output are in the second call's context, as text.
    expect(shown.some((m) => m.role === "assistant" && m.content.includes(MARKUP))).toBe(true);
    await expect(inspector().locator("img, b").count()).resolves.toBe(0);
    await expect(page.evaluate(() => document.body.dataset.pwned ?? null)).resolves.toBeNull();
  });

  it("lists the tokens of each part, persona to the verbatim tail, adding up to the total", async () => {
    const parts = await partTokens();
    const kinds = parts.map((p) => p.kind);
    for (const kind of ["persona", "how-to-act", "commands", "people", "verbatim", "framing"]) expect(kinds).toContain(kind);
    expect(parts.every((p) => Number.isInteger(p.tokens) && p.tokens >= 0)).toBe(true);
    expect(parts.find((p) => p.kind === "persona")?.tokens).toBeGreaterThan(5);
    const total = Number(await inspector().getByTestId("context-total").getAttribute("data-tokens"));
    expect(total).toBeGreaterThan(0);
    expect(parts.reduce((n, p) => n + p.tokens, 0)).toBe(total);
    expect(await inspector().getByTestId("context-total").textContent()).toBe(total.toLocaleString("en"));
  });

  it("a part's link moves the stream to the step it covers and highlights it", async () => {
    const verbatim = inspector().locator('[data-testid="context-part"][data-kind="verbatim"]');
    const link = verbatim.getByTestId("context-step-link").first();
    const target = (await link.getAttribute("data-step-id")) as string;
    await link.click();
    await page.locator(`[data-testid="step"][data-step-id="${target}"][data-selected]`).waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get("step")).toBe(target);
    // The inspector stays open beside the stream.
    await expect(inspector().isVisible()).resolves.toBe(true);
  });

  it("from the run's prompt: its calls, the first one open; choosing the second shows its messages", async () => {
    const prompt = page.locator('[data-testid="step"][data-step-type="prompt"]').first();
    await prompt.getByTestId("inspect-context").click();
    const calls = inspector().getByTestId("context-call");
    await expect.poll(() => calls.count()).toBe(2);
    await expect.poll(shownMessages).toEqual(innerRequests()[0]?.messages);
    await calls.nth(1).click();
    await expect.poll(shownMessages).toEqual(innerRequests()[1]?.messages);
  });

  it("from the responder's reply: its one call (in no run), exactly as the server received it", async () => {
    env.model.enqueueReply({ text: "The garden is growing, slowly." });
    await startMind(page);
    await sendMessage(page, "How is the garden?");
    const reply = await waitForRowAfter(page, { type: "message", text: "The garden is growing, slowly." });
    await stopMind(page);
    await page.locator(`[data-testid="step"][data-step-id="${reply}"]`).getByTestId("inspect-context").click();
    const sent = env.model.requests.filter((r) => isResponderCall(r.messages)).at(-1)?.messages;
    expect(sent?.at(-1)?.content).toContain("How is the garden?");
    await expect.poll(shownMessages).toEqual(sent);
    const parts = await partTokens();
    expect(parts.map((p) => p.kind)).toEqual(["instructions", "conversation", "framing"]);
    expect(parts.reduce((n, p) => n + p.tokens, 0)).toBe(Number(await inspector().getByTestId("context-total").getAttribute("data-tokens")));
  });

  it("says so plainly for a run with no record (before recording, or imported)", async () => {
    // As for a run from before this feature: no rows in the contexts table.
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const open = indexedDB.open("reverie");
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const tx = open.result.transaction("contexts", "readwrite");
            tx.objectStore("contexts").clear();
            tx.oncomplete = () => {
              open.result.close();
              resolve();
            };
            tx.onerror = () => reject(tx.error);
          };
        }),
    );
    // Escape closes the panel from the keyboard.
    await inspector().press("Escape");
    await expect.poll(() => inspector().count()).toBe(0);
    await page.locator(`[data-testid="step"][data-step-id="${reasoning[0]}"]`).getByTestId("inspect-context").click();
    await expect.poll(() => inspector().getByTestId("context-none").textContent()).toContain("no record of what the model saw");
    await expect(inspector().getByTestId("context-message").count()).resolves.toBe(0);
  });
});
