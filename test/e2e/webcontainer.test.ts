// Real Node switched on for a mind, in Debian's Chromium on a machine that
// cannot reach StackBlitz: the WebContainer cannot boot, the page says why,
// and the mind goes on thinking with the built-in shell. The model is the
// scripted server (a fake at the model's HTTP boundary); the rest is the app.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserAndModelForFile } from "./browser";

const baseUrl = inject("baseUrl");
const env = browserAndModelForFile();

const block = (reasoning: string, code: string) => ({ text: `${reasoning}\n\n\`\`\`bash\n${code}\n\`\`\`` });
const outputs = (page: Page) => page.locator('[data-testid="step"][data-step-type="shell-output"]');

const UNAVAILABLE = /^Node unavailable — (.+)\. The mind keeps the built-in shell\.$/;

describe("real Node where the WebContainer cannot boot", () => {
  let page: Page;
  let reason = "";

  beforeAll(async () => {
    page = await (await env.browser.newContext()).newPage();
  });

  afterAll(async () => {
    await page?.context().close();
  });

  /** Ask the mind something; the scripted model answers with `code`. Resolves with the shell output that contains `marker`. */
  async function ask(question: string, code: string, marker: string): Promise<string> {
    env.model.enqueue(block("Let me try.", code));
    await page.getByTestId("message-input").fill(question);
    await page.getByTestId("send-message").click();
    // A row shows a one-line preview until its body has loaded: wait for the body (its exit line).
    const out = outputs(page).filter({ hasText: marker }).filter({ hasText: /exit \d+/ }).first();
    await out.waitFor({ timeout: 60_000 });
    return (await out.textContent()) ?? "";
  }

  it("the page says why, and the mind keeps thinking on the built-in shell", async () => {
    await page.goto(baseUrl);
    await page.getByTestId("new-mind-name").fill("Noa");
    await page.getByTestId("model-provider").selectOption("openai-compatible");
    await page.getByTestId("model-base-url").fill(env.model.url);
    await page.getByTestId("model-name").fill("scripted");
    await page.getByTestId("model-api-key").fill("test-key");
    await page.getByTestId("perm-webcontainer").check();
    await page.getByTestId("create-mind").click();
    await page.waitForURL(/\/mind\/[0-9a-f-]{36}$/);
    await expect(page.evaluate(() => crossOriginIsolated)).resolves.toBe(true);

    // It tries (the boot has 20 s), then gives up and says why.
    const status = page.getByTestId("webcontainer-status");
    await status.waitFor({ timeout: 10_000 });
    await page.locator('[data-testid="webcontainer-status"][data-state="unavailable"]').waitFor({ timeout: 40_000 });
    const line = (await status.textContent()) ?? "";
    expect(line).toMatch(UNAVAILABLE);
    reason = UNAVAILABLE.exec(line)?.[1] ?? "";
    console.log(`webcontainer-status: ${line}`);

    // The mind goes on: new shell output after the notice, from the built-in shell.
    const before = await outputs(page).count();
    const text = await ask("Still there?", 'echo "the built-in shell works: $((6 * 7))"', "the built-in shell works: 42");
    expect(text).toContain("exit 0");
    expect(await outputs(page).count()).toBeGreaterThan(before);
    await page.getByTestId("mind-status").filter({ hasText: /thinking|waiting/ }).waitFor({ timeout: 15_000 });
    await expect(status.textContent()).resolves.toBe(line);
  });

  it("node says the same reason to the mind, and the block goes on after it", async () => {
    const text = await ask("Can you run node?", 'node -v; echo "after node: $?"', "after node: 127");
    expect(text).toContain(`node: real Node is not available here: ${reason}. The built-in shell (bash, grep, sed, awk, jq …) still works.`);
  });
});
