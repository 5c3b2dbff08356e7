// Model faults — HTTP 500, 429 with Retry-After, a stream cut mid-way,
// malformed JSON, a call that never answers — each become an error step in
// the stream, and the loop resumes. A failing reply call is a visible
// decision, and the mind keeps going. (The model timeout itself, 180 s in
// the app, is covered by test/unit/llm/model-timeout.test.ts.)
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { startModelServer, type ModelServer } from "../fixtures/model-server";
import { launchChromium } from "./browser";
import { CUT_TEXT, startCutStreamProxy, type CutStreamProxy } from "./cut-stream-proxy";
import { exportMainTrajectory } from "./export-reader";
import { createMind, rows, RUNNING, sendMessage, setPacing, startMind, stopMind, waitForRowAfter, waitForStatus, type Row } from "./mind-page";

const baseUrl = inject("baseUrl");
let browser: Browser;
let model: ModelServer;
let proxy: CutStreamProxy;
let context: BrowserContext | null = null;

beforeAll(async () => {
  browser = await launchChromium();
  model = await startModelServer();
  proxy = await startCutStreamProxy(model);
});

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await model?.close();
});

afterEach(async () => {
  // Each fault gets a fresh mind in a fresh profile; the last one must not eat the next one's script.
  await context?.close();
  context = null;
});

async function freshMind(name: string, modelUrl = model.url): Promise<Page> {
  context = await browser.newContext();
  const page = await context.newPage();
  await createMind(page, baseUrl, { name, modelUrl });
  return page;
}

const types = (rs: Row[]) => rs.map((r) => r.type);
/** The stream without the mind's first-start record of its own texts (five self-edits before its first wake). */
const streamRows = async (page: Page) => (await rows(page)).filter((r) => r.type !== "self-edit");
const row = (rs: Row[], id: string) => rs.find((r) => r.id === id) as Row;

/**
 * The stream of a mind whose first run failed: its opening, the failed run
 * ending in the error, a retry wake, and a run that goes on to run a block.
 */
const FAILED_THEN_RECOVERED = ["trajectory", "config", "wake", "shellm-run", "prompt", "error", "wake", "shellm-run", "prompt", "reasoning", "shell-output"];

/** After the first error: the retry wake, a run that works, and the status of a running mind. */
async function expectRecovery(page: Page, errorId: string): Promise<Row[]> {
  const output = await waitForRowAfter(page, { type: "shell-output", afterId: errorId, timeout: 60_000 });
  await waitForStatus(page, RUNNING);
  const rs = await streamRows(page);
  expect(types(rs).slice(0, FAILED_THEN_RECOVERED.length)).toEqual(FAILED_THEN_RECOVERED);
  const retry = rs[6] as Row;
  expect(retry.text).toContain("retry");
  expect(rs.findIndex((r) => r.id === output)).toBeGreaterThan(rs.findIndex((r) => r.id === errorId));
  expect(row(rs, output).text).toContain("tick ");
  return rs;
}

