// People curating a mind's memory, in Debian's Chromium against the real app,
// its sharing routes and the scripted model server (a fake at the model's HTTP
// boundary). One mind, running in its owner's tab: the owner adds a memory in
// the Memory tab, edits it, forgets one, sets a goal and marks it done; each
// change is made by the mind's worker, shown in the tab, and is a `curation`
// observation in the stream that the mind's next model call reads tagged
// [curation]. An operator edits a memory from the Memory pane of their invite
// page while the owner's tab runs the mind; a guest's page has no such pane
// and the route refuses it. A stopped mind's change is made at once.
//
// The mind idles with a two-minute wait between wakes, so nothing but the
// change itself can wake it within a test: "the next model call" is then
// exactly the call the change brought.
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserAndModelForFile } from "./browser";
import { thinkerRequests, type RecordedRequest } from "../fixtures/model-server";
import { idlingMind, invite, rows, startMind, stopMind, waitForLongIdle } from "./mind-page";

const baseUrl = inject("baseUrl");
const IDLE = { text: "Nothing needs doing.\n\n```bash\nFINAL=idle\n```" };
const env = browserAndModelForFile({ responder: () => IDLE });
const TODAY = new Date().toISOString().slice(0, 10);

let hostContext: BrowserContext;
let host: Page;

beforeAll(async () => {
  ({ context: hostContext, page: host } = await idlingMind(env.browser, baseUrl, { name: "Mnemo", modelUrl: env.model.url, sender: "Ada" }));
});

afterAll(async () => {
  await hostContext?.close();
});

/** The inner life's model calls from `from` on (the responder's and the summarizer's are left out). */
const thinkerCalls = (from: number): RecordedRequest[] => thinkerRequests(env.model.requests, from);

/** Wait until the mind idles with a long wait ahead, then the number of requests so far: the next inner-life call is the one a change brings. */
async function idle(page: Page): Promise<number> {
  await waitForLongIdle(page);
  return env.model.requests.length;
}

/** What the next inner-life call from `from` on was sent, in one string (waits for the call). */
async function nextCallSaw(from: number): Promise<string> {
  await expect.poll(() => thinkerCalls(from).length, { timeout: 30_000 }).toBeGreaterThan(0);
  return (thinkerCalls(from)[0]?.messages ?? []).map((m) => m.content).join("\n\n");
}

const memoryView = () => host.getByTestId("memory-view");
const memoryTexts = (scope: Locator) => scope.getByTestId("memory-text").allTextContents();
const item = (scope: Locator, id: string) => scope.locator(`[data-testid="memory-item"][data-memory-id="${id}"]`);

/** The status line after a change, once it says the change was made (its text includes `text`). */
async function made(scope: Locator, text: string, timeout = 30_000): Promise<string> {
  const line = scope.locator('[data-testid="curation-result"][data-state="done"]', { hasText: text });
  await line.waitFor({ timeout });
  return (await line.textContent()) ?? "";
}

/** The curation step whose text includes `text`, as the owner's Stream shows it (the Stream tab is opened, then `back`). */
async function curationRow(page: Page, text: string, back = "tab-memory") {
  await page.getByTestId("tab-stream").click();
  const step = page.locator('[data-testid="step"][data-step-type="observation"]', { hasText: text });
  await step.waitFor({ timeout: 20_000 });
  const id = await step.getAttribute("data-step-id");
  const row = (await rows(page)).find((r) => r.id === id);
  await page.getByTestId(back).click();
  return row;
}

