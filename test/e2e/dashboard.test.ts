// The mind's dashboard, in Debian's Chromium against the scripted model
// server (a fake at the model's HTTP boundary): a mind at a known price idles
// through a few fast wakes and gets a message; the Timeline tab shows its
// wakes with their causes, its runs, the messages and the idle stretches, and
// a mark opens its step in the stream; the Usage tab's table agrees with the
// spend line, and its forecast prices the idle wakes at the pacing cap; arrow
// keys reach both tabs.
import { describe, expect, inject, it } from "vitest";
import { browserAndModelForFile } from "./browser";
import { createMind, sendMessage, setPacing, stopMind, waitForStatus, RUNNING } from "./mind-page";

const baseUrl = inject("baseUrl");
// Every inner-life call: 1000 tokens in, 50 out, and the run idles.
const IDLE = { text: "Nothing needs doing.\n\n```bash\nFINAL=idle\n```", usage: { prompt_tokens: 1000, completion_tokens: 50 } };
const env = browserAndModelForFile({ responder: () => IDLE });

describe("the dashboard", () => {
  it("Timeline shows wakes and their causes, runs, messages and idle stretches; Usage agrees with the spend line and forecasts the cap", async () => {
    const context = await env.browser.newContext();
    try {
      const page = await context.newPage();
      env.model.enqueueReply({ text: "Hello Tess, I got your message.", usage: { prompt_tokens: 400, completion_tokens: 20 } });
      // USD 1 per million input tokens, 2 per million output: an idle wake's one call costs (1000 × 1 + 50 × 2) / 1e6 = 0.0011.
      await createMind(page, baseUrl, { name: "Dash", modelUrl: env.model.url, price: { input: 1, output: 2 }, caps: { hour: 50, day: 500 } });
      await waitForStatus(page, RUNNING);
      // Fast pacing: a pause of 1 s, then 2 s (the cap), one empty wake per level.
      await setPacing(page, { base_s: 1, cap_s: 2, ticks_per_level: 1 });
      await page.getByTestId("sender-name").fill("Tess");
      await expect.poll(() => page.getByTestId("sender-name").inputValue()).toBe("Tess");
      await sendMessage(page, "Are you there?");
      await page.locator('[data-testid="step"][data-step-type="message"]', { hasText: "I got your message" }).waitFor({ timeout: 30_000 });
      // A few idle wakes after the message.
      const wakes = () => page.locator('[data-testid="step"][data-step-type="wake"]').count();
      const before = await wakes();
      await expect.poll(wakes, { timeout: 30_000 }).toBeGreaterThanOrEqual(before + 3);
      await stopMind(page);

      // Arrow keys from the stream reach Timeline (Stream → Chat → Timeline).
      await page.getByTestId("tab-stream").focus();
      for (let i = 0; i < 2; i++) await page.keyboard.press("ArrowRight");
      await expect(page.getByTestId("tab-timeline").getAttribute("aria-selected")).resolves.toBe("true");
      await expect(page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).resolves.toBe("tab-timeline");
      const timeline = page.getByTestId("timeline");
      await timeline.waitFor();
      const lane = (name: string) => timeline.locator(`[data-testid="timeline-lane"][data-lane="${name}"] [data-testid="timeline-mark"]`);
      const kinds = (name: string) => lane(name).evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")));
      await expect.poll(() => lane("wakes").count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
      const wakeKinds = await kinds("wakes");
      // The start, the message (the inner life's and the responder's), and scheduled wakes.
      expect(wakeKinds[0]).toBe("start");
      expect(wakeKinds.filter((k) => k === "message").length).toBeGreaterThanOrEqual(1);
      expect(wakeKinds.filter((k) => k === "scheduled").length).toBeGreaterThanOrEqual(3);
      const titles = await lane("wakes").evaluateAll((els) => els.map((e) => e.getAttribute("title") ?? ""));
      expect(titles.some((t) => t.startsWith("The responder woke: a message from Tess"))).toBe(true);
      expect(titles.some((t) => /^Woke on schedule \(pacing level \d+, after \d+ s\)/.test(t))).toBe(true);
      // Every run idled (none is open: the mind is stopped).
      const runKinds = await kinds("runs");
      expect(runKinds.length).toBeGreaterThanOrEqual(4);
      expect(runKinds.every((k) => k === "idle" || k === "error")).toBe(true);
      expect(runKinds.filter((k) => k === "idle").length).toBeGreaterThanOrEqual(4);
      // Tess's message and the reply, each saying who sent it.
      const messages = await lane("messages").evaluateAll((els) => els.map((e) => e.getAttribute("title") ?? ""));
      expect(messages.filter((t) => t.startsWith("Message from Tess to Dash")).length).toBe(1);
      expect(messages.filter((t) => t.startsWith("Message from Dash to Tess")).length).toBe(1);
      // Idle stretches: the pauses of 1-2 s between runs and the wakes that ended them.
      expect(await lane("idle").count()).toBeGreaterThanOrEqual(2);
      expect(await lane("idle").first().getAttribute("title")).toMatch(/^Idle \d+ s \(\d\d:\d\d:\d\d–\d\d:\d\d:\d\d\): no run, no wake$/);

      // Each mark is focusable and says what it is; a click opens its step in the stream. Seconds apart, the
      // marks of a short life overlap in the last hour's axis: zoomed to all of it, they spread out.
      await page.getByTestId("timeline-zoom-all").click();
      await expect(page.getByTestId("timeline-zoom-all").getAttribute("aria-pressed")).resolves.toBe("true");
      await expect.poll(() => lane("wakes").count()).toBe(wakeKinds.length);
      const wake = lane("wakes").last();
      await wake.focus();
      await expect(page.getByTestId("timeline-detail").textContent()).resolves.toBe(await wake.getAttribute("title"));
      const stepId = (await wake.getAttribute("data-step-id")) ?? "";
      await wake.click();
      await expect(page.getByTestId("tab-stream").getAttribute("aria-selected")).resolves.toBe("true");
      await page.waitForURL((u) => u.searchParams.get("step") === stepId);
      await page.locator(`[data-testid="step"][data-step-id="${stepId}"][data-selected]`).waitFor({ timeout: 10_000 });

      // Usage: the table's current hour and day are the spend line's figures (the page reads both every 2 s).
      // Stream → Chat → Timeline → Usage.
      await page.getByTestId("tab-stream").focus();
      for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
      await expect(page.getByTestId("tab-usage").getAttribute("aria-selected")).resolves.toBe("true");
      const view = page.getByTestId("usage-view");
      await view.waitFor();
      const table = page.getByTestId("usage-table");
      const newest = (bucket: string) => table.locator(`[data-testid="usage-row"][data-bucket="${bucket}"] [data-testid="usage-usd"]`).first().textContent();
      const spendHour = () => page.getByTestId("spend-hour").textContent();
      await expect.poll(spendHour, { timeout: 10_000 }).toMatch(/^\$0\.0\d*[1-9]/);
      // Both sides are read on each try: the mind keeps spending (an idle wake every 2 s), so a figure read once goes stale.
      const agree = async () => {
        const line = [await spendHour(), await page.getByTestId("spend-day").textContent()];
        const shown = [await newest("hour"), await newest("day")];
        return shown.join() === line.join() ? "the same" : `table ${shown.join(" ")}, spend line ${line.join(" ")}`;
      };
      await expect.poll(agree, { timeout: 10_000 }).toBe("the same");
      await expect(page.getByTestId("usage-burn").textContent()).resolves.toBe(await page.getByTestId("burn-rate").textContent());
      // Both charts of each span are drawn (uPlot's canvas), hidden from screen readers.
      for (const id of ["usage-chart-tokens-hour", "usage-chart-usd-hour", "usage-chart-tokens-day", "usage-chart-usd-day"]) {
        await page.locator(`[data-testid="${id}"][aria-hidden="true"] canvas`).waitFor({ timeout: 10_000 });
      }
      // The forecast: its own idle wakes, one call of 0.0011 USD each, 1800 wakes an hour at a 2 s cap.
      const forecast = page.getByTestId("usage-forecast");
      await expect.poll(() => forecast.getAttribute("data-basis"), { timeout: 10_000 }).toBe("history");
      await expect(page.getByTestId("forecast-hour").textContent()).resolves.toBe("$1.98");
      await expect(page.getByTestId("forecast-day").textContent()).resolves.toBe("$47.52");
      await expect(forecast.textContent()).resolves.toMatch(/one idle wake every 2 s, 1800 an hour.*from the average of its last \d+ idle wakes \(\$0\.0011 each\)/);
    } finally {
      await context.close();
    }
  });
});
