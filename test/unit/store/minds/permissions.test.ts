// The permissions contract: which URLs an allow-list lets through, which
// prefixes it accepts, the defaults, and that a change is recorded as a step.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ReverieDb } from "@/lib/store/db/db";
import { DEFAULT_BUDGET } from "@/lib/mind/budget/budget";
import { createMind, getMind, setRunning, updateSettings } from "@/lib/store/minds/minds";
import { tailSteps } from "@/lib/store/steps/steps";
import { DEFAULT_PERMISSIONS, Permissions, UrlPrefix, urlAllowed } from "@/lib/trajectory/permissions";
import { openTestDb } from "../../helpers/db";

describe("urlAllowed", () => {
  const allow = ["https://a.com/v1"];
  const cases: [string, boolean][] = [
    ["https://a.com/v1", true],
    ["https://a.com/v1/", true],
    ["https://a.com/v1/x", true],
    ["https://a.com/v1/x/y?q=1", true],
    ["https://a.com/v10", false],
    ["https://a.com/v1-admin", false],
    ["https://a.com/", false],
    ["https://a.com/v2/x", false],
    // The origin must match: scheme, host and port.
    ["http://a.com/v1", false],
    ["https://a.com:8443/v1", false],
    ["https://b.a.com/v1", false],
    ["https://a.com.evil.net/v1", false],
    ["not a url", false],
  ];
  it("lets through the prefix's origin, and paths under it at a segment boundary", () => {
    expect(cases.map(([url]) => [url, urlAllowed(url, allow)])).toEqual(cases);
  });

  it("a prefix ending in / allows what is under it (not the bare /v1); a bare origin allows every path of it", () => {
    expect(["https://a.com/v1/", "https://a.com/v1/x", "https://a.com/v1", "https://a.com/v10"].map((u) => urlAllowed(u, ["https://a.com/v1/"]))).toEqual([true, true, false, false]);
    expect(["https://a.com/", "https://a.com/anything/at/all", "https://b.com/"].map((u) => urlAllowed(u, ["https://a.com"]))).toEqual([true, true, false]);
  });

  it("an empty list allows nothing", () => {
    expect(urlAllowed("https://a.com/v1", [])).toBe(false);
  });
});

describe("UrlPrefix", () => {
  it("accepts full http(s) URLs, trimmed", () => {
    expect(["https://api.example.com/v1/", "  http://localhost:8080  ", "https://a.com"].map((s) => UrlPrefix.safeParse(s).data)).toEqual([
      "https://api.example.com/v1/",
      "http://localhost:8080",
      "https://a.com",
    ]);
  });

  it("refuses other schemes, relative URLs and URLs with credentials", () => {
    const refused = ["ftp://a.com/", "file:///etc/passwd", "javascript:alert(1)", "/v1/models", "a.com/v1", "", "https://user:pw@a.com/", "https://user@a.com/"];
    expect(refused.map((s) => UrlPrefix.safeParse(s).success)).toEqual(refused.map(() => false));
    expect(UrlPrefix.safeParse("ftp://a.com/").error?.issues.map((i) => i.message)).toEqual(["an allowed URL must be a full http(s) URL such as https://api.example.com/v1/"]);
  });
});

describe("Permissions", () => {
  it("an empty object is the defaults: no network, no Node, the default limits", () => {
    expect(Permissions.parse({})).toEqual({
      network: { allow: [] },
      webcontainer: false,
      limits: { silence_s: 60, wall_s: 900, max_commands: 100_000, max_output_bytes: 1024 * 1024, max_workspace_bytes: 256 * 1024 * 1024, recursion_depth: 2, child_iterations: 8 },
    });
    expect(Permissions.parse({})).toEqual(DEFAULT_PERMISSIONS);
  });

  it("refuses limits out of range", () => {
    const bad = [{ silence_s: 0 }, { recursion_depth: 9 }, { child_iterations: 1.5 }, { max_output_bytes: 64 * 1024 * 1024 + 1 }];
    expect(bad.map((l) => Permissions.safeParse({ limits: { ...DEFAULT_PERMISSIONS.limits, ...l } }).success)).toEqual([false, false, false, false]);
  });
});

describe("permissions of a mind", () => {
  let db: ReverieDb;
  beforeEach(async () => {
    db = await openTestDb("permissions-test");
  });
  afterEach(async () => {
    await db.delete();
  });

  const model = { provider: "openai-compatible" as const, baseURL: "http://127.0.0.1:9/v1", model: "m1", apiKey: "fake-key-for-tests" };
  const settings = { model, pacing: { base_s: 5, cap_s: 300, ticks_per_level: 3 }, max_iterations: 12 };

  it("are declared at creation and recorded in the first config step", async () => {
    const permissions = { ...DEFAULT_PERMISSIONS, network: { allow: ["https://a.com/v1"] } };
    const mind = await createMind(db, { name: "Ada", persona: "p", model, permissions }, Date.UTC(2026, 0, 1));
    expect(mind.permissions).toEqual(permissions);
    const steps = await tailSteps(db, mind.id, 10);
    expect(steps.map((s) => (s.type === "config" ? s.permissions : s.type))).toEqual(["trajectory", permissions]);
  });

  it("changed in settings: saved, and a config step carries them", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "p", model }, Date.UTC(2026, 0, 1));
    // Stopped: its config step is appended at once (a running mind's writer takes it from its door).
    await setRunning(db, mind.id, false);
    const permissions: Permissions = {
      network: { allow: ["https://a.com/v1", "http://localhost:11434/"] },
      webcontainer: true,
      limits: { ...DEFAULT_PERMISSIONS.limits, silence_s: 30, recursion_depth: 0 },
    };
    await updateSettings(db, mind.id, { ...settings, permissions }, Date.UTC(2026, 0, 1, 1));

    expect((await getMind(db, mind.id))?.permissions).toEqual(permissions);
    const steps = await tailSteps(db, mind.id, 10);
    expect(steps.map((s) => s.type)).toEqual(["trajectory", "config", "config"]);
    const { step_id: _id, ...last } = steps[2] as Record<string, unknown>;
    expect(last).toEqual({
      type: "config",
      ts: "2026-01-01T01:00:00.000Z",
      source: "system",
      pacing: settings.pacing,
      max_iterations: 12,
      provider: "openai-compatible",
      model: "m1",
      permissions,
      budget: DEFAULT_BUDGET,
    });
  });

  it("left out of a settings change, stay as they were", async () => {
    const permissions = { ...DEFAULT_PERMISSIONS, webcontainer: true };
    const mind = await createMind(db, { name: "Ada", persona: "p", model, permissions });
    await setRunning(db, mind.id, false);
    await updateSettings(db, mind.id, settings);
    expect((await getMind(db, mind.id))?.permissions).toEqual(permissions);
    const steps = await tailSteps(db, mind.id, 10);
    expect(steps[2]?.type === "config" && steps[2].permissions).toEqual(permissions);
  });

  it("a bad allow-list entry refuses the whole change", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "p", model });
    await expect(updateSettings(db, mind.id, { ...settings, permissions: { ...DEFAULT_PERMISSIONS, network: { allow: ["ftp://a.com/"] } } })).rejects.toThrow();
    expect((await getMind(db, mind.id))?.permissions).toEqual(DEFAULT_PERMISSIONS);
    expect((await tailSteps(db, mind.id, 10)).map((s) => s.type)).toEqual(["trajectory", "config"]);
  });
});