describe("memory people can curate", () => {
  let keyId = "";

  it("the owner adds a memory to the running mind in the Memory tab: its worker makes it, and it is a step", async () => {
    await host.getByTestId("tab-memory").click();
    await memoryView().waitFor();
    await memoryView().getByTestId("memory-add-text").fill("The spare key is under the blue pot");
    await memoryView().getByTestId("memory-add-tags").fill("home, keys");
    await memoryView().getByTestId("memory-add").click();
    const said = await made(memoryView(), "added a memory");
    keyId = /added a memory, ([0-9a-f]{8}) /.exec(said)?.[1] ?? "";
    expect(said).toBe(`Done. The mind reads: “Ada (owner) added a memory, ${keyId} (tags: home, keys): The spare key is under the blue pot”`);
    const key = item(memoryView(), keyId);
    await expect(key.getByTestId("memory-text").textContent()).resolves.toBe("The spare key is under the blue pot");
    await expect(key.getByTestId("memory-tag").allTextContents()).resolves.toEqual(["home", "keys"]);
    await expect(key.getByTestId("memory-by").textContent()).resolves.toBe("added by Ada");
    // The boxes are cleared for the next one.
    await expect(memoryView().getByTestId("memory-add-text").inputValue()).resolves.toBe("");
    const row = await curationRow(host, `added a memory, ${keyId}`);
    expect(row).toMatchObject({ type: "observation", source: "curation" });
  });

  it("the owner edits it: the stream says what it said and what it says now, the tab shows the new text, and the mind's next call reads it tagged [curation]", async () => {
    const before = await idle(host);
    const key = item(memoryView(), keyId);
    await key.getByTestId("memory-edit").click();
    await expect(key.getByTestId("memory-edit-text").inputValue()).resolves.toBe("The spare key is under the blue pot");
    await expect(key.getByTestId("memory-edit-tags").inputValue()).resolves.toBe("home, keys");
    await key.getByTestId("memory-edit-text").fill("The spare key is with Tess next door");
    await key.getByTestId("memory-edit-tags").fill("home, keys, Tess");
    await key.getByTestId("memory-edit-save").click();
    const content = `Ada (owner) edited your memory ${keyId} (tags: home, keys, Tess). It said: The spare key is under the blue pot\nIt now says: The spare key is with Tess next door`;
    await made(memoryView(), `edited your memory ${keyId}`);

    // (b) The tab: the new text and tags, who edited it; still one memory.
    await expect(key.getByTestId("memory-text").textContent()).resolves.toBe("The spare key is with Tess next door");
    await expect(key.getByTestId("memory-tag").allTextContents()).resolves.toEqual(["home", "keys", "Tess"]);
    await expect(key.getByTestId("memory-edited").textContent()).resolves.toMatch(/^edited by Ada \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    await expect(memoryTexts(memoryView())).resolves.toEqual(["The spare key is with Tess next door"]);
    expect(await key.getByTestId("memory-edit-text").count()).toBe(0);

    // (a) The stream: one observation by curation, with the text before and after.
    const row = await curationRow(host, `edited your memory ${keyId}`);
    expect(row).toMatchObject({ type: "observation", source: "curation" });
    expect(row?.text).toContain("It said: The spare key is under the blue pot");
    expect(row?.text).toContain("It now says: The spare key is with Tess next door");

    // (c) The change woke the idle mind, and that call read it, tagged.
    expect(await nextCallSaw(before)).toContain(`[curation] ${content}`);
  });

  it("the owner forgets a memory and it is gone; a goal set in the tab is marked done", async () => {
    await memoryView().getByTestId("memory-add-text").fill("The meeting is on Tuesday");
    await memoryView().getByTestId("memory-add").click();
    const said = await made(memoryView(), "The meeting is on Tuesday");
    const meetingId = /added a memory, ([0-9a-f]{8}):/.exec(said)?.[1] ?? "";
    await expect.poll(() => memoryTexts(memoryView())).toEqual(["The meeting is on Tuesday", "The spare key is with Tess next door"]);

    await item(memoryView(), meetingId).getByTestId("memory-forget").click();
    await made(memoryView(), `made you forget your memory ${meetingId}`);
    await expect.poll(() => memoryTexts(memoryView())).toEqual(["The spare key is with Tess next door"]);
    expect(await item(memoryView(), meetingId).count()).toBe(0);
    const forgot = await curationRow(host, `made you forget your memory ${meetingId}, which said: The meeting is on Tuesday`);
    expect(forgot).toMatchObject({ type: "observation", source: "curation" });

    await memoryView().getByTestId("goal-add-text").fill("Water the tomatoes");
    await memoryView().getByTestId("goal-add").click();
    const set = await made(memoryView(), "set you a goal");
    const goalId = /set you a goal, ([0-9a-f]{4}):/.exec(set)?.[1] ?? "";
    expect(set).toBe(`Done. The mind reads: “Ada (owner) set you a goal, ${goalId}: Water the tomatoes”`);
    const goal = memoryView().locator(`[data-testid="goal-item"][data-goal-id="${goalId}"]`);
    await expect(goal.getAttribute("data-done")).resolves.toBe("false");
    await expect(goal.getByTestId("goal-text").textContent()).resolves.toBe("Water the tomatoes");

    await goal.getByTestId("goal-done").click();
    await made(memoryView(), `marked your goal ${goalId} done`);
    await expect.poll(() => goal.getAttribute("data-done")).toBe("true");
    await expect(goal.getByTestId("goal-text").textContent()).resolves.toBe(`Water the tomatoes (done ${TODAY})`);
    expect(await goal.getByTestId("goal-done").count()).toBe(0);
    const done = await curationRow(host, `marked your goal ${goalId} done: Water the tomatoes`);
    expect(done).toMatchObject({ type: "observation", source: "curation" });
  });

  describe("through invites", () => {
    let operatorContext: BrowserContext;
    let guestContext: BrowserContext;
    let operator: Page;
    let guest: Page;
    let operatorUrl = "";
    let guestUrl = "";

    beforeAll(async () => {
      operatorContext = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
      guestContext = await env.browser.newContext();
      operator = await operatorContext.newPage();
      guest = await guestContext.newPage();
      operatorUrl = await invite(host, "operator");
      await host.getByTestId("share-link-item").filter({ hasText: "invite · operator" }).waitFor({ timeout: 15_000 });
      guestUrl = await invite(host, "guest", operatorUrl);
      await host.getByTestId("share-link-item").filter({ hasText: "invite · guest" }).waitFor({ timeout: 15_000 });
    });
    afterAll(async () => {
      await Promise.all([operatorContext?.close(), guestContext?.close()]);
    });

    it("an operator edits a memory from the Memory pane of their page while the owner's tab runs the mind: the owner's tab shows it, and it is a step the mind reads", async () => {
      await operator.goto(operatorUrl);
      await expect(operator.getByTestId("invite-may").getAttribute("data-role", { timeout: 30_000 })).resolves.toBe("operator");
      await operator.getByTestId("guest-name").fill("Cy");
      await operator.getByTestId("shared-tab-memory").click();
      const pane = operator.getByTestId("shared-memory");
      // The pane shows the workspace as it reached the server (the owner's tab syncs it).
      await expect
        .poll(
          async () => {
            await pane.getByTestId("shared-memory-refresh").click();
            return memoryTexts(pane);
          },
          { timeout: 30_000, interval: 1_000 },
        )
        .toEqual(["The spare key is with Tess next door"]);
      const goal = pane.getByTestId("goal-item");
      await expect(goal.getByTestId("goal-text").allTextContents()).resolves.toEqual([`Water the tomatoes (done ${TODAY})`]);

      const before = await idle(host);
      const key = item(pane, keyId);
      await key.getByTestId("memory-edit").click();
      await key.getByTestId("memory-edit-text").fill("The spare key is in the shed, second drawer");
      await key.getByTestId("memory-edit-save").click();
      const content = `Cy (operator) edited your memory ${keyId} (tags: home, keys, Tess). It said: The spare key is with Tess next door\nIt now says: The spare key is in the shed, second drawer`;
      await expect(made(pane, `edited your memory ${keyId}`, 40_000)).resolves.toBe(`Done. The mind reads: “${content}”`);
      await expect.poll(() => memoryTexts(pane), { timeout: 15_000 }).toEqual(["The spare key is in the shed, second drawer"]);

      // The owner's tab: the new text, who edited it, and the step.
      await expect.poll(() => memoryTexts(memoryView()), { timeout: 15_000 }).toEqual(["The spare key is in the shed, second drawer"]);
      await expect(item(memoryView(), keyId).getByTestId("memory-edited").textContent()).resolves.toMatch(/^edited by Cy /);
      const row = await curationRow(host, `Cy (operator) edited your memory ${keyId}`);
      expect(row).toMatchObject({ type: "observation", source: "curation" });
      expect(row?.text).toContain("It now says: The spare key is in the shed, second drawer");
      expect(await nextCallSaw(before)).toContain(`[curation] ${content}`);
      // The operator's page follows the whole stream, so it has the step too.
      await operator.getByTestId("shared-tab-stream").click();
      await operator.locator('[data-testid="step"][data-step-type="observation"]', { hasText: `Cy (operator) edited your memory ${keyId}` }).waitFor({ timeout: 20_000 });
    });

    it("a guest's page has no Memory pane, and the memory route refuses a guest's link with 403", async () => {
      await guest.goto(guestUrl);
      await expect(guest.getByTestId("invite-may").getAttribute("data-role", { timeout: 30_000 })).resolves.toBe("guest");
      expect(await guest.getByTestId("shared-tab-memory").count()).toBe(0);
      expect(await guest.getByTestId("shared-memory").count()).toBe(0);
      const token = new URL(guestUrl).pathname.split("/").pop();
      const refused = await guest.evaluate(async (t) => {
        const post = await fetch(`/api/share/${t}/memory`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ what: "memory", op: "add", text: "Guests may write here", from: "Gwen" }),
        });
        const get = await fetch(`/api/share/${t}/memory`);
        return { post: { status: post.status, body: (await post.json()) as unknown }, get: get.status };
      }, token);
      expect(refused).toMatchObject({ post: { status: 403, body: { error: { code: "forbidden" } } }, get: 403 });
      // Nothing reached the mind.
      await new Promise((r) => setTimeout(r, 2_000));
      expect((await rows(host)).filter((r) => r.text.includes("Guests may write here"))).toEqual([]);
      await expect(memoryTexts(memoryView())).resolves.toEqual(["The spare key is in the shed, second drawer"]);
    });
  });

  it("a stopped mind's change is made at once, and the mind reads it when it starts", async () => {
    await stopMind(host);
    const before = env.model.requests.length;
    await memoryView().getByTestId("memory-add-text").fill("Tess is away until Friday");
    await memoryView().getByTestId("memory-add-tags").fill("people");
    await memoryView().getByTestId("memory-add").click();
    const said = await made(memoryView(), "Tess is away until Friday", 5_000);
    const id = /added a memory, ([0-9a-f]{8}) /.exec(said)?.[1] ?? "";
    const content = `Ada (owner) added a memory, ${id} (tags: people): Tess is away until Friday`;
    expect(said).toBe(`Done. The mind reads: “${content}”`);
    expect(await memoryView().getByTestId("curation-queued").count()).toBe(0);
    await expect.poll(() => memoryTexts(memoryView())).toEqual(["Tess is away until Friday", "The spare key is in the shed, second drawer"]);
    const row = await curationRow(host, `added a memory, ${id}`);
    expect(row).toMatchObject({ type: "observation", source: "curation" });
    expect(thinkerCalls(before)).toEqual([]);

    await startMind(host);
    expect(await nextCallSaw(before)).toContain(`[curation] ${content}`);
  });
});
