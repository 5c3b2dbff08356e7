// What pacing does when the mind's tab is hidden. Measures and prints; asserts
// only what holds in any Chromium: the mind keeps waking while its tab is in
// the background, and it wakes again after a freeze.
//
// The phases, in one real Chromium (./real-chromium: no anti-throttling
// switches, no focus emulation), pacing 1 s first pause, 4 s longest:
//   visible — the mind's tab in front;
//   hidden  — another tab brought to front (document.visibilityState "hidden");
//   frozen  — CDP Page.setWebLifecycleState "frozen", what Chromium does to
//             background tabs to save power, then "active" again;
//   thawed  — still hidden, after the freeze;
//   back    — the mind's tab in front again.
// Each phase starts with a message, which resets the pacing (0, 0, 0, then
// 1 s ×3, 2 s ×3, 4 s …). HIDDEN_TAB_VISIBLE_S, HIDDEN_TAB_HIDDEN_S and
// HIDDEN_TAB_FROZEN_S change the lengths (20, 30, 10 s by default, short enough for CI; the README figures used 60, 60, 20 and 380); a hidden
// phase over 300 s shows Chromium's intensive throttling too.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { delaySeconds } from "@/lib/mind/pacing/pacing";
import { isKind, type StepOf } from "@/lib/trajectory/schema";
import { startModelServer, type ModelServer } from "../fixtures/model-server";
import { mainTrajectory, readExport } from "./export-reader";
import { createMind, RUNNING, sendMessage, setPacing, stopMind, waitForStatus } from "./mind-page";
import { launchRealChromium, visibility, type RealChromium } from "./real-chromium";

const baseUrl = inject("baseUrl");
const seconds = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const VISIBLE_S = seconds("HIDDEN_TAB_VISIBLE_S", 20);
const HIDDEN_S = seconds("HIDDEN_TAB_HIDDEN_S", 30);
const FROZEN_S = seconds("HIDDEN_TAB_FROZEN_S", 10);
const THAWED_S = 12;
const BACK_S = 8;
const PACING = { base_s: 1, cap_s: 4, ticks_per_level: 3 };

type Phase = "visible" | "hidden" | "frozen" | "thawed" | "back";
type Wake = StepOf<"wake">;

let real: RealChromium;
let model: ModelServer;

beforeAll(async () => {
  real = await launchRealChromium();
  // An instant model whose every wake is idle, so the pacing backs off as it would for a quiet mind.
  model = await startModelServer({ responder: () => ({ text: "Nothing needs doing.\n\n```bash\nFINAL=idle\n```" }) });
});

afterAll(async () => {
  await real?.close();
  await model?.close();
});

/** A timer on the page's main thread, for comparison with the worker's: every 250 ms, as asked. */
const startMainThreadProbe = (page: Page) =>
  page.evaluate(() => {
    const w = window as unknown as { probe: number[] };
    w.probe = [];
    setInterval(() => w.probe.push(Date.now()), 250);
  });
const readMainThreadProbe = (page: Page) => page.evaluate(() => (window as unknown as { probe: number[] }).probe);

const ms = (n: number) => `${(n / 1000).toFixed(3)} s`;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor(s.length / 2)] as number) : NaN;
};