describe("model faults become error steps, and the loop resumes", () => {
  it("HTTP 500", async () => {
    model.enqueue({ status: 500, errorBody: "scripted outage" });
    const page = await freshMind("Fa");
    const errorId = await waitForRowAfter(page, { type: "error" });
    await page.getByTestId("mind-error").filter({ hasText: "HTTP 500" }).waitFor({ timeout: 10_000 });
    const rs = await expectRecovery(page, errorId);
    expect(row(rs, errorId).text).toContain(`HTTP 500 from ${model.url}/chat/completions: scripted outage`);
  });

  it("HTTP 429 with Retry-After: the error says how long, and the retry waits at least that long", async () => {
    // Pacing with a first pause of 1 s, so a 2 s wait can only come from Retry-After.
    const page = await freshMind("Fb");
    await waitForRowAfter(page, { type: "shell-output" });
    await stopMind(page);
    await setPacing(page, { base_s: 1, cap_s: 4 });
    model.enqueue({ status: 429, errorBody: "slow down", headers: { "Retry-After": "2" } });
    const before = (await rows(page)).at(-1)?.id;
    await startMind(page);
    const errorId = await waitForRowAfter(page, { type: "error", afterId: before, text: "429" });
    await waitForRowAfter(page, { type: "shell-output", afterId: errorId, timeout: 30_000 });
    await waitForStatus(page, RUNNING);
    const shown = row(await rows(page), errorId);
    expect(shown.text).toContain(`HTTP 429 from ${model.url}/chat/completions: slow down (the server asks to wait 2 s)`);

    await stopMind(page);
    const { steps } = await exportMainTrajectory(page);
    const at = steps.findIndex((s) => s.step_id === errorId);
    const error = steps[at];
    const retry = steps.slice(at + 1).find((s) => s.type === "wake");
    expect(error).toMatchObject({ type: "error", reason: "model" });
    expect(retry).toMatchObject({ type: "wake", reason: "retry", source: "monolith" });
    const waitedMs = Date.parse(retry?.ts ?? "") - Date.parse(error?.ts ?? "");
    console.log(`429 Retry-After 2: the retry wake came ${waitedMs} ms after the error step (delay_s ${(retry as { delay_s?: number }).delay_s}; the first pause is 1 s)`);
    expect(waitedMs).toBeGreaterThanOrEqual(2000);
    expect(waitedMs).toBeLessThan(4000);
    expect((retry as { delay_s: number }).delay_s).toBeGreaterThanOrEqual(2);
  });

  it("a stream cut mid-way", async () => {
    proxy.cutNext();
    const page = await freshMind("Fc", proxy.url);
    const errorId = await waitForRowAfter(page, { type: "error" });
    const rs = await expectRecovery(page, errorId);
    expect(proxy.cuts).toBe(1);
    const text = row(rs, errorId).text;
    console.log(`a cut stream reads: ${text}`);
    // What was received before the cut is not passed off as a reply.
    expect(rs.some((r) => r.type === "reasoning" && r.text.includes(CUT_TEXT[0] as string))).toBe(false);
    expect(rs.some((r) => r.type === "thought" && r.text.includes(CUT_TEXT[0] as string))).toBe(false);
    // An error naming the model's server, with the model reason. (Today's wording, "HTTP 200
    // from …: Failed to process successful response", does not say the reply broke off.)
    expect(text).toMatch(/model: .+/);
    expect(text).toContain(`${proxy.url}/chat/completions`);
    await page.getByTestId("mind-stop").click();
    await waitForStatus(page, "stopped");
    const { steps } = await exportMainTrajectory(page);
    expect(steps.find((s) => s.step_id === errorId)).toMatchObject({ type: "error", reason: "model" });
  });

  it("malformed JSON in the stream", async () => {
    model.enqueue({ malformed: true, text: "half a reply that never" });
    const page = await freshMind("Fd");
    const errorId = await waitForRowAfter(page, { type: "error" });
    const rs = await expectRecovery(page, errorId);
    const text = row(rs, errorId).text;
    console.log(`a malformed stream reads: ${text}`);
    expect(text).toContain("model: JSON parsing failed: Text: {not json.");
  });

  it("a call that never answers is ended by Stop, and Start goes on", async () => {
    model.enqueue({ hang: true });
    const calls = model.requests.length;
    const page = await freshMind("Fe");
    const promptId = await waitForRowAfter(page, { type: "prompt" });
    await expect.poll(() => model.requests.length, { timeout: 10_000 }).toBeGreaterThan(calls);
    // The model hangs: nothing more comes, the mind is thinking.
    await page.waitForTimeout(1500);
    expect(types(await rows(page)).slice(-1)).toEqual(["prompt"]);
    await expect(page.getByTestId("mind-status").textContent()).resolves.toMatch(/thinking/);
    const clicked = Date.now();
    await page.getByTestId("mind-stop").click();
    await waitForStatus(page, "stopped", 5_000);
    const tookMs = Date.now() - clicked;
    console.log(`a hanging model call: stopped ${tookMs} ms after Stop`);
    const stoppedId = await waitForRowAfter(page, { type: "error", afterId: promptId, text: "Stopped by its human", timeout: 5_000 });
    await startMind(page);
    const output = await waitForRowAfter(page, { type: "shell-output", afterId: stoppedId });
    expect(row(await rows(page), output).text).toContain("tick ");
    expect(types(await streamRows(page)).slice(0, 7)).toEqual(["trajectory", "config", "wake", "shellm-run", "prompt", "error", "wake"]);
  });
});

describe("a responder fault", () => {
  it("is a reply-failed decision in the stream, and the mind keeps going", async () => {
    model.enqueueReply({ status: 500, errorBody: "the responder's model is down" });
    const page = await freshMind("Ff");
    await waitForRowAfter(page, { type: "shell-output" });
    await sendMessage(page, "Are you there, Ff?");
    const failed = await waitForRowAfter(page, { type: "observation", text: "Could not answer you" });
    const rs = await rows(page);
    expect(row(rs, failed).text).toContain(`Could not answer you: HTTP 500 from ${model.url}/chat/completions: the responder's model is down`);
    expect(row(rs, failed).source).toBe("responder");
    // No reply was made up for it.
    expect(rs.filter((r) => r.type === "message").map((r) => r.text.replace(/^.*?(you|Ff) → /, "$1 → "))).toEqual(["you → Ff: Are you there, Ff?"]);
    // The inner life goes on, and the next message is answered.
    await waitForRowAfter(page, { type: "shell-output", afterId: failed });
    await waitForStatus(page, RUNNING);
    await sendMessage(page, "Second try, Ff.");
    await waitForRowAfter(page, { type: "message", text: "Hello you, I got your message." });

    await stopMind(page);
    const { steps } = await exportMainTrajectory(page);
    const decisions = steps.filter((s) => s.type === "observation" && "decision" in s).map((s) => (s as { decision?: string }).decision);
    expect(decisions).toEqual(["reply-failed", "replied"]);
  });
});
