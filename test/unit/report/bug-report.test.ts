// The bug report: a mind whose settings hold a key, and whose steps, summaries,
// persona and log mention it (and another mind's key), gives a file in which
// neither key appears, not even its middle; the settings keep what they say
// about the model; every trajectory line is there, untouched ones byte for byte.
import { describe, expect, it } from "vitest";
import { bugReport, BUG_REPORT_FORMAT, type ReportLogEntry } from "@/lib/report/bug-report";
import { collectBugReport } from "@/lib/report/collect";
import { exportEntries } from "@/lib/store/exchange/export";
import { createMind } from "@/lib/store/minds/minds";
import { appendStep } from "@/lib/store/steps/steps";
import { REDACTED } from "@/lib/sync/client/scrub";
import { DEFAULT_PERMISSIONS } from "@/lib/trajectory/permissions";
import { FAKE_KEYS } from "../../fixtures/fake-keys";
import { openTestDb } from "../helpers/db";
import { id } from "../helpers/steps";
import { selfEditStep } from "@/lib/shell/self/edit";
import { stampStep } from "@/lib/trajectory/schema";
import type { MindSettings } from "@/lib/mind/settings/settings";

const KEY = FAKE_KEYS.openaiProject;
const OTHER = FAKE_KEYS.anthropic;
const NOW = Date.parse("2026-12-02T03:04:05.678Z");
const middle = (k: string) => k.slice(Math.floor(k.length / 2) - 4, Math.floor(k.length / 2) + 4);

/** Neither the key nor its middle 8 characters anywhere in the text. */
function expectNoKey(text: string, key: string) {
  expect(text.includes(key)).toBe(false);
  expect(text.includes(middle(key))).toBe(false);
}

const mind: MindSettings = {
  id: id(1),
  name: "Ada Lovelace",
  persona: `You are Ada. Your key is ${KEY}; the other mind's is ${OTHER}.`,
  model: { provider: "openai-compatible", baseURL: "http://localhost:11434/v1", model: "llama3", apiKey: KEY },
  created_at: "2026-12-01T00:00:00.000Z",
  running: true,
  pacing: { base_s: 5, cap_s: 300, ticks_per_level: 3 },
  max_iterations: 20,
  permissions: DEFAULT_PERMISSIONS,
  budget: { hour_usd: 1, day_usd: 5 },
  summary_model: "llama3-small",
};

const step = (n: number, fields: Record<string, unknown>) => JSON.stringify({ step_id: id(n), ts: "2026-12-01T00:00:01.000Z", ...fields });
const LINES = [
  step(1, { type: "trajectory", name: "Ada Lovelace" }),
  step(2, { type: "thought", content: "Nothing secret here." }),
  step(3, { type: "reasoning", thought: `I found ${KEY} in env`, cmd: "env | grep KEY" }),
  step(4, { type: "shell-output", stdout: `OPENAI_API_KEY=${KEY}\n`, stderr: "", exit: 0, exec_s: 0.1, timed_out: false }),
  // The key spelled with a JSON escape for its first letter: the same text once parsed.
  step(5, { type: "thought", content: "escaped" }).replace('"escaped"', `"${"\\u0073"}${KEY.slice(1)}"`),
  "not json at all, but it mentions " + KEY,
];

const LOG: ReportLogEntry[] = [
  { at: NOW - 2000, level: "info", from: "runner", text: "worker started" },
  { at: NOW - 1000, level: "warn", from: "worker", text: `status: waiting, last error: HTTP 401 Incorrect API key provided: ${KEY}` },
];

function report() {
  return bugReport({
    now: NOW,
    appVersion: "0.1.0",
    userAgent: "Mozilla/5.0 (test)",
    mind,
    files: [
      { path: "mind.json", data: "{}\n" },
      { path: "00000000-ada/trajectory.jsonl", data: `${LINES.join("\n")}\n` },
      { path: "00000000-ada/tiers.jsonl", data: `${JSON.stringify({ tier: 0, index: 0, summary: `I saw ${KEY} and ${OTHER}.` })}\n` },
      { path: "00000000-ada/blobs/out-1.txt", data: `all of it: ${KEY}` },
    ],
    log: LOG,
    heldKeys: [OTHER],
  });
}

