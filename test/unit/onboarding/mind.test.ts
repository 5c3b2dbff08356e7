// A mind made by the onboarding form: its persona presets and the first
// thought drawn from a persona, the pacing it is created with, and the seed
// thought createMind writes, which the mind's first wake sees as its own
// (run under Node over fake-indexeddb against the scripted model server).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_PRESET, firstThoughtFor, PERSONA_PRESETS, presetFor } from "@/lib/onboarding/persona-presets";
import { DEFAULT_PACING } from "@/lib/mind/pacing/pacing";
import type { ReverieDb } from "@/lib/store/db/db";
import { createMind, getMind } from "@/lib/store/minds/minds";
import { tailSteps } from "@/lib/store/steps/steps";
import { runMind } from "@/lib/home/tab";
import { on } from "@/lib/mind/events";
import { startModelServer, type ModelServer } from "../../fixtures/model-server";
import { openTestDb } from "../helpers/db";

const NOW = Date.UTC(2026, 11, 2, 3, 0, 0);

describe("persona presets", () => {
  it("a few presets with distinct keys, each a persona in the second person and a first thought in the first", () => {
    expect(PERSONA_PRESETS.map((p) => p.key)).toEqual(["notebook", "researcher", "tutor", "diarist", "tinkerer"]);
    for (const p of PERSONA_PRESETS) {
      expect(p.persona).toMatch(/\byou\b/i);
      expect(p.firstThought).toMatch(/^(I|A|An|This|Nobody)\b/);
      expect(p.firstThought).toMatch(/\b(I|my|me)\b/);
    }
    // The form's default is the persona it always offered.
    expect(DEFAULT_PRESET.persona).toBe("Curious and patient. You like to understand how things work, keep notes in your workspace, and answer people kindly and briefly.");
  });

  it("a preset's persona is recognised (outer whitespace aside) and gives its own first thought", () => {
    const tutor = PERSONA_PRESETS.find((p) => p.key === "tutor")!;
    expect(presetFor(`  ${tutor.persona}\n`)?.key).toBe("tutor");
    expect(presetFor(`${tutor.persona} Also loves chess.`)).toBeUndefined();
    expect(firstThoughtFor(tutor.persona)).toBe(tutor.firstThought);
  });

  it("a hand-written persona gives a first thought that quotes it; a long one is cut on a word; an empty one gives none", () => {
    expect(firstThoughtFor("You look after  a small\nvegetable garden.")).toBe(
      'I have just begun. This is how I was described: "You look after a small vegetable garden." Before anything else I want to work out what that asks of me here, and choose one small first thing to do that fits it.',
    );
    const long = `You are ${"very ".repeat(80)}patient.`;
    const thought = firstThoughtFor(long);
    const quoted = /described: "([^"]*)"/.exec(thought)?.[1] ?? "";
    expect(quoted.endsWith("very …")).toBe(true);
    expect(quoted.length).toBeLessThanOrEqual(242);
    expect(firstThoughtFor("   ")).toBe("");
  });
});

describe("createMind from the onboarding form", () => {
  let db: ReverieDb;
  beforeEach(async () => {
    db = await openTestDb("onboarding-mind-test");
  });
  afterEach(async () => {
    await db.delete();
  });
  const model = { provider: "openai-compatible" as const, baseURL: "http://127.0.0.1:9/v1", model: "m" };

  it("stores the chosen pacing and records it in the config step; writes the first thought after it, from `seed`", async () => {
    const pacing = { base_s: 2, cap_s: 120, ticks_per_level: 4 };
    const mind = await createMind(db, { name: "Tess", persona: "p", model, pacing, first_thought: "  I want to begin with the garden.  " }, NOW);
    expect((await getMind(db, mind.id))?.pacing).toEqual(pacing);
    const steps = await tailSteps(db, mind.id, 10);
    expect(steps.map((s) => [s.type, s.source])).toEqual([
      ["trajectory", "system"],
      ["config", "system"],
      ["thought", "seed"],
    ]);
    expect(steps[1]).toMatchObject({ pacing });
    const { step_id, ...seed } = steps[2] as Record<string, unknown>;
    expect(step_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(seed).toEqual({ type: "thought", ts: "2026-12-02T03:00:00.000Z", content: "I want to begin with the garden.", source: "seed" });
    // The first thought is a step, not a setting: the mind itself does not keep it.
    expect(JSON.stringify(await getMind(db, mind.id))).not.toContain("garden");
  });

  it("without pacing or a first thought: Headlong's pacing and no seed step (what every other caller gets)", async () => {
    const mind = await createMind(db, { name: "Tess", persona: "p", model, first_thought: "   " }, NOW);
    expect(mind.pacing).toEqual(DEFAULT_PACING);
    expect((await tailSteps(db, mind.id, 10)).map((s) => s.type)).toEqual(["trajectory", "config"]);
  });

  it("refuses a longest pause shorter than the first, and writes nothing", async () => {
    await expect(createMind(db, { name: "Tess", persona: "p", model, pacing: { base_s: 60, cap_s: 5, ticks_per_level: 3 } }, NOW)).rejects.toThrow(/longest pause cannot be shorter/);
    expect(await db.minds.count()).toBe(0);
    expect(await db.steps.count()).toBe(0);
  });
});

describe("a seeded mind's first wake", () => {
  let db: ReverieDb;
  let server: ModelServer;
  beforeEach(async () => {
    db = await openTestDb("onboarding-first-wake-test");
    server = await startModelServer();
  });
  afterEach(async () => {
    await server.close();
    await db.delete();
  });

  it("sees the persona in its instructions and the first thought as its own, just before it is woken", async () => {
    const tinkerer = PERSONA_PRESETS.find((p) => p.key === "tinkerer")!;
    const mind = await createMind(db, {
      name: "Tink",
      persona: tinkerer.persona,
      first_thought: tinkerer.firstThought,
      model: { provider: "openai-compatible", baseURL: server.url, model: "scripted" },
    });
    server.enqueue({ text: "I will start the tools folder.\n\n```bash\nmkdir -p tools\nFINAL=\"think: start with a tools folder\"\n```" });
    let handle: Awaited<ReturnType<typeof runMind>> | null = null;
    handle = await runMind(db, mind.id, on("status", ({ status: s }) => s.state === "waiting" && void handle?.stop()));
    await handle.done;

    const first = server.requests[0];
    expect(first?.messages[0]).toEqual({ role: "system", content: expect.stringContaining(tinkerer.persona) });
    // The seed is the model's own earlier turn, and the start-up task comes right after it.
    expect(first?.messages.slice(1).map((m) => [m.role, m.content.split("\n")[0]])).toEqual([
      ["user", "[the trajectory so far]"],
      ["assistant", tinkerer.firstThought],
      ["user", "You are starting up. Look around (your workspace, your recent trajectory, your goals) and choose your first thought."],
    ]);
    // What it then thought is in the stream after the seed.
    const types = (await tailSteps(db, mind.id, 50)).map((s) => `${s.type}${s.source ? `/${s.source}` : ""}`);
    // Its texts are written at its first start (self/), before it is woken; the model is not shown that record.
    expect(types.slice(0, 9)).toEqual(["trajectory/system", "config/system", "thought/seed", ...Array(5).fill("self-edit/system"), "wake/monolith"]);
    expect(types).toContain("thought/monolith");
  });
});
