// A person declares a mind's permissions, then browses the files it wrote:
// read-only while it runs, editable once stopped, and the mind reads the
// edit after the next Start — in Debian's Chromium.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startModelServer, type ModelServer } from "../fixtures/model-server";
import { launchChromium } from "./browser";

const baseUrl = inject("baseUrl");
let browser: Browser;
let model: ModelServer;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  model = await startModelServer();
  context = await browser.newContext();
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await model?.close();
});

const item = (path: string) => page.locator(`[data-testid="file-item"][data-path="${path}"]`);
const viewerText = () => page.getByTestId("file-viewer").getByTestId("file-text");
const focusedPath = () => page.evaluate(() => document.activeElement?.getAttribute("data-path"));

describe("permissions and files of a mind", () => {
  it("refuses a bad allow-list line, then creates the mind with the list and shows it", async () => {
    // The mind's first block writes files; the scripted default ticks after that.
    model.enqueue({
      text: "Let me keep notes.\n\n```bash\nmkdir -p docs\necho \"first note from the mind\" > notes.md\nprintf 'a <b>bold</b> & \"quoted\"\\n' > docs/page.html\nFINAL=noted\n```",
    });
    await page.goto(baseUrl);
    await page.getByTestId("new-mind-name").fill("Fay");
    await page.getByTestId("model-provider").selectOption("openai-compatible");
    await page.getByTestId("model-base-url").fill(model.url);
    await page.getByTestId("model-name").fill("scripted");
    await page.getByTestId("model-api-key").fill("test-key");
    await expect(page.getByTestId("perm-network-status").textContent()).resolves.toBe("Network: off");
    // The limits are folded away; the network and Node controls are not.
    await expect(page.getByTestId("perm-silence_s").isVisible()).resolves.toBe(false);
    await expect(page.getByTestId("perm-webcontainer").isChecked()).resolves.toBe(false);

    await page.getByTestId("perm-network-allow").fill("https://api.example.com/v1/\nftp://files.example.com/");
    await page.getByTestId("create-mind").click();
    await expect.poll(() => page.getByTestId("form-errors").textContent()).toBe(
      'Network, line 2 ("ftp://files.example.com/"): an allowed URL must be a full http(s) URL such as https://api.example.com/v1/',
    );
    expect(new URL(page.url()).pathname).toBe("/");
    expect(model.requests).toHaveLength(0);

    await page.getByTestId("perm-network-allow").fill("https://api.example.com/v1/");
    await expect.poll(() => page.getByTestId("perm-network-status").textContent()).toBe("Network: on, only under https://api.example.com/v1/");
    await page.getByTestId("create-mind").click();
    await page.waitForURL(/\/mind\/[0-9a-f-]{36}$/);
    const summary = page.getByTestId("permissions-summary");
    await expect(summary.textContent()).resolves.toBe(
      "Network: https://api.example.com/v1/ · Node: off · silence 60 s · wall 900 s · 100,000 commands · output 1 MiB · workspace 256 MiB · depth 2 · nested runs 8 steps",
    );
    await expect(summary.getAttribute("title")).resolves.toContain("the mind cannot change them");
  });

  it("shows the files the mind wrote, read-only while it runs", async () => {
    await page.locator('[data-testid="step"][data-step-type="shell-output"]').first().waitFor({ timeout: 30_000 });
    await expect(page.getByTestId("tab-stream").getAttribute("aria-selected")).resolves.toBe("true");
    await page.getByTestId("tab-files").click();
    await expect.poll(() => page.getByTestId("tab-files").getAttribute("aria-selected")).toBe("true");
    await expect(page.getByTestId("tab-stream").getAttribute("aria-selected")).resolves.toBe("false");
    await page.getByTestId("files-view").waitFor();
    // /workspace starts open: its directories first, then its files.
    const paths = await page.getByTestId("files-tree").getByTestId("file-item").evaluateAll((els) => els.map((e) => e.getAttribute("data-path")));
    // self/ holds the mind's own texts, written at its first start.
    expect(paths).toEqual(["/tmp", "/workspace", "/workspace/docs", "/workspace/self", "/workspace/notes.md"]);
    await expect.poll(() => item("/workspace").getAttribute("aria-expanded")).toBe("true");
    await expect.poll(() => item("/workspace/docs").getAttribute("aria-expanded")).toBe("false");

    await item("/workspace/notes.md").click();
    await expect.poll(() => viewerText().textContent()).toBe("first note from the mind\n");
    await expect.poll(() => item("/workspace/notes.md").getAttribute("aria-selected")).toBe("true");
    await expect(page.getByTestId("file-readonly").textContent()).resolves.toBe("read-only while the mind runs — Stop it to edit");
    await expect(page.getByTestId("file-edit").count()).resolves.toBe(0);
  });

  it("moves through the tree with the keyboard, and shows markup as text", async () => {
    await item("/workspace/notes.md").focus();
    await page.keyboard.press("ArrowUp");
    await expect.poll(focusedPath).toBe("/workspace/self");
    await page.keyboard.press("ArrowUp");
    await expect.poll(focusedPath).toBe("/workspace/docs");
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => item("/workspace/docs").getAttribute("aria-expanded")).toBe("true");
    await page.keyboard.press("ArrowRight");
    await expect.poll(focusedPath).toBe("/workspace/docs/page.html");
    await page.keyboard.press("Enter");
    await expect.poll(() => viewerText().textContent()).toBe('a <b>bold</b> & "quoted"\n');
    await expect(page.getByTestId("file-viewer").locator("b").count()).resolves.toBe(0);
    // Left goes to the parent, and closes it.
    await page.keyboard.press("ArrowLeft");
    await expect.poll(focusedPath).toBe("/workspace/docs");
    await page.keyboard.press("ArrowLeft");
    await expect.poll(() => item("/workspace/docs").getAttribute("aria-expanded")).toBe("false");
    await expect.poll(() => item("/workspace/docs/page.html").count()).toBe(0);
  });

  it("on a short window the files take the height left above the message box, never more", async () => {
    const size = page.viewportSize();
    await page.setViewportSize({ width: 1024, height: 480 });
    try {
      await page.getByTestId("tab-files").click();
      const files = await page.getByTestId("files-view").boundingBox();
      const box = await page.getByTestId("message-input").boundingBox();
      expect(files && box).toBeTruthy();
      // Its bottom edge is above the message box's top: nothing of it is under the footer.
      expect(files!.y + files!.height).toBeLessThanOrEqual(box!.y);
    } finally {
      if (size) await page.setViewportSize(size);
    }
  });

  it("once stopped, a file is edited and saved; the mind reads the edit after Start", async () => {
    await page.getByTestId("mind-stop").click();
    await page.getByTestId("mind-status").filter({ hasText: "stopped" }).waitFor({ timeout: 15_000 });
    await item("/workspace/notes.md").click();
    await page.getByTestId("file-edit").click();
    await page.getByTestId("file-editor").fill("edited by the human\n");
    await page.getByTestId("file-save").click();
    await page.getByTestId("file-editor").waitFor({ state: "detached" });
    await expect.poll(() => viewerText().textContent()).toBe("edited by the human\n");
    await expect(page.getByTestId("file-error").count()).resolves.toBe(0);

    // The next wake reads the file: the worker loads the workspace when it starts.
    model.enqueue({ text: "What did I write?\n\n```bash\ncat notes.md\nFINAL=read\n```" });
    await page.getByTestId("mind-start").click();
    await page.getByTestId("file-readonly").waitFor({ timeout: 10_000 });
    await expect(page.getByTestId("file-edit").count()).resolves.toBe(0);
    // Back on the stream, which kept following while Files was shown.
    await page.getByTestId("tab-stream").click();
    await page.locator('[data-testid="step"][data-step-type="shell-output"]', { hasText: "edited by the human" }).first().waitFor({ timeout: 60_000 });
  });

  it("changes permissions only through Settings: refused when invalid, else saved and shown", async () => {
    const summary = page.getByTestId("permissions-summary");
    const before = await summary.textContent();
    await page.getByTestId("mind-settings").click();
    const settings = page.getByTestId("settings-panel");
    await expect(settings.getByTestId("perm-network-allow").inputValue()).resolves.toBe("https://api.example.com/v1/");
    await settings.getByTestId("perm-limits").locator("summary").click();
    await settings.getByTestId("perm-silence_s").fill("0");
    await settings.getByTestId("settings-save").click();
    await expect.poll(() => settings.getByTestId("settings-errors").textContent()).toBe("Stop a block after this long with no output: more than 0 s");
    expect(await summary.textContent()).toBe(before);

    await settings.getByTestId("perm-silence_s").fill("30");
    await settings.getByTestId("perm-recursion_depth").fill("0");
    // Switching the unit converts the number: 1 MiB is 1024 KiB.
    await settings.getByTestId("perm-max_output_bytes-unit").selectOption("KiB");
    await expect(settings.getByTestId("perm-max_output_bytes").inputValue()).resolves.toBe("1024");
    await settings.getByTestId("perm-max_output_bytes").fill("512");
    await settings.getByTestId("perm-webcontainer").check();
    await settings.getByTestId("perm-network-allow").fill("");
    await settings.getByTestId("settings-save").click();
    await expect
      .poll(() => summary.textContent())
      .toBe("Network: off · Node: on when the browser allows it · silence 30 s · wall 900 s · 100,000 commands · output 512 KiB · workspace 256 MiB · depth 0 · nested runs 8 steps");
  });
});