describe("bugReport", () => {
  it("holds no key anywhere, not even a key's middle", () => {
    const { text } = report();
    expectNoKey(text, KEY);
    expectNoKey(text, OTHER);
    expect(text).toContain(REDACTED);
  });

  it("keeps the settings without the key: provider, model, base URL, budget, pacing, permissions, summary model", () => {
    const parsed = JSON.parse(report().text);
    expect(parsed.settings).toEqual({
      provider: "openai-compatible",
      baseURL: "http://localhost:11434/v1",
      model: "llama3",
      api_key_set: true,
      summary_model: "llama3-small",
      budget: { hour_usd: 1, day_usd: 5 },
      pacing: { base_s: 5, cap_s: 300, ticks_per_level: 3 },
      max_iterations: 20,
      permissions: mind.permissions,
    });
    expect(parsed).toMatchObject({ format: BUG_REPORT_FORMAT, version: 1, created_at: "2026-12-02T03:04:05.678Z", app_version: "0.1.0", user_agent: "Mozilla/5.0 (test)" });
    expect(parsed.mind).toEqual({ id: id(1), name: "Ada Lovelace", persona: `You are Ada. Your key is ${REDACTED}; the other mind's is ${REDACTED}.`, created_at: mind.created_at, running: true });
  });

  it("carries every trajectory line, untouched ones byte for byte, and the tiers, and lists left-out blobs", () => {
    const parsed = JSON.parse(report().text);
    expect(parsed.trajectories).toHaveLength(1);
    const lines: string[] = parsed.trajectories[0].lines;
    expect(parsed.trajectories[0].path).toBe("00000000-ada/trajectory.jsonl");
    expect(lines).toHaveLength(LINES.length);
    expect(lines.slice(0, 2)).toEqual(LINES.slice(0, 2));
    expect(JSON.parse(lines[3] ?? "")).toMatchObject({ type: "shell-output", stdout: `OPENAI_API_KEY=${REDACTED}\n` });
    expect(JSON.parse(lines[4] ?? "")).toMatchObject({ type: "thought", content: REDACTED });
    expect(lines[5]).toBe(`not json at all, but it mentions ${REDACTED}`);
    expect(parsed.tiers).toEqual([{ path: "00000000-ada/tiers.jsonl", lines: [JSON.stringify({ tier: 0, index: 0, summary: `I saw ${REDACTED} and ${REDACTED}.` })] }]);
    expect(parsed.blobs_left_out).toEqual([{ path: "00000000-ada/blobs/out-1.txt", bytes: `all of it: ${KEY}`.length }]);
  });

  it("carries the log with times, the key in an error message scrubbed", () => {
    const parsed = JSON.parse(report().text);
    expect(parsed.log).toEqual([
      { at: "2026-12-02T03:04:03.678Z", level: "info", from: "runner", text: "worker started" },
      { at: "2026-12-02T03:04:04.678Z", level: "warn", from: "worker", text: `status: waiting, last error: HTTP 401 Incorrect API key provided: ${REDACTED}` },
    ]);
  });

  it("names the file after the mind and the day", () => {
    expect(report().fileName).toBe("reverie-bug-ada-lovelace-2026-12-02.json");
  });
});

describe("collectBugReport", () => {
  it("from the store: the export's lines, no key of any mind in this browser", async () => {
    const db = await openTestDb("bug-report");
    const other = await createMind(db, { name: "Bo", persona: "", model: { provider: "anthropic", model: "claude", apiKey: OTHER } }, NOW - 10_000);
    const ada = await createMind(db, { name: "Ada", persona: "", model: { provider: "openai", model: "gpt-5", apiKey: KEY } }, NOW - 5_000);
    await appendStep(db, ada.id, { type: "thought", step_id: id(41), ts: "2026-12-02T03:00:00.000Z", content: `my key is ${KEY}, Bo's is ${OTHER}` });
    await appendStep(db, ada.id, { type: "thought", step_id: id(42), ts: "2026-12-02T03:00:01.000Z", content: "a plain thought" });

    const { text, fileName } = await collectBugReport(db, ada.id, { now: NOW, appVersion: "0.1.0", userAgent: "test", log: [] });
    expectNoKey(text, KEY);
    expectNoKey(text, OTHER);
    expect(fileName).toBe("reverie-bug-ada-2026-12-02.json");
    const parsed = JSON.parse(text);
    expect(parsed.settings).toMatchObject({ provider: "openai", model: "gpt-5", api_key_set: true });
    expect(parsed.settings).not.toHaveProperty("apiKey");

    // Every line the export writes, in order (the one with the keys scrubbed).
    let exported: string[] = [];
    for await (const e of exportEntries(db, ada.id)) if (e.path.endsWith("/trajectory.jsonl")) exported = String(e.data).split("\n").filter(Boolean);
    const lines: string[] = parsed.trajectories[0].lines;
    expect(lines).toHaveLength(exported.length);
    expect(lines.map((l) => JSON.parse(l).step_id)).toEqual(exported.map((l) => JSON.parse(l).step_id));
    expect(lines.filter((l, i) => l !== exported[i]).map((l) => JSON.parse(l).content)).toEqual([`my key is ${REDACTED}, Bo's is ${REDACTED}`]);
    expect(other.id).not.toBe(ada.id);
  });

  it("carries a change to the mind's own texts (a self-edit) as the export does, a key pasted into the text scrubbed from its diff", async () => {
    const db = await openTestDb("bug-report-self-edit");
    const ada = await createMind(db, { name: "Ada", persona: "", model: { provider: "openai", model: "gpt-5", apiKey: KEY } }, NOW - 5_000);
    const edit = await selfEditStep("self/instructions.md", "Be kind.\n", `Be kind.\nMy key: ${KEY}\n`, { kind: "human", name: "Ada", via: "settings" });
    await appendStep(db, ada.id, stampStep({ ...edit, step_id: id(43) }, { id: id(43), now: NOW - 1000 }));
    let exported: string[] = [];
    for await (const e of exportEntries(db, ada.id)) if (e.path.endsWith("/trajectory.jsonl")) exported = String(e.data).split("\n").filter(Boolean);
    const raw = exported.find((l) => JSON.parse(l).type === "self-edit") ?? "";
    expect(JSON.parse(raw).diff).toContain(`+My key: ${KEY}`);
    const { text } = await collectBugReport(db, ada.id, { now: NOW, appVersion: "0.1.0", userAgent: "test", log: [] });
    expectNoKey(text, KEY);
    const line = (JSON.parse(text).trajectories[0].lines as string[]).find((l) => JSON.parse(l).type === "self-edit") ?? "";
    expect(JSON.parse(line)).toEqual({ ...JSON.parse(raw), diff: JSON.parse(raw).diff.replace(KEY, REDACTED) });
  });

  it("says so when there is no such mind", async () => {
    const db = await openTestDb("bug-report-missing");
    await expect(collectBugReport(db, id(9), { now: NOW, appVersion: "0.1.0", userAgent: "test", log: [] })).rejects.toThrow(`No mind ${id(9)} in this browser to report on.`);
  });
});
