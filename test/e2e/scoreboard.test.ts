// The scoreboard in the app (issue 23): `reverie eval --out DIR` plays a
// scenario against the scripted model server (a fake at the model's HTTP
// boundary; the mind, the provider code and the archive are real), a --vary
// run's first variant and a single run are imported from the home page like
// any archive, and their page's Scoreboard tab shows what results.json says:
// a probe-row per probe with its data-pass, every metric's figure, the
// variants side by side. An evidence link opens its step in the viewer;
// Replay works on the archive; axe finds nothing serious on the tab in either
// colour scheme.
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { main } from "../../cli/reverie";
import { readArchive } from "../../lib/archive/read";
import { parseEvalResults, type EvalResults } from "../../lib/eval/results";
import { METRICS } from "../../lib/eval/scoreboard";
import { startModelServer, type ModelServer } from "../fixtures/model-server";
import { SHORT_MEMORY } from "../unit/helpers/eval-example";
import { scan } from "./axe-scan";
import { launchChromium } from "./browser";

const baseUrl = inject("baseUrl");

const SCENARIO = {
  ...SHORT_MEMORY,
  duration_h: 3,
  events: [
    ...SHORT_MEMORY.events,
    // Never told, so answered without it: a probe that fails.
    { at_h: 1.5, from: "Bo", message: "What is my dog called?", probe: { id: "dog", kind: "recall", within_h: 0.1, expect: "rex" } },
    // Not answered, as asked: it passes by nothing happening, so it has no time of its own and sits where it was asked (asked_h).
    { at_h: 2, from: "Ada", message: "No need to answer this: the printer is fixed.", probe: { id: "quiet", kind: "no-reply", within_h: 0.25 } },
  ],
  probes: [{ id: "spend", kind: "budget", max_usd: 1 }],
};

let server: ModelServer;
let browser: Browser;
let page: Page;
let dir: string;
/** A --vary run's first variant's .tar.gz, its results.json as packed in it, and its root trajectory's line count; and a single run's. */
let archive: { tar: string; results: EvalResults; rootSteps: number };
let single: typeof archive;

/** Every file under `root`, as paths relative to it. */
async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(root.length + 1));
}

/** results.json and the root trajectory's lines, read from inside the .tar.gz (what the app imports). */
async function readTar(tar: string): Promise<{ results: EvalResults; rootSteps: number }> {
  let results: EvalResults | undefined;
  let rootSteps = 0;
  for await (const entry of readArchive(new Blob([await readFile(tar)]), { name: tar })) {
    const parts = entry.path.split("/");
    if (entry.path === "results.json") {
      const r = parseEvalResults(await entry.text());
      if (!r.ok) throw new Error(r.error);
      results = r.results;
    } else if (parts.length === 2 && parts[1] === "trajectory.jsonl") rootSteps = (await entry.text()).split("\n").filter(Boolean).length;
    else await entry.skip();
  }
  if (!results) throw new Error(`${tar} holds no results.json`);
  return { results, rootSteps };
}

/** `reverie eval SCENARIO --out DIR` and more arguments; the .tar.gz files it wrote, sorted. */
async function evalOut(scenario: string, name: string, more: string[]): Promise<string[]> {
  const out = join(dir, name);
  const err: string[] = [];
  const code = await main(["eval", scenario, "--base-url", server.url, "--model", "scripted", "--seed", "7", ...more, "--out", out], { out: () => undefined, err: (s) => void err.push(s) });
  if (code !== 0) throw new Error(`reverie eval exited ${code}: ${err.join("")}`);
  return (await filesUnder(out))
    .filter((f) => f.endsWith(".tar.gz"))
    .sort()
    .map((f) => join(out, f));
}

/** Import an archive from the home page; its page's path, once its trajectory shows. */
async function importArchive(tar: string): Promise<string> {
  await page.goto(baseUrl);
  await page.getByTestId("import-file").setInputFiles(tar);
  await page.waitForURL(/\/view\/[0-9a-f-]{36}/, { timeout: 60_000 });
  // Its trajectory is read (the panel may be hidden: an eval archive opens on its scoreboard).
  await page.locator('[data-testid="step"]').first().waitFor({ state: "attached" });
  return new URL(page.url()).pathname;
}

