// A mind trying a change to its own texts before keeping it (issue 24, part
// 5), in Debian's Chromium against the real app and the scripted model server
// (a fake at the model's HTTP boundary). It forks a trial of its texts and
// edits it; `self try` re-runs its last wake with the trial's texts in a child
// trajectory, its first call sent the messages the wake's own was sent (the
// scripted server receives them with the trial's instructions), and prints the
// comparison; `self merge` makes the trial its own, a self-edit
// citing the try's child trajectory, shown in the stream and in Settings.
//
// The mind idles with a two-minute wait between wakes: a message wakes it, and
// the idle wake that follows at once (the message rests its pacing) is given
// a reply of its own.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserAndModelForFile } from "./browser";
import { thinkerRequests } from "../fixtures/model-server";
import { idlingMind, sendMessage, waitForLongIdle } from "./mind-page";

const baseUrl = inject("baseUrl");
const IDLE = { text: "Nothing needs doing.\n\n```bash\nFINAL=idle\n```" };
const bash = (code: string) => ({ text: `Working.\n\n\`\`\`bash\n${code}\n\`\`\`` });
const env = browserAndModelForFile({ responder: () => IDLE });
const CALM = "a calm persistent mind";

let hostContext: BrowserContext;
let host: Page;

beforeAll(async () => {
  ({ context: hostContext, page: host } = await idlingMind(env.browser, baseUrl, { name: "Tova", modelUrl: env.model.url, persona: "I keep a garden of notes.", sender: "Ada" }));
});

afterAll(async () => {
  await hostContext?.close();
});

async function idle(): Promise<number> {
  await waitForLongIdle(host);
  return env.model.requests.length;
}


const stepWith = (type: string, text: string) => host.locator(`[data-testid="step"][data-step-type="${type}"]`, { hasText: text });

describe("self fork, try and merge; a watcher", () => {
  it("the try re-runs a wake with the trial's texts and prints the comparison; the merge's self-edit cites the try's child trajectory", async () => {
    await idle();
    env.model.enqueue(bash(`self fork calm && sed -i 's/a persistent mind/${CALM}/' /workspace/trials/calm/instructions.md /workspace/trials/calm/first-look.md && self diff calm\nFINAL="act: forked"`), IDLE);
    await sendMessage(host, "Could you try being calmer?");
    await stepWith("shell-output", `+You are {{name}}, ${CALM}.`).first().waitFor({ timeout: 30_000 });
    const before = await idle();
    // The mind's run, the try's one re-run wake (its reply), the mind's next call (the merge), and the idle wake after it.
    env.model.enqueue(bash("self try calm --last 1"), bash('echo calmly\nFINAL="think: calm"'), bash('self merge calm\nFINAL="act: merged"'), IDLE);
    await sendMessage(host, "Try it on your last wake, and keep it if it goes well.");
    const report = stepWith("shell-output", "self try calm: 1 wake re-run with the trial's texts in trajectory");
    await report.first().waitFor({ timeout: 30_000 });
    const text = (await report.first().textContent()) ?? "";
    const child = /in trajectory ([0-9a-f]{8})/.exec(text)?.[1] ?? "";
    expect(child).toMatch(/^[0-9a-f]{8}$/);
    expect(text).toMatch(/real\s+/);
    expect(text).toMatch(/trial\s+echo calmly\s+FINAL=think: calm/);
    expect(text).toMatch(/total\s+real\s+\d+\/1 set FINAL/);
    // The try was said before it spent anything, and its call carried the trial's texts; the mind's own calls did not.
    await stepWith("observation", "Trying trial calm on my last wake").first().waitFor({ timeout: 30_000 });
    const calls = thinkerRequests(env.model.requests, before).map((r) => r.messages[0]?.content ?? "");
    expect(calls.map((c) => c.includes(CALM)).slice(0, 3)).toEqual([false, true, false]);
    // The re-run's first call was sent the messages the tried wake's first call was sent (its record, rebuilt whole).
    expect(text).toContain("its first call's recorded context");

    // The merge: a self-edit by the mind, merging the trial, citing the try's trajectory; in the stream and in Settings.
    const merged = stepWith("self-edit", `merging trial calm (tried in ${child})`);
    await merged.first().waitFor({ timeout: 30_000 });
    await host.getByTestId("mind-settings").click();
    await host.getByTestId("self-history").waitFor();
    // Two texts merged (the trial changed both), each its own self-edit; the newest two in the history.
    const items = host.getByTestId("self-history").getByTestId("self-history-item");
    await expect.poll(async () => (await items.evaluateAll((els) => els.slice(0, 2).map((e) => [e.getAttribute("data-path"), e.getAttribute("data-by")])))).toEqual([
      ["self/first-look.md", "merge"],
      ["self/instructions.md", "merge"],
    ]);
    await expect(items.nth(1).locator("p").first().textContent()).resolves.toBe(`I changed self/instructions.md (+1 −1), merging trial calm (tried in ${child}).`);
    await expect.poll(() => host.getByTestId("self-text-instructions").inputValue()).toContain(`You are {{name}}, ${CALM}.`);
    await host.getByTestId("mind-settings").click();
  });

  it("a watcher the mind adds prints for each thought, and what it prints is in the stream", async () => {
    await idle();
    env.model.enqueue(bash(`watch add hello --on thought --run 'echo "heard: $(jq -r .content)"'\nFINAL="act: watching"`), { text: "The garden needs water." }, IDLE);
    await sendMessage(host, "Could you keep an ear on your own thoughts?");
    // The watcher is recorded as the mind's own change, then runs after the thought of the next wake.
    await stepWith("self-edit", "self/watchers/hello.sh").first().waitFor({ timeout: 30_000 });
    await stepWith("observation", "heard: The garden needs water.").first().waitFor({ timeout: 30_000 });
  });
});
