// A person whose mind has a key in its settings downloads a bug report from
// the mind's page: the file has the app's version, the browser, the settings
// (provider, model, base URL, no key), every line the export has, and the
// tab's recent worker log; the key, which the model echoed into a thought, a
// shell output and an error message, appears nowhere in it — in Debian's Chromium.
import { readFile } from "node:fs/promises";
import { describe, expect, inject, it } from "vitest";
import { REDACTED } from "@/lib/sync/client/scrub";
import pkg from "../../package.json";
import { FAKE_KEYS } from "../fixtures/fake-keys";
import { browserAndModelForFile } from "./browser";
import { exportMainTrajectory } from "./export-reader";
import { createMind, stopMind, waitForRowAfter } from "./mind-page";

const baseUrl = inject("baseUrl");
const env = browserAndModelForFile();
const KEY = FAKE_KEYS.openaiProject;
const middle = KEY.slice(Math.floor(KEY.length / 2) - 4, Math.floor(KEY.length / 2) + 4);

describe("the bug report", () => {
  it("from a mind with a key in its settings holds no key, and holds what a maintainer needs", async () => {
    const context = await env.browser.newContext();
    try {
      const page = await context.newPage();
      // A model that names the key in its error, then a thought and a block that print it.
      env.model.enqueue(
        { status: 401, errorBody: `Incorrect API key provided: ${KEY}` },
        { text: `The key is ${KEY}, I should not say it.\n\n\`\`\`bash\necho "key=${KEY}"\nFINAL=done\n\`\`\`` },
      );
      await createMind(page, baseUrl, { name: "Reporter", apiKey: KEY, modelUrl: env.model.url });
      await waitForRowAfter(page, { type: "error", text: "401" });
      await waitForRowAfter(page, { type: "shell-output", text: "key=" });
      await stopMind(page);
      const exported = await exportMainTrajectory(page);

      const button = page.getByTestId("bug-report");
      await button.waitFor({ timeout: 10_000 });
      const [download] = await Promise.all([page.waitForEvent("download", { timeout: 30_000 }), button.click()]);
      expect(download.suggestedFilename()).toMatch(/^reverie-bug-reporter-\d{4}-\d{2}-\d{2}\.json$/);
      const text = await readFile(await download.path(), "utf8");

      expect(text.includes(KEY)).toBe(false);
      expect(text.includes(middle)).toBe(false);
      expect(text).toContain(REDACTED);

      const report = JSON.parse(text);
      expect(report).toMatchObject({ format: "reverie-bug-report", version: 1, app_version: pkg.version });
      expect(report.user_agent).toMatch(/Chrome/);
      expect(report.settings).toMatchObject({ provider: "openai-compatible", model: "scripted", baseURL: env.model.url, api_key_set: true });
      expect(report.settings).not.toHaveProperty("apiKey");

      // Every step of the export, in order; the ones that named the key carry the redaction instead.
      const top = report.trajectories.filter((t: { path: string }) => !t.path.slice(0, -"/trajectory.jsonl".length).includes("/"));
      expect(top).toHaveLength(1);
      const steps = (top[0].lines as string[]).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(steps.map((s) => s.step_id)).toEqual(exported.steps.map((s) => s.step_id));
      const output = steps.find((s) => s.type === "shell-output" && String(s.stdout).startsWith("key="));
      expect(output?.stdout).toBe(`key=${REDACTED}\n`);
      expect(steps.find((s) => s.type === "error")?.content).toContain(REDACTED);

      // The tab's log: its runner's and its worker's own lines, in time order.
      const log = report.log as { at: string; level: string; from: string; text: string }[];
      expect(log.some((e) => e.from === "runner" && e.text === "this tab runs the mind")).toBe(true);
      expect(log.some((e) => e.from === "worker" && e.text === "starting the mind")).toBe(true);
      expect(log.some((e) => e.from === "worker" && e.text === "stopping the mind")).toBe(true);
      expect(log.map((e) => e.at)).toEqual([...log.map((e) => e.at)].sort());
    } finally {
      await context.close();
    }
  });
});