/** The Scoreboard tab opened: a probe-row per probe with its data-pass, every metric's figure as `r` has it. */
async function expectScoreboardOf(r: EvalResults): Promise<Locator> {
  await page.getByTestId("tab-scoreboard").click();
  const board = page.getByTestId("scoreboard");
  await board.waitFor();
  await expect(board.getByTestId("probe-row").evaluateAll((els) => els.map((e) => [e.getAttribute("data-probe-id"), e.getAttribute("data-pass")]))).resolves.toEqual(r.probes.map((p) => [p.id, String(p.pass)]));
  for (const { name } of METRICS) {
    const cell = board.getByTestId(`metric-${name}`);
    const value = r.metrics[name];
    expect(JSON.parse((await cell.getAttribute("data-value")) ?? "undefined"), name).toEqual(value);
    // A number is shown as it is, beside its words where they round or group it.
    if (typeof value === "number") expect(await cell.textContent(), name).toContain(String(value));
    else expect((await cell.textContent())?.trim(), name).not.toBe("");
  }
  return board;
}

beforeAll(async () => {
  server = await startModelServer({ responder: () => ({ text: "Nothing new.\n```bash\nFINAL=idle\n```" }) });
  // The responder thinker's calls: it remembers the cat, leaves the printer news unanswered, and notes the rest (a FAKE mind).
  server.setReplyResponder(({ messages }) => {
    const last = [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
    return { text: /cat called\?/.test(last) ? "Her cat is Miso." : /No need to answer/.test(last) ? "NO_REPLY" : "Noted." };
  });
  dir = await mkdtemp(join(tmpdir(), "reverie-scoreboard-"));
  const scenario = join(dir, "short.json");
  await writeFile(scenario, JSON.stringify(SCENARIO));
  const tars = await evalOut(scenario, "vary", ["--vary", "pacing.cap_s=600,900"]);
  expect(tars).toHaveLength(2);
  archive = { tar: tars[0]!, ...(await readTar(tars[0]!)) };
  const [one] = await evalOut(scenario, "single", []);
  single = { tar: one!, ...(await readTar(one!)) };
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("an eval archive's scoreboard", () => {
  let viewPath: string;

  it("what --out wrote: a variant's results with its probes, one failing, and both variants", () => {
    const r = archive.results;
    expect(r.probes.map((p) => [p.id, p.pass, p.at_h === null])).toEqual([
      ["cat", true, false],
      ["dog", false, false],
      ["quiet", true, true],
      ["spend", true, true],
    ]);
    expect(r.variants?.map((v) => v.label)).toEqual(["pacing.cap_s=600", "pacing.cap_s=900"]);
    expect(r.label).toBe("pacing.cap_s=600");
  });

  it("imports from the home page like any archive, its page opening on the Scoreboard tab, the trajectory beside it", async () => {
    viewPath = await importArchive(archive.tar);
    await expect.poll(() => page.getByTestId("tab-scoreboard").getAttribute("aria-selected")).toBe("true");
    await expect(page.getByTestId("scoreboard").isVisible()).resolves.toBe(true);
    await page.getByTestId("tab-trajectory").click();
    await page.locator('[data-testid="step"]').first().waitFor();
    await expect(page.getByTestId("scoreboard").isHidden()).resolves.toBe(true);
  });

  it("the Scoreboard tab: a probe-row per probe with its data-pass, and every figure as results.json has it", async () => {
    const r = archive.results;
    const board = await expectScoreboardOf(r);
    expect(new URL(page.url()).searchParams.get("tab")).toBe("scoreboard");
    await expect(board.getByTestId("score-scenario").textContent()).resolves.toBe(r.scenario);
    await expect(board.getByTestId("score-model").textContent()).resolves.toBe(r.model);
    await expect(board.getByTestId("score-seed").textContent()).resolves.toBe("7");
    await expect(board.getByTestId("score-hours").getAttribute("data-value")).resolves.toBe(String(r.simulated_h));
    // The variants side by side, this run's column marked.
    await expect(board.getByTestId("variant-col").evaluateAll((els) => els.map((e) => [e.getAttribute("data-label"), e.getAttribute("data-current")]))).resolves.toEqual([
      ["pacing.cap_s=600", "true"],
      ["pacing.cap_s=900", "false"],
    ]);
    const passed = board.locator('[data-testid="variant-row"][data-row="passed"] td');
    await expect(passed.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-value"))))).resolves.toEqual(r.variants!.map((v) => v.probes.filter((p) => p.pass).length));
    // The timeline: the probes decided at a time as marks there; the one decided by nothing happening
    // where it was asked (its message's time, read from the archive); the budget, with no time at all, beside it.
    const marks = () => board.getByTestId("probe-mark").evaluateAll((els) => els.map((e) => [e.getAttribute("data-probe-id"), e.getAttribute("data-decided"), Number(e.getAttribute("data-at-h"))]));
    const at = (id: string) => r.probes.find((p) => p.id === id)?.at_h;
    await expect.poll(marks).toEqual([
      ["cat", "true", at("cat")],
      ["dog", "true", at("dog")],
      ["quiet", "false", 2],
    ]);
    await expect(board.getByTestId("probes-untimed").textContent()).resolves.toContain("spend passed");
    await board.getByTestId("tokens-by-hour").locator("canvas").first().waitFor();
    await expect(board.getByTestId("tokens-summary").getAttribute("data-total")).resolves.toBe(String(r.tokens_by_hour.reduce((a, n) => a + n, 0)));
  });

  it("moves between the tabs with the arrow keys", async () => {
    await page.getByTestId("tab-scoreboard").focus();
    await page.keyboard.press("ArrowLeft");
    await expect.poll(() => page.getByTestId("tab-trajectory").getAttribute("aria-selected")).toBe("true");
    await expect(page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).resolves.toBe("tab-trajectory");
    await page.keyboard.press("ArrowRight");
    await page.getByTestId("scoreboard").waitFor();
  });

  it("an evidence link opens its step, selected, in the Trajectory tab", async () => {
    const cat = archive.results.probes.find((p) => p.id === "cat")!;
    const answer = cat.evidence.at(-1)!;
    await page.locator(`[data-testid="probe-row"][data-probe-id="cat"] [data-testid="probe-evidence"][data-step-id="${answer}"]`).click();
    await page.waitForURL((u) => u.searchParams.get("step") === answer && !u.searchParams.has("tab"));
    const step = page.locator(`[data-testid="step"][data-step-id="${answer}"]`);
    await step.waitFor();
    await expect(step.getAttribute("data-selected")).resolves.toBe("true");
    await expect(step.textContent()).resolves.toContain("Miso");
    await expect(page.getByTestId("tab-trajectory").getAttribute("aria-selected")).resolves.toBe("true");
    await expect(page.getByTestId("scoreboard").isHidden()).resolves.toBe(true);
  });

  it("reads in the light and the dark scheme: axe finds nothing serious on the Scoreboard tab", async () => {
    const found: string[] = [];
    // Tall enough that the screenshot holds the whole tab (it scrolls inside the page).
    const viewport = page.viewportSize();
    await page.setViewportSize({ width: 1280, height: 2200 });
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto(`${baseUrl}${viewPath}?tab=scoreboard`);
      const board = page.getByTestId("scoreboard");
      await board.getByTestId("tokens-by-hour").locator("canvas").first().waitFor();
      await board.locator('[data-testid="probe-mark"][data-decided="false"]').waitFor();
      found.push(...(await scan(page, `${colorScheme}-scoreboard`)).map((v) => `${colorScheme}: ${v}`));
    }
    await page.emulateMedia({ colorScheme: null });
    if (viewport) await page.setViewportSize(viewport);
    expect(found).toEqual([]);
  });

  it("a deep link opens the Scoreboard tab; Replay plays the archive", async () => {
    await page.goto(`${baseUrl}${viewPath}?tab=scoreboard`);
    await page.getByTestId("scoreboard").waitFor();
    await page.getByTestId("replay-link").click();
    await page.waitForURL(new RegExp(`/replay${viewPath}$`));
    await expect.poll(() => page.getByTestId("replay-position").textContent(), { timeout: 15_000 }).toMatch(new RegExp(`^step 1 of ${archive.rootSteps} · `));
    await page.getByTestId("replay-scrubber").focus();
    await page.keyboard.press("End");
    await expect.poll(() => page.getByTestId("replay-position").textContent()).toMatch(new RegExp(`^step ${archive.rootSteps} of ${archive.rootSteps} · `));
  });

  it("a single run's archive (no --vary): the same scoreboard, with no variants", async () => {
    expect([single.results.label, single.results.variants]).toEqual(["", undefined]);
    await importArchive(single.tar);
    const board = await expectScoreboardOf(single.results);
    await expect(board.getByTestId("variant-col").count()).resolves.toBe(0);
    await expect(board.getByTestId("score-label").count()).resolves.toBe(0);
  });
});
