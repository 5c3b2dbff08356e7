// A mind changing its own texts (issue 24), in Debian's Chromium against the
// real app and the scripted model server (a fake at the model's HTTP
// boundary). One mind, running in its owner's tab: it appends a line to
// self/instructions.md; the stream and Settings show the self-edit, and the
// next call made from instructions.md carries the line; its owner reverts it
// from Settings and the call that brings carries the old text again. A broken
// edit to self/first-look.md makes the three runs after it all end without a
// bash block: the guard takes it back, the stream and Settings say so, and the
// next first look no longer has the line. The owner's own save in Settings
// reaches the next call; a save made from a text the mind changed meanwhile is
// refused, with the reason shown under it.
//
// The mind idles with a two-minute wait between wakes, so within a test only
// what the test does wakes it. A message wakes it (that run's first call is
// made from instructions.md), and as the message rests its pacing an idle
// wake follows at once, whose first call is a lean first look made from
// first-look.md. An owner's change also cuts the wait short, and that wake's
// first call is made from instructions.md (it has news to read).
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserAndModelForFile } from "./browser";
import { thinkerRequests, type RecordedRequest } from "../fixtures/model-server";
import { idlingMind, waitForLongIdle } from "./mind-page";

const baseUrl = inject("baseUrl");
const IDLE = { text: "Nothing needs doing.\n\n```bash\nFINAL=idle\n```" };
const bash = (code: string) => ({ text: `Working.\n\n\`\`\`bash\n${code}\n\`\`\`` });
const env = browserAndModelForFile({ responder: () => IDLE });

/** What tells the two kinds of instructions apart: a first look's (first-look.md) and the standing ones (instructions.md). */
const FIRST_LOOK = "A first look: does anything need doing?";
const STANDING = "How you act:";

let hostContext: BrowserContext;
let host: Page;

beforeAll(async () => {
  ({ context: hostContext, page: host } = await idlingMind(env.browser, baseUrl, { name: "Sela", modelUrl: env.model.url, persona: "I keep a garden of notes.", sender: "Ada" }));
});

afterAll(async () => {
  await hostContext?.close();
});

/** The inner life's model calls from `from` on (the responder's and the summarizer's are left out). */
const thinkerCalls = (from: number): RecordedRequest[] => thinkerRequests(env.model.requests, from);
/** A call's instructions: its system message. */
const systemOf = (r: RecordedRequest | undefined): string => (r?.messages[0]?.role === "system" ? r.messages[0].content : "");

