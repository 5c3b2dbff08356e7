// The classroom, in Debian's Chromium: a mind that ran against the scripted
// model server (a fake at the model's HTTP boundary) is replayed from the
// classroom page, played at speed, paused, scrubbed and stepped with the keys,
// the stream and the timeline at the same step throughout; an imported
// Headlong archive is replayed from its page; the harness comparison draws
// three lanes with totals under a Simulation label; presentation mode is
// remembered.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { writeTarGz } from "../../lib/archive/write";
import { makeHeadlongTree } from "../fixtures/headlong-tree";
import { browserAndModelForFile } from "./browser";
import { createMind, sendMessage, setPacing, stopMind, waitForStatus, RUNNING } from "./mind-page";

const baseUrl = inject("baseUrl");
const IDLE = { text: "Nothing needs doing.\n\n```bash\nFINAL=idle\n```", usage: { prompt_tokens: 1000, completion_tokens: 50 } };
const env = browserAndModelForFile({ responder: () => IDLE });

const shown = async (page: Page) => Number(await page.getByTestId("replay-position").getAttribute("data-shown"));
const stepCount = (page: Page) => page.getByTestId("step-count").textContent();
const replayWakes = (page: Page) => page.locator('[data-testid="replay-timeline"] [data-testid="timeline-lane"][data-lane="wakes"] [data-testid="timeline-mark"]').count();

/** The stream shows exactly the steps up to the cursor, and the timeline's cursor line is at the cursor's step. */
async function expectTogether(page: Page, n: number) {
  await expect.poll(() => shown(page)).toBe(n);
  await expect.poll(() => stepCount(page), { timeout: 10_000 }).toBe(`${n} step${n === 1 ? "" : "s"}`);
  const position = (await page.getByTestId("replay-position").textContent()) ?? "";
  if (n === 0) {
    expect(position).toMatch(/^step 0 of \d+ · before the first step$/);
    return;
  }
  expect(position).toMatch(new RegExp(`^step ${n} of \\d+ · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC$`));
  const at = (await page.getByTestId("replay-timeline").getAttribute("data-cursor-at")) ?? "";
  // The cursor line and the position name the same instant (to the second the position shows).
  expect(`${at.slice(0, 10)} ${at.slice(11, 19)} UTC`).toBe(position.split(" · ")[1]);
  expect(await page.getByTestId("timeline-cursor").getAttribute("data-at")).toBe(at);
}