describe("a mind in a hidden tab", () => {
  it("keeps its pacing while hidden; a freeze stops it until the tab thaws", { timeout: (VISIBLE_S + HIDDEN_S + FROZEN_S + THAWED_S + BACK_S + 120) * 1000 }, async () => {
    const page = real.context.pages()[0] ?? (await real.context.newPage());
    await createMind(page, baseUrl, { name: "Hidden", modelUrl: model.url });
    await page.locator('[data-testid="step"][data-step-type="shell-output"]').first().waitFor({ timeout: 30_000 });
    await setPacing(page, PACING);
    await waitForStatus(page, RUNNING);
    await startMainThreadProbe(page);

    const phases: { phase: Phase; from: number; to: number; visibility: string }[] = [];
    const phase = async (name: Phase, lengthS: number, run: () => Promise<void>, visibilityOf: () => Promise<string>) => {
      const from = Date.now();
      await run();
      const state = await visibilityOf();
      await new Promise((r) => setTimeout(r, Math.max(0, from + lengthS * 1000 - Date.now())));
      phases.push({ phase: name, from, to: Date.now(), visibility: state });
    };

    await phase("visible", VISIBLE_S, () => sendMessage(page, "You are in front."), () => visibility(page));
    let other: Page | null = null;
    await phase(
      "hidden",
      HIDDEN_S,
      async () => {
        await sendMessage(page, "Your tab goes to the background now.");
        // A new tab opens in front (as a person's would): the mind's tab is now hidden.
        other = await real.context.newPage();
        await other.goto("data:text/html,<title>another tab</title><p>another tab</p>");
        await other.bringToFront();
      },
      () => visibility(page),
    );
    const cdp = await real.context.newCDPSession(page);
    const lifecycle = async (state: "frozen" | "active") => void (await cdp.send("Page.setWebLifecycleState", { state }));
    await phase("frozen", FROZEN_S, () => lifecycle("frozen"), async () => "frozen");
    await phase("thawed", THAWED_S, () => lifecycle("active"), () => visibility(page));
    await phase(
      "back",
      BACK_S,
      async () => {
        await page.bringToFront();
        await sendMessage(page, "You are in front again.");
      },
      () => visibility(page),
    );

    const probe = await readMainThreadProbe(page);
    await stopMind(page);
    const { bytes, name } = await real.download(() => page.getByTestId("export-mind").click());
    const { steps } = mainTrajectory(await readExport(bytes, name));

    const phaseOf = (t: number) => phases.find((p) => t >= p.from && t < p.to)?.phase;
    const wakes = steps.filter((s): s is Wake => isKind(s, "wake") && s.source === "monolith");
    const rowsOf = (p: Phase) => wakes.filter((w) => phaseOf(Date.parse(w.ts)) === p);

    console.log(`hidden tab: pacing first pause ${PACING.base_s} s, longest ${PACING.cap_s} s, ${PACING.ticks_per_level} idle wakes per level`);
    for (const p of phases) {
      const ws = rowsOf(p.phase);
      const scheduled = ws.filter((w) => w.reason === "scheduled");
      const byIntended = new Map<number, number[]>();
      for (const w of scheduled) {
        const intended = delaySeconds(w.level, PACING);
        byIntended.set(intended, [...(byIntended.get(intended) ?? []), w.delay_s]);
      }
      const ticks = probe.filter((t) => t >= p.from && t < p.to);
      const gaps = ticks.slice(1).map((t, i) => t - (ticks[i] as number));
      const detail = [...byIntended]
        .sort(([a], [b]) => a - b)
        .map(([intended, actual]) => `intended ${intended} s → actual ${Math.min(...actual).toFixed(3)}–${Math.max(...actual).toFixed(3)} s (${actual.length})`)
        .join("; ");
      console.log(
        `hidden tab: ${p.phase.padEnd(7)} ${Math.round((p.to - p.from) / 1000)} s (${p.visibility}): ${ws.length} wakes (${ws.map((w) => w.reason[0]).join("")}); ${detail || "no scheduled wakes"}; ` +
          `main-thread 250 ms timer: ${ticks.length} ticks${gaps.length ? `, median gap ${ms(median(gaps))}, longest ${ms(Math.max(...gaps))}` : ""}`,
      );
    }
    // When the page's own timers went from once a second to once a minute (Chromium's intensive throttling).
    const hiddenFrom = phases.find((p) => p.phase === "hidden")?.from ?? 0;
    const hiddenTicks = probe.filter((t) => t >= hiddenFrom);
    const longGap = hiddenTicks.slice(1).findIndex((t, i) => t - (hiddenTicks[i] as number) >= 30_000);
    console.log(
      longGap < 0
        ? "hidden tab: the page's main-thread timer never waited 30 s or more"
        : `hidden tab: the page's main-thread timer first waited ≥ 30 s from ${ms((hiddenTicks[longGap] as number) - hiddenFrom)} after the tab was hidden`,
    );
    // Past five minutes hidden, Chromium's intensive throttling may start: the two halves of a long hidden phase.
    const hidden = phases.find((p) => p.phase === "hidden");
    if (hidden && hidden.to - hidden.from > 300_000) {
      for (const [label, from, to] of [["first 5 min", hidden.from, hidden.from + 300_000], ["after 5 min", hidden.from + 300_000, hidden.to]] as const) {
        const ticks = probe.filter((t) => t >= from && t < to);
        const gaps = ticks.slice(1).map((t, i) => t - (ticks[i] as number));
        const late = wakes.filter((w) => w.reason === "scheduled" && Date.parse(w.ts) >= from && Date.parse(w.ts) < to).map((w) => w.delay_s - delaySeconds(w.level, PACING));
        console.log(
          `hidden tab: hidden, ${label}: ${late.length} scheduled wakes, latest by ${late.length ? Math.max(...late).toFixed(3) : "-"} s; main-thread timer ${ticks.length} ticks${gaps.length ? `, median gap ${ms(median(gaps))}, longest ${ms(Math.max(...gaps))}` : ""}`,
        );
      }
    }
    // The wake after the freeze: how long it waited, against what it meant to.
    const frozen = phases.find((p) => p.phase === "frozen");
    const firstAfter = wakes.find((w) => frozen && Date.parse(w.ts) >= frozen.from);
    if (firstAfter) console.log(`hidden tab: the first wake after the freeze came ${ms(Date.parse(firstAfter.ts) - (frozen?.from ?? 0))} after it began, delay_s ${firstAfter.delay_s} (intended ${delaySeconds(firstAfter.level, PACING)} s)`);
    const calls = model.requests.filter((r) => frozen && r.at >= frozen.from && r.at < frozen.to).length;
    console.log(`hidden tab: model calls while frozen: ${calls}`);

    // What holds anywhere: the tab really was hidden, the mind kept waking there, and it wakes again after a freeze.
    expect(phases.map((p) => [p.phase, p.visibility])).toEqual([
      ["visible", "visible"],
      ["hidden", "hidden"],
      ["frozen", "frozen"],
      ["thawed", "hidden"],
      ["back", "visible"],
    ]);
    expect(rowsOf("hidden").filter((w) => w.reason === "scheduled").length).toBeGreaterThanOrEqual(Math.min(5, HIDDEN_S / 8));
    expect(rowsOf("thawed").length + rowsOf("back").length).toBeGreaterThan(0);
  });
});
