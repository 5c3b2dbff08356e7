// A mind's settings change only through updateSettings: saved and recorded as
// a config step in one transaction; the key is never in the step.
import { DEFAULT_PERMISSIONS } from "@/lib/trajectory/permissions";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ReverieDb } from "@/lib/store/db/db";
import { DEFAULT_BUDGET } from "@/lib/mind/budget/budget";
import { createMind, getMind, updateSettings, setRunning } from "@/lib/store/minds/minds";
import { tailSteps } from "@/lib/store/steps/steps";
import { openTestDb } from "../../helpers/db";

let db: ReverieDb;

beforeEach(async () => {
  db = await openTestDb("settings-test");
});

afterEach(async () => {
  await db.delete();
});

const model = { provider: "openai-compatible" as const, baseURL: "http://127.0.0.1:9/v1", model: "m1", apiKey: "fake-key-for-tests" };

describe("updateSettings", () => {
  it("saves the new settings and appends a config step without the key", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "p", model }, Date.UTC(2026, 10, 30, 12));
    // Stopped: its config steps are appended at once (a running mind's writer takes them from its door: door.test.ts).
    await setRunning(db, mind.id, false);
    await updateSettings(db, mind.id, { model: { ...model, model: "m2" }, pacing: { base_s: 2, cap_s: 60, ticks_per_level: 2 }, max_iterations: 5 }, Date.UTC(2026, 10, 30, 13));

    const saved = await getMind(db, mind.id);
    expect(saved?.model).toEqual({ ...model, model: "m2" });
    expect(saved?.pacing).toEqual({ base_s: 2, cap_s: 60, ticks_per_level: 2 });
    expect(saved?.max_iterations).toBe(5);

    const steps = await tailSteps(db, mind.id, 10);
    expect(steps.map((s) => s.type)).toEqual(["trajectory", "config", "config"]);
    const { step_id: _id, ...last } = steps[2] as Record<string, unknown>;
    expect(last).toEqual({
      type: "config",
      ts: "2026-11-30T13:00:00.000Z",
      source: "system",
      pacing: { base_s: 2, cap_s: 60, ticks_per_level: 2 },
      max_iterations: 5,
      provider: "openai-compatible",
      model: "m2",
      // Settings without permissions keep the mind's; the config step records them all the same.
      permissions: DEFAULT_PERMISSIONS,
      // Left out too: the caps createMind gave it (the offered defaults).
      budget: DEFAULT_BUDGET,
    });
    expect(JSON.stringify(steps)).not.toContain("fake-key-for-tests");
  });

  it("refuses invalid settings and changes nothing", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "p", model });
    await expect(updateSettings(db, mind.id, { model: { ...model, model: "" }, pacing: { base_s: 5, cap_s: 300, ticks_per_level: 3 }, max_iterations: 12 })).rejects.toThrow();
    await expect(updateSettings(db, mind.id, { model, pacing: { base_s: 0, cap_s: 300, ticks_per_level: 3 }, max_iterations: 12 })).rejects.toThrow();
    expect((await getMind(db, mind.id))?.model.model).toBe("m1");
    expect((await tailSteps(db, mind.id, 10)).map((s) => s.type)).toEqual(["trajectory", "config"]);
  });

  it("fails for a mind that is not there", async () => {
    await expect(updateSettings(db, "00000000-0000-4000-8000-000000000000", { model, pacing: { base_s: 5, cap_s: 300, ticks_per_level: 3 }, max_iterations: 12 })).rejects.toThrow(/No mind/);
  });
});