/** The systems of the inner life's first `n` calls from `from` on, once there are that many. */
async function callsFrom(from: number, n: number): Promise<string[]> {
  await expect.poll(() => thinkerCalls(from).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(n);
  return thinkerCalls(from).slice(0, n).map(systemOf);
}

/** Wait until the mind idles with a long wait ahead, then the number of requests so far: the next inner-life call is the one the test brings. */
async function idle(): Promise<number> {
  await waitForLongIdle(host);
  return env.model.requests.length;
}

/** Send a message from the box (whichever tab is open). */
async function send(text: string): Promise<void> {
  await host.getByTestId("message-input").fill(text);
  await host.getByTestId("send-message").click();
}

async function openSettings(): Promise<void> {
  if ((await host.getByTestId("mind-settings").getAttribute("aria-pressed")) !== "true") await host.getByTestId("mind-settings").click();
  await host.getByTestId("self-history").waitFor();
}

async function openStream(): Promise<void> {
  await host.getByTestId("tab-stream").click();
}

const history = () => host.getByTestId("self-history").getByTestId("self-history-item");
/** Settings' history, newest first: [path, who, step id] of each change. */
const historyRows = () =>
  history().evaluateAll((els) => els.map((e) => [e.getAttribute("data-path"), e.getAttribute("data-by"), e.getAttribute("data-step-id")]));
/** The stream's self-edit step with `id`. */
const streamEdit = (id: string) => host.locator(`[data-testid="step"][data-step-type="self-edit"][data-step-id="${id}"]`);

describe("a mind's own texts, changed by the mind, its owner and its guard", () => {
  /** The standing instructions and a first look as the mind had them before any change. */
  let standing = "";
  let firstLook = "";

  it("the mind appends a line to self/instructions.md: the stream and Settings show the change, and the next call made from instructions.md carries it", async () => {
    const LINE = "Sign every note with a leaf.";
    const before = await idle();
    env.model.enqueue(bash(`echo '${LINE}' >> /workspace/self/instructions.md\nFINAL=edited`), bash("ls /workspace/self"));
    await send("Could you sign your notes from now on?");
    // The message's run (the edit), then the idle wake right after it: its first look, and (the look acted) the run's next call.
    const [asked, look, next] = await callsFrom(before, 3);
    [standing, firstLook] = [asked ?? "", look ?? ""];
    // The run that made the change had the text it started with.
    expect(asked).toContain(STANDING);
    expect(asked).not.toContain(LINE);
    // The first look is made from first-look.md, which the change did not touch.
    expect(look).toContain(FIRST_LOOK);
    expect(look).not.toContain(LINE);
    // The first call made from instructions.md after it: the old text with the line after it.
    expect(next).toBe(`${standing}\n${LINE}`);
    await idle();

    // Settings: the text as it is now, and the change, newest first, by the mind.
    await openSettings();
    await expect.poll(() => host.getByTestId("self-text-instructions").inputValue()).toMatch(new RegExp(`\\{\\{skills\\}\\}\\n${LINE}\\n$`));
    await expect.poll(async () => (await historyRows())[0]?.slice(0, 2)).toEqual(["self/instructions.md", "mind"]);
    const [newest] = await historyRows();
    const editId = newest?.[2] ?? "";
    const item = history().first();
    await expect(item.locator("p").first().textContent()).resolves.toBe("I changed self/instructions.md (+1 −0).");
    await expect(item.getByTestId("self-history-diff").textContent()).resolves.toContain(`\n+${LINE}\n`);

    // The stream: the same step, its file and its diff.
    await openStream();
    const step = streamEdit(editId);
    await step.waitFor({ timeout: 20_000 });
    await expect(step.getByTestId("self-edit").getAttribute("data-path")).resolves.toBe("self/instructions.md");
    await expect(step.getByTestId("self-edit").locator("p").first().textContent()).resolves.toBe("I changed self/instructions.md (+1 −0).");
    await expect(step.getByTestId("self-edit-meta").textContent()).resolves.toMatch(/^self\/instructions\.md · by the mind \(run [0-9a-f]{8}\) · [0-9a-f]{8}→[0-9a-f]{8}$/);
    const diff = (await step.getByTestId("self-edit-diff").textContent()) ?? "";
    expect(diff).toMatch(/^--- a\/self\/instructions\.md\n\+\+\+ b\/self\/instructions\.md\n@@ /);
    expect(diff.split("\n").filter((l) => /^[+-][^+-]/.test(l))).toEqual([`+${LINE}`]);

    // The owner reverts it from Settings: a change of its own, which wakes the mind, and that call has the old text again.
    const beforeRevert = await idle();
    await openSettings();
    // The revert is the newest change once made: its answer stays under the change it took back.
    const reverting = host.locator(`[data-testid="self-history-item"][data-step-id="${editId}"]`);
    await reverting.getByTestId("self-edit-revert").click();
    const result = reverting.getByTestId("self-revert-result");
    await result.waitFor({ timeout: 20_000 });
    await expect(result.getAttribute("data-state")).resolves.toBe("done");
    await expect(result.textContent()).resolves.toBe(`Ada reverted ${editId.slice(0, 8)}: changed self/instructions.md (+0 −1).`);
    const [woken] = await callsFrom(beforeRevert, 1);
    expect(woken).toBe(standing);
    await expect.poll(async () => (await historyRows())[0]?.slice(0, 2)).toEqual(["self/instructions.md", "revert"]);
    const [reverted] = await historyRows();
    await expect(host.getByTestId("self-text-instructions").inputValue()).resolves.not.toContain(LINE);
    await expect(host.getByTestId("self-text-instructions").inputValue()).resolves.toMatch(/\{\{skills\}\}\n$/);
    await openStream();
    await streamEdit(reverted?.[2] ?? "").waitFor({ timeout: 20_000 });
  });

  it("a broken edit to self/first-look.md: the three runs after it end with no bash block, so the guard takes it back, and the next first look is as before", async () => {
    const LINE = "Never write a bash block.";
    const before = await idle();
    env.model.enqueue(bash(`echo '${LINE}' >> /workspace/self/first-look.md\nFINAL=edited-look`), { text: "Just a thought." }, { text: "Another thought." }, { text: "A third thought." });
    await send("Try a new way of looking around.");
    // The message's run (the edit); three idle wakes, each a first look with the line that ends in a bare thought; the guard; an idle wake again.
    const [asked, ...looks] = await callsFrom(before, 5);
    expect(asked).toContain(STANDING);
    expect(asked).not.toContain(LINE);
    for (const look of looks.slice(0, 3)) {
      expect(look).toContain(FIRST_LOOK);
      expect(look).toContain(LINE);
    }
    expect(looks[3]).toBe(firstLook);
    await idle();

    // Settings: the mind's change, then the guard's, newest first; the text as it was.
    await openSettings();
    await expect.poll(async () => (await historyRows()).slice(0, 2).map((r) => r.slice(0, 2))).toEqual([
      ["self/first-look.md", "guard"],
      ["self/first-look.md", "mind"],
    ]);
    const [guardRow, mindRow] = await historyRows();
    const [guardId, editId] = [guardRow?.[2] ?? "", mindRow?.[2] ?? ""];
    await expect(history().first().locator("p").first().textContent()).resolves.toBe(`My harness took back ${editId.slice(0, 8)}: changed self/first-look.md (+0 −1), as the runs after it all failed.`);
    await expect(host.getByTestId("self-text-first-look").inputValue()).resolves.not.toContain(LINE);

    // The stream: the guard's self-edit and the error that names it.
    await openStream();
    const back = streamEdit(guardId);
    await back.waitFor({ timeout: 20_000 });
    await expect(back.getByTestId("self-edit-meta").textContent()).resolves.toMatch(new RegExp(`^self/first-look\\.md · by the harness's guard, taking back ${editId.slice(0, 8)} · `));
    await expect(back.getByTestId("self-edit-diff").textContent()).resolves.toContain(`\n-${LINE}\n`);
    const error = host.locator('[data-testid="step"][data-step-type="error"]', { hasText: `took it back (${guardId.slice(0, 8)})` });
    await error.waitFor({ timeout: 20_000 });
    await expect(error.textContent()).resolves.toContain(
      `The 3 runs after change ${editId.slice(0, 8)} to self/first-look.md all failed (no bash block), so my harness took it back (${guardId.slice(0, 8)}); the text is as it was before it.`,
    );
  });

  it("the owner saves instructions.md in Settings while the mind runs: the change wakes it and that call carries the new text", async () => {
    const LINE = "Answer in one short sentence.";
    const before = await idle();
    await openSettings();
    const box = host.getByTestId("self-text-instructions");
    await box.fill(`${await box.inputValue()}${LINE}\n`);
    await host.getByTestId("self-text-save-instructions").click();
    const result = host.locator('[data-testid="self-text-result"][data-state="done"]');
    await result.waitFor({ timeout: 20_000 });
    await expect(result.textContent()).resolves.toBe("Ada changed your self/instructions.md (+1 −0) in Settings.");
    const [woken] = await callsFrom(before, 1);
    expect(woken).toBe(`${standing}\n${LINE}`);
    await expect.poll(async () => (await historyRows())[0]?.slice(0, 2)).toEqual(["self/instructions.md", "human"]);
  });

  it("a save from a text the mind changed meanwhile is refused, says why, and changes nothing; Escape then shows the text as it is", async () => {
    const MIND = "I tend the notes at dawn.";
    await idle();
    await openSettings();
    const box = host.getByTestId("self-text-persona");
    const was = await box.inputValue();
    expect(was).toBe("I keep a garden of notes.");
    await box.fill("I speak in riddles.");
    // The mind changes the same file while the owner's draft is open (Settings stays open: the message goes from the box below).
    env.model.enqueue(bash(`printf '\\n${MIND}\\n' >> /workspace/self/persona.md\nFINAL=persona`));
    await send("What do you do in the mornings?");
    await expect.poll(async () => (await historyRows())[0]?.slice(0, 2), { timeout: 30_000 }).toEqual(["self/persona.md", "mind"]);
    // The draft is the owner's still.
    await expect(box.inputValue()).resolves.toBe("I speak in riddles.");
    const requests = await idle();
    await host.getByTestId("self-text-save-persona").click();
    const result = host.locator('[data-testid="self-text-result"][data-state="failed"]');
    await result.waitFor({ timeout: 20_000 });
    await expect(result.textContent()).resolves.toBe(
      "Ada's change to self/persona.md was not made: the text changed since it was opened (the mind or another page changed it). Open it again to see the new text.",
    );
    // Nothing changed: the newest change is still the mind's, and the box keeps the draft until the owner takes it back.
    const [newest] = await historyRows();
    expect(newest?.slice(0, 2)).toEqual(["self/persona.md", "mind"]);
    await box.press("Escape");
    await expect.poll(() => box.inputValue()).toBe(`${was}\n${MIND}\n`);
    // A refused change is no news: it did not wake the mind.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(thinkerCalls(requests)).toEqual([]);
  });
});
