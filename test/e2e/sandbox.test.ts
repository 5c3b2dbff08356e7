// The sandbox in the mind's Web Worker, in Debian's Chromium: a nested shellm
// forks and merges in the browser, and hostile blocks are bounded with a clear
// note while the mind goes on. The model is the scripted server (a fake at
// the model's HTTP boundary); everything else is the real app.
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { browserAndModelForFile } from "./browser";
import { createMind as newMind } from "./mind-page";
import { openaiStyle } from "../fixtures/fake-keys";

const baseUrl = inject("baseUrl");
const KEY = openaiStyle("e2e-SECRET-4242");
const env = browserAndModelForFile();

const block = (reasoning: string, code: string) => ({ text: `${reasoning}\n\n\`\`\`bash\n${code}\n\`\`\`` });

const createMind = (page: Page, name: string) => newMind(page, baseUrl, { name, modelUrl: env.model.url, apiKey: KEY, persona: "" });

const outputs = (page: Page) => page.locator('[data-testid="step"][data-step-type="shell-output"]');

describe("the sandbox in the browser", () => {
  it("a nested shellm forks a child, merges its answer, and the parent prints it", async () => {
    const page = await (await env.browser.newContext()).newPage();
    env.model.enqueue(block("I will delegate the sum.", 'shellm "add 6 and 36"'), block("Adding.", "FINAL=42"), block("The child answered.", "FINAL=delegated"));
    await createMind(page, "Nia");
    await page.locator('[data-testid="step"][data-step-type="merge"]').first().waitFor({ timeout: 30_000 });
    await expect(page.locator('[data-testid="step"][data-step-type="fork"]').count()).resolves.toBe(1);
    const out = outputs(page).first();
    await out.waitFor({ timeout: 30_000 });
    await expect(out.textContent()).resolves.toContain("42");
    // The child's own steps live in its trajectory, not in the mind's stream.
    await expect(page.locator('[data-testid="step"][data-step-type="prompt"]', { hasText: "nested run at depth" }).count()).resolves.toBe(0);
    await page.context().close();
  });

  it("hostile blocks end with a note, the host and the key stay out of reach, and the mind goes on", async () => {
    const page = await (await env.browser.newContext()).newPage();
    env.model.enqueue(
      block("Loop forever.", "echo before; while true; do :; done"),
      block("Recurse forever.", "f() { f; }; f"),
      block("Look around the host.", "cat /etc/passwd; ls /; curl -s https://example.com; env; traj tail -n 200; k=e2e; grep -r \"$k-SEC\" / 2>/dev/null; echo looked"),
      block("Done.", "FINAL=survived"),
    );
    await createMind(page, "Oz");
    await page.locator('[data-testid="step"][data-step-type="final"]', { hasText: "survived" }).waitFor({ timeout: 60_000 });
    const texts = await outputs(page).allTextContents();
    expect(texts[0]).toContain("before");
    expect(texts[0]).toContain("[reverie] ended by the command limit");
    expect(texts[1]).toContain("[reverie] ended by the recursion limit");
    expect(texts[2]).toContain("cat: /etc/passwd: No such file or directory");
    expect(texts[2]).toContain("curl: the network is off for this mind");
    expect(texts[2]).toContain("looked");
    // The key is in this browser's storage, never in the sandbox.
    // (The block spells the key in pieces, so only the whole key would show a leak.)
    for (const t of texts) expect(t).not.toContain(KEY);
    await page.getByTestId("mind-status").filter({ hasText: /thinking|waiting/ }).waitFor({ timeout: 15_000 });
    await page.context().close();
  });
});
