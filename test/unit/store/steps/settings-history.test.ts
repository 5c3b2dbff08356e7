// The Settings tab's "recent changes": config steps as updateSettings writes
// them, read newest first from the store, and what each changed from the one before.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configChanges } from "@/components/settings/config-changes";
import { recentConfigSteps } from "@/lib/store/steps/config-steps";
import { type ReverieDb } from "@/lib/store/db/db";
import { createMind, getMind, updateSettings, setRunning } from "@/lib/store/minds/minds";
import { appendStep } from "@/lib/store/steps/steps";
import { openTestDb } from "../../helpers/db";
import type { MindSettings } from "@/lib/mind/settings/settings";

const model = { provider: "openai-compatible" as const, baseURL: "http://127.0.0.1:9/v1", model: "m1" };
const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);

describe("recent config steps", () => {
  let db: ReverieDb;
  let mind: MindSettings;
  beforeEach(async () => {
    db = await openTestDb("settings-history-test");
    mind = await createMind(db, { name: "Ada", persona: "p", model }, T0);
    // Stopped: its config steps are appended at once (a running mind's writer takes them from its door: door.test.ts).
    await setRunning(db, mind.id, false);
  });
  afterEach(async () => {
    await db.delete();
  });

  const settingsOf = (m: MindSettings) => ({ model: m.model, budget: m.budget, pacing: m.pacing, max_iterations: m.max_iterations, permissions: m.permissions });

  it("every save is a config step; each says what changed from the one before, the first what the mind began with", async () => {
    const saved = settingsOf(mind);
    await updateSettings(db, mind.id, { ...saved, model: { ...saved.model, model: "m2" }, pacing: { ...saved.pacing, base_s: 2 } }, T0 + 1000);
    // Other steps between them are not config steps and are not read as such.
    await appendStep(db, mind.id, { type: "thought", step_id: "00000000-0000-4000-8000-000000000001", ts: new Date(T0 + 1500).toISOString(), content: "hm", source: "monolith" });
    const now = (await getMind(db, mind.id)) as MindSettings;
    await updateSettings(db, mind.id, { ...settingsOf(now), max_iterations: 7, summary_model: "small" }, T0 + 2000);
    await updateSettings(db, mind.id, settingsOf((await getMind(db, mind.id)) as MindSettings), T0 + 3000);

    const steps = await recentConfigSteps(db, mind.id, 10);
    expect(steps.map((s) => s.ts)).toEqual([T0 + 3000, T0 + 2000, T0 + 1000, T0].map((t) => new Date(t).toISOString()));
    expect(steps.map((s, i) => configChanges(steps[i + 1], s))).toEqual([
      // The same settings saved again: a step, with nothing changed.
      [],
      ["max_iterations: " + mind.max_iterations + " → 7", "summary_model: (none) → small"],
      ["pacing.base_s: " + mind.pacing.base_s + " → 2", "model: m1 → m2"],
      [`began with openai-compatible/m1, ${mind.max_iterations} steps per run`],
    ]);
  });

  it("reads only the newest `limit` of them", async () => {
    for (let i = 1; i <= 3; i++) await updateSettings(db, mind.id, { ...settingsOf(mind), max_iterations: i }, T0 + i * 1000);
    const steps = await recentConfigSteps(db, mind.id, 2);
    expect(steps.map((s) => s.max_iterations)).toEqual([3, 2]);
  });

  it("none for a mind this browser does not have", async () => {
    await expect(recentConfigSteps(db, "no-such-mind", 5)).resolves.toEqual([]);
  });
});
