// lib/eval/scenario.ts: a persistent-agency scenario file (issue 23). The
// issue's own example parses; every kind of mistake is an error naming the
// field and the event's index; the JSON Schema in eval/ is the one the code
// checks with.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkScenario, parseScenario, scenarioJsonSchema } from "@/lib/eval/scenario";
import { EXAMPLE } from "../helpers/eval-example";

/** A scenario as parsed JSON, whose any field a case may change or break. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

/** The example with `change` applied to a deep copy. */
function variant(change: (s: Doc) => void): unknown {
  const s = structuredClone(EXAMPLE) as Doc;
  change(s);
  return s;
}

const errorsOf = (json: unknown) => {
  const r = checkScenario(json);
  return r.ok ? [] : r.errors;
};

describe("a scenario file", () => {
  it("parses the issue's example, with the mind's default name and its events in time order", () => {
    const r = parseScenario(JSON.stringify(variant((s) => s.events.reverse())));
    if (!r.ok) throw new Error(r.errors.join("\n"));
    expect(r.scenario.mind).toBe("Mind");
    expect(r.scenario.events.map((e) => e.at_h)).toEqual([0.5, 1, 2, 3, 50]);
    expect(r.scenario.events[4]?.probe).toEqual({ id: "cat", kind: "recall", within_h: 0.1, expect: "miso" });
    expect(r.scenario.settings).toEqual({ pacing: { base_s: 5, cap_s: 300 } });
  });

  it("keeps the file's order for events at the same hour, and takes the run's own probes", () => {
    const r = checkScenario(
      variant((s) => {
        s.events = [
          { at_h: 1, from: "Ada", message: "first" },
          { at_h: 0, from: "Bo", message: "zeroth" },
          { at_h: 1, from: "Bo", message: "second" },
        ];
        s.probes = [{ id: "each-once", kind: "once" }, { id: "cheap", kind: "budget", max_usd: 0.5 }];
      }),
    );
    if (!r.ok) throw new Error(r.errors.join("\n"));
    expect(r.scenario.events.map((e) => e.message)).toEqual(["zeroth", "first", "second"]);
    expect(r.scenario.probes?.map((p) => p.kind)).toEqual(["once", "budget"]);
  });

  it("says what is wrong with text that is not JSON", () => {
    const r = parseScenario("{ name: 'x' }");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatch(/^not JSON: /);
  });

  it("names the field, and the event's index, of each mistake", () => {
    const cases: [string, (s: Doc) => void, string][] = [
      ["no name", (s) => delete s.name, "name: "],
      ["a start that is not a date", (s) => (s.start = "Monday"), "start: start is an ISO date and time, e.g. 2026-01-05T08:00:00Z"],
      ["no people", (s) => (s.people = []), "people: a scenario has at least one person"],
      ["a negative deadline", (s) => (s.events[1].probe.within_h = -1), "events[1].probe.within_h: within_h must be more than 0 hours"],
      ["an unknown probe kind", (s) => (s.events[1].probe.kind = "answer"), "events[1].probe.kind: "],
      ["a misspelt field", (s) => (s.events[2].whne = 3), 'events[2]: Unrecognized key: "whne"'],
      ["a recall probe with both expect and expect_re", (s) => (s.events[4].probe.expect_re = "mi+so"), "events[4].probe.expect: a recall probe has exactly one of expect and expect_re"],
      ["a bad regular expression", (s) => (s.events[4].probe = { id: "cat", kind: "recall", within_h: 0.1, expect_re: "(miso" }), "events[4].probe.expect_re: not a valid regular expression"],
      ["an unprompted probe with a file but no text", (s) => delete s.events[3].probe.contains, "events[3].probe.kind: an unprompted probe has either file and contains, or to and one of expect and expect_re"],
      ["a workspace path out of the workspace", (s) => (s.workspace = { "../etc/passwd": "x" }), `workspace["../etc/passwd"]: a workspace path is relative, without '.', '..' or empty parts`],
      ["a pacing field the mind does not have", (s) => (s.settings.pacing.speed = 2), 'settings.pacing: Unrecognized key: "speed"'],
    ];
    for (const [what, change, error] of cases) {
      const errors = errorsOf(variant(change));
      expect(errors.length, what).toBeGreaterThan(0);
      expect(errors.some((e) => e.startsWith(error)), `${what}: ${errors.join(" | ")}`).toBe(true);
    }
  });

  it("checks what relates one field to another: people, the end, probe ids", () => {
    expect(errorsOf(variant((s) => (s.events[2].from = "Cy")))).toEqual(['events[2].from: "Cy" is not one of the people']);
    expect(errorsOf(variant((s) => (s.events[0].at_h = 200)))).toEqual(["events[0].at_h: 200 is after the scenario's end (duration_h 168)"]);
    expect(errorsOf(variant((s) => (s.events[3].probe.within_h = 166)))).toEqual(["events[3].probe.within_h: the deadline (hour 169) is after the scenario's end (duration_h 168)"]);
    expect(errorsOf(variant((s) => (s.events[2].probe.id = "reply-bo")))).toEqual(['events[2].probe.id: "reply-bo" is already the id of events[1].probe']);
    expect(errorsOf(variant((s) => (s.people = ["Ada", "Bo", "Ada"])))).toEqual(['people[2]: "Ada" is named twice']);
    expect(errorsOf(variant((s) => (s.mind = "Bo")))).toEqual(['mind: "Bo" is also one of the people']);
    expect(errorsOf(variant((s) => (s.events[3].probe = { id: "tell", kind: "unprompted", within_h: 1, to: "Cy", expect: "done" })))).toEqual(['events[3].probe.to: "Cy" is not one of the people']);
    expect(errorsOf(variant((s) => (s.probes = [{ id: "cheap", kind: "budget", max_usd: 1, within_h: 500 }])))).toEqual(["probes[0].within_h: 500 is after the scenario's end (duration_h 168)"]);
    // Several mistakes: all of them, in one go.
    expect(errorsOf(variant((s) => ((s.events[0].from = "Cy"), (s.events[1].from = "Dee"))))).toHaveLength(2);
  });

  it("has its JSON Schema in eval/scenario.schema.json, as the code checks it", () => {
    const shipped = JSON.parse(readFileSync("eval/scenario.schema.json", "utf8"));
    expect(shipped).toEqual(scenarioJsonSchema());
  });

  it("ships scenarios that check: a team's day, a week with memory, a classroom", () => {
    const files = readdirSync("eval/scenarios").filter((f) => f.endsWith(".json")).sort();
    expect(files).toEqual(["classroom.json", "team-day.json", "week-with-memory.json"]);
    for (const f of files) {
      const r = parseScenario(readFileSync(`eval/scenarios/${f}`, "utf8"));
      if (!r.ok) throw new Error(`${f}: ${r.errors.join("; ")}`);
      expect(r.scenario.events.filter((e) => e.probe).length, f).toBeGreaterThan(0);
    }
    const classroom = parseScenario(readFileSync("eval/scenarios/classroom.json", "utf8"));
    if (!classroom.ok) throw new Error("unreachable");
    // Thirty students within ten minutes, each with a reply probe.
    expect(classroom.scenario.people).toHaveLength(30);
    expect(classroom.scenario.events.filter((e) => e.probe?.kind === "reply")).toHaveLength(30);
    expect(Math.max(...classroom.scenario.events.map((e) => e.at_h))).toBeLessThanOrEqual(10 / 60);
  });
});
