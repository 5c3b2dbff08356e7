// An accessibility scan with axe-core in the page, as the e2e tests run it:
// the page's serious and critical violations, one line each (rule, impact,
// help, elements), and a full-page screenshot for a person to look at,
// test-results/screenshots/<shot>.png.
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Page } from "playwright-core";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const SHOTS = join(process.cwd(), "test-results", "screenshots");

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** The page's serious and critical violations, one line each; `shot` names its screenshot. */
export async function scan(page: Page, shot: string): Promise<string[]> {
  // Two frames, so what the last click or query changed is painted before axe reads colours.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: true });
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} [${v.impact}] ${v.help}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}`);
}