describe("replay", () => {
  it("replays a mind that ran: play at speed, pause, scrub and step; the stream and the timeline move together", async () => {
    const context = await env.browser.newContext();
    try {
      const page = await context.newPage();
      env.model.enqueueReply({ text: "Hello Tess, I got your message.", usage: { prompt_tokens: 400, completion_tokens: 20 } });
      await createMind(page, baseUrl, { name: "Rewind", modelUrl: env.model.url });
      const mindId = new URL(page.url()).pathname.split("/").pop() ?? "";
      await waitForStatus(page, RUNNING);
      await setPacing(page, { base_s: 1, cap_s: 2, ticks_per_level: 1 });
      await page.getByTestId("sender-name").fill("Tess");
      await expect.poll(() => page.getByTestId("sender-name").inputValue()).toBe("Tess");
      await sendMessage(page, "Are you there?");
      await page.locator('[data-testid="step"][data-step-type="message"]', { hasText: "I got your message" }).waitFor({ timeout: 30_000 });
      const wakes = () => page.locator('[data-testid="step"][data-step-type="wake"]').count();
      const before = await wakes();
      await expect.poll(wakes, { timeout: 30_000 }).toBeGreaterThanOrEqual(before + 3);
      await stopMind(page);
      // What the mind's own Timeline tab counts, to compare with the replay's at its end.
      await page.getByTestId("tab-timeline").click();
      await page.getByTestId("timeline-zoom-all").click();
      const wakeMarks = page.locator('[data-testid="timeline-lane"][data-lane="wakes"] [data-testid="timeline-mark"]');
      await expect.poll(() => wakeMarks.count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
      const allWakes = await wakeMarks.count();

      // From home to the classroom, and to the mind's replay.
      await page.goto(baseUrl);
      await page.getByTestId("classroom-link").click();
      await page.waitForURL(/\/classroom$/);
      await page.getByTestId("classroom-minds").getByRole("link", { name: /Rewind/ }).click();
      await page.waitForURL(new RegExp(`/replay/mind/${mindId}$`));
      await expectTogether(page, 1);
      const total = Number(/of (\d+)/.exec((await page.getByTestId("replay-position").textContent()) ?? "")?.[1]);
      expect(total).toBeGreaterThan(12);
      expect(await page.getByTestId("replay-scrubber").getAttribute("max")).toBe(String(total));

      // Play step by step (one step a beat, so it cannot reach the end before the pause): the cursor moves on by itself; pause stops it.
      await page.getByTestId("replay-speed").selectOption("step");
      await page.getByTestId("replay-play").click();
      await expect(page.getByTestId("replay-play").getAttribute("aria-pressed")).resolves.toBe("true");
      await expect.poll(() => shown(page), { timeout: 20_000 }).toBeGreaterThanOrEqual(4);
      await page.getByTestId("replay-play").click();
      await expect(page.getByTestId("replay-play").getAttribute("aria-pressed")).resolves.toBe("false");
      const paused = await shown(page);
      expect(paused).toBeLessThan(total);
      await page.waitForTimeout(1500);
      expect(await shown(page)).toBe(paused);
      await expectTogether(page, paused);
      const midWakes = await replayWakes(page);

      // At 1000× of real time it plays on to the last step and stops there by itself.
      await page.getByTestId("replay-speed").selectOption("1000");
      await page.getByTestId("replay-play").click();
      await expect.poll(() => shown(page), { timeout: 30_000 }).toBe(total);
      await expect.poll(() => page.getByTestId("replay-play").getAttribute("aria-pressed")).toBe("false");

      // The scrubber, by keyboard: End is the last step, and the timeline then has every wake the mind's Timeline had.
      const scrubber = page.getByTestId("replay-scrubber");
      await scrubber.focus();
      await page.keyboard.press("End");
      await expectTogether(page, total);
      await expect.poll(() => replayWakes(page)).toBe(allWakes);
      expect(midWakes).toBeLessThan(allWakes);
      // Back to the start (a new source for the stream), then three steps on.
      await page.keyboard.press("Home");
      await expectTogether(page, 0);
      for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
      await expectTogether(page, 3);

      // The page's keys, away from the controls: → steps on, ← back, + speeds up, Space plays and pauses.
      await page.getByRole("heading", { name: /Replay/ }).click();
      await page.keyboard.press("ArrowRight");
      await expectTogether(page, 4);
      await page.keyboard.press("ArrowLeft");
      await expectTogether(page, 3);
      await page.getByTestId("replay-speed").selectOption("step");
      await page.getByRole("heading", { name: /Replay/ }).click();
      await page.keyboard.press("+");
      await expect(page.getByTestId("replay-speed").inputValue()).resolves.toBe("1");
      await page.keyboard.press("Space");
      await expect(page.getByTestId("replay-play").getAttribute("aria-pressed")).resolves.toBe("true");
      await page.keyboard.press("Space");
      await expect(page.getByTestId("replay-play").getAttribute("aria-pressed")).resolves.toBe("false");

      // A mark on the replay's timeline moves the cursor to its step.
      const firstWake = page.locator('[data-testid="replay-timeline"] [data-testid="timeline-lane"][data-lane="wakes"] [data-testid="timeline-mark"]').first();
      await scrubber.focus();
      await page.keyboard.press("End");
      await expectTogether(page, total);
      const wakeId = (await firstWake.getAttribute("data-step-id")) ?? "";
      await firstWake.click();
      await expect.poll(() => page.getByTestId("replay-position").getAttribute("data-step-id")).toBe(wakeId);
      await expectTogether(page, await shown(page));
      expect(await shown(page)).toBeLessThan(total);
    } finally {
      await context.close();
    }
  });

  it("replays an imported Headlong archive from its page", async () => {
    const context = await env.browser.newContext();
    try {
      const page = await context.newPage();
      const tree = makeHeadlongTree({ steps: 120, seed: 11 });
      const dir = await mkdtemp(join(tmpdir(), "reverie-classroom-"));
      const path = join(dir, "monolith.tar.gz");
      const blob = await new Response(writeTarGz(tree.files.map((f) => ({ path: f.path, data: f.data })))).blob();
      await writeFile(path, new Uint8Array(await blob.arrayBuffer()));
      await page.goto(baseUrl);
      await page.getByTestId("import-file").setInputFiles(path);
      await page.waitForURL(/\/view\/[0-9a-f-]{36}/, { timeout: 60_000 });
      const archiveId = new URL(page.url()).pathname.split("/").pop() ?? "";
      await page.getByTestId("replay-link").click();
      await page.waitForURL(new RegExp(`/replay/view/${archiveId}$`));
      const total = tree.counts[tree.rootId] ?? 0;
      await expect.poll(() => page.getByTestId("replay-position").textContent(), { timeout: 15_000 }).toMatch(new RegExp(`^step 1 of ${total} · `));
      await expectTogether(page, 1);
      await page.getByTestId("replay-speed").selectOption("step");
      await page.getByTestId("replay-play").click();
      // Step by step: one step a beat, whatever the gaps in the archive.
      await expect.poll(() => shown(page), { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
      await page.getByTestId("replay-play").click();
      await expectTogether(page, await shown(page));
      await page.getByTestId("replay-scrubber").focus();
      await page.keyboard.press("End");
      await expectTogether(page, total);
      // Headlong's own wake markers are drawn on the replay's timeline.
      expect(await replayWakes(page)).toBeGreaterThan(0);
      // Presentation mode on the replay page: bigger type, the back link hidden.
      await page.getByTestId("presentation-toggle").click();
      await expect(page.getByTestId("presentation-toggle").getAttribute("aria-pressed")).resolves.toBe("true");
      await expect(page.evaluate(() => getComputedStyle(document.documentElement).fontSize)).resolves.toBe("22px");
      await expect(page.getByRole("link", { name: /the archive/ }).count()).resolves.toBe(0);
      await page.getByTestId("presentation-toggle").click();
      await expect(page.evaluate(() => getComputedStyle(document.documentElement).fontSize)).resolves.toBe("16px");
    } finally {
      await context.close();
    }
  });
});

describe("harnesses compared", () => {
  it("draws three lanes with totals under a Simulation label; a preset or an edit redraws them; presentation mode is remembered", async () => {
    const context = await env.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${baseUrl}/classroom`);
      await page.getByTestId("classroom-harnesses").click();
      await page.waitForURL(/\/classroom\/harnesses$/);
      const compare = page.getByTestId("harness-compare");
      await compare.waitFor();
      await expect(page.getByTestId("simulation-label").textContent()).resolves.toMatch(/^Simulation\. No model was called/);
      const lanes = compare.locator('[data-testid="harness-lane"]');
      await expect(lanes.evaluateAll((els) => els.map((e) => e.getAttribute("data-harness")))).resolves.toEqual(["reactive", "scheduled", "persistent"]);
      const wakesOf = async (h: string) => Number(await compare.locator(`[data-testid="harness-lane"][data-harness="${h}"]`).getAttribute("data-wakes"));
      const usdOf = async (h: string) => Number(await compare.locator(`[data-testid="harness-total"][data-harness="${h}"]`).getAttribute("data-usd"));
      // The school day: eight messages; the reactive harness wakes once for each.
      expect(await wakesOf("reactive")).toBe(8);
      expect(await compare.locator('[data-harness="reactive"] [data-testid="harness-wake"]').count()).toBe(8);
      expect(await wakesOf("scheduled")).toBeGreaterThan(8 + 90);
      expect(await wakesOf("persistent")).toBeGreaterThan(await wakesOf("scheduled"));
      expect(await usdOf("reactive")).toBeLessThan(await usdOf("scheduled"));
      expect(await usdOf("scheduled")).toBeLessThan(await usdOf("persistent"));
      await expect(compare.locator('[data-testid="harness-total"]').count()).resolves.toBe(3);
      await expect(compare.locator('[data-testid="harness-total"][data-harness="persistent"]').textContent()).resolves.toMatch(/^\d+ wakes · \d+ model calls · [\d,]+ tokens · \$[\d.]+ · reply after/);

      // Another preset: a quiet day of one message.
      await page.getByTestId("harness-day").selectOption("quiet");
      await expect.poll(() => wakesOf("reactive")).toBe(1);
      // A line that does not read: a clear error, and the last good day stays drawn.
      await page.getByTestId("harness-script").fill("10:00 Ada: hi\nlunchtime: hello");
      await expect(page.getByTestId("harness-script-error").textContent()).resolves.toMatch(/^Line 2: "lunchtime: hello" is not "HH:MM who: text"/);
      expect(await wakesOf("reactive")).toBe(1);
      await page.getByTestId("harness-script").fill("10:00 Ada: hi\n10:30 Ben: hello");
      await expect.poll(() => wakesOf("reactive")).toBe(2);
      // A dearer model costs more for the same wakes.
      const before = await usdOf("persistent");
      await page.getByTestId("harness-model").selectOption("anthropic/claude-opus-4-1");
      await expect.poll(() => usdOf("persistent")).toBeGreaterThan(before);

      // Presentation mode: bigger type, the editor hidden, remembered across a reload.
      await page.getByTestId("presentation-toggle").click();
      await expect(page.getByTestId("harness-script").count()).resolves.toBe(0);
      await page.reload();
      await page.getByTestId("harness-compare").waitFor();
      await expect.poll(() => page.getByTestId("presentation-toggle").getAttribute("aria-pressed")).toBe("true");
      await expect(page.evaluate(() => getComputedStyle(document.documentElement).fontSize)).resolves.toBe("22px");
      await expect(page.getByTestId("simulation-label").isVisible()).resolves.toBe(true);
      await page.getByTestId("presentation-toggle").click();
      await expect(page.getByTestId("harness-script").count()).resolves.toBe(1);
    } finally {
      await context.close();
    }
  });
});
