// lib/trajectory/schema.ts: every step read back goes through parseStep, so
// what it accepts, rejects and keeps is the contract of the whole log.
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { COMPILE_AFTER, parsesAsWritten } from "@/lib/trajectory/compiled";
import { checkStep, formatTs, isKnownKind, KNOWN_KINDS, parseStep, type KnownKind } from "@/lib/trajectory/schema";

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const ID2 = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const ID3 = "16fd2706-8baf-433b-82eb-8c7fada847da";
const TS = "2026-11-30T17:44:36.123Z";

/** For each known kind: the fields it requires (beyond type/step_id/ts), with valid values. */
const REQUIRED: Record<KnownKind, Record<string, unknown>> = {
  trajectory: {},
  "shellm-run": {},
  prompt: { content: "the prompt" },
  reasoning: { thought: "hmm", cmd: "ls" },
  // exec_s and timed_out may be left out: some of Headlong's logs (its fixtures) have neither (TRAJECTORY.md).
  "shell-output": { stdout: "out", stderr: "err", exit: 0 },
  feedback: { content: "try again" },
  final: { content: "done" },
  error: { content: "boom", reason: "model" },
  "run-summary": {},
  thought: { content: "a thought" },
  action: { content: "an action" },
  observation: { content: "I saw" },
  idle: {},
  message: { content: "hello", from: "you", to: "ada" },
  fork: { child: ID2, child_ref: "7c9e6679-child" },
  merge: { content: "answer", from_traj: ID2, from_step: ID3, from_traj_ref: "7c9e6679-child" },
  wake: { reason: "scheduled", level: 2, delay_s: 10 },
  "monolith-wake": {},
  alarm: { op: "cancel", alarm: ID2 },
  config: {
    pacing: { base_s: 5, cap_s: 300, ticks_per_level: 3 },
    max_iterations: 12,
    model: "llama3",
    provider: "openai-compatible",
  },
  "self-edit": {
    path: "self/instructions.md",
    before: null,
    after: "a".repeat(64),
    diff: "--- /dev/null\n+++ b/self/instructions.md\n@@ -0,0 +1 @@\n+hi\n",
    by: { kind: "mind", run: ID2, traj: ID3 },
    content: "I created self/instructions.md (1 line).",
  },
};

const stepOf = (type: string, fields: Record<string, unknown> = {}) => ({ type, step_id: ID, ts: TS, ...fields });

describe("parseStep: known kinds", () => {
  it("the table above covers exactly the known kinds", () => {
    expect(Object.keys(REQUIRED).sort()).toEqual(Object.keys(KNOWN_KINDS).sort());
  });

  for (const [type, fields] of Object.entries(REQUIRED)) {
    it(`${type} parses with its required fields, unchanged`, () => {
      const input = stepOf(type, fields);
      expect(parseStep(input)).toEqual({ ok: true, step: input });
    });

    for (const field of Object.keys(fields)) {
      it(`${type} without ${field} is rejected, naming ${field}`, () => {
        const input: Record<string, unknown> = stepOf(type, fields);
        delete input[field];
        const r = parseStep(input);
        expect(r.ok).toBe(false);
        if (r.ok) return;
        expect(r.error.startsWith(`${type}: `)).toBe(true);
        expect(r.error).toMatch(new RegExp(`(^|[ ;])${field}: `));
      });
    }
  }

  it("shell-output keeps exec_s and timed_out when it has them, and a wrong type is still rejected", () => {
    const input = stepOf("shell-output", { ...REQUIRED["shell-output"], exec_s: 0.25, timed_out: false });
    expect(parseStep(input)).toEqual({ ok: true, step: input });
    const r = parseStep(stepOf("shell-output", { ...REQUIRED["shell-output"], exec_s: "fast" }));
    expect(r.ok ? "" : r.error).toMatch(/^shell-output: exec_s: /);
  });

  it("a field of the wrong type is rejected with its path", () => {
    const r = parseStep(stepOf("config", { ...REQUIRED.config, pacing: { base_s: -1, cap_s: 300, ticks_per_level: 3 } }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^config: pacing\.base_s: /);
  });

  it("a wake with an unknown reason is rejected", () => {
    const r = parseStep(stepOf("wake", { ...REQUIRED.wake, reason: "boredom" }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^wake: reason: /);
  });

  it("an alarm's set step has its time and note and names itself; cancel and rang name the set step", () => {
    const set = stepOf("alarm", { op: "set", alarm: ID, at: "2026-12-01T09:00:00.000Z", note: "call Ada" });
    expect(parseStep(set)).toEqual({ ok: true, step: set });
    expect(checkStep(set)).toEqual({ ok: true, step: set });
    const refused = "alarm: (step): an alarm's set step has its time (at) and note, and names itself (alarm = its step_id)";
    expect(parseStep(stepOf("alarm", { op: "set", alarm: ID, note: "call Ada" }))).toEqual({ ok: false, error: refused });
    expect(parseStep(stepOf("alarm", { op: "set", alarm: ID, at: "2026-12-01T09:00:00.000Z" }))).toEqual({ ok: false, error: refused });
    expect(parseStep(stepOf("alarm", { op: "set", alarm: ID2, at: "2026-12-01T09:00:00.000Z", note: "call Ada" }))).toEqual({ ok: false, error: refused });
    expect(parseStep(stepOf("alarm", { op: "set", alarm: ID, at: "tomorrow", note: "call Ada" }))).toEqual({ ok: false, error: "alarm: at: ts must be an ISO 8601 time" });
    expect(parseStep(stepOf("alarm", { op: "snooze", alarm: ID2 })).ok).toBe(false);
    expect(parseStep(stepOf("alarm", { op: "rang", alarm: ID2 }))).toEqual({ ok: true, step: stepOf("alarm", { op: "rang", alarm: ID2 }) });
  });

  it("an observation's decision must be one of the three", () => {
    expect(parseStep(stepOf("observation", { content: "x", decision: "replied" })).ok).toBe(true);
    expect(parseStep(stepOf("observation", { content: "x", decision: "maybe" })).ok).toBe(false);
  });

  it("extra fields on a known kind survive", () => {
    const input = stepOf("message", {
      ...REQUIRED.message,
      source: "chat",
      run_id: ID2,
      trigger_step: ID3,
      headlong_extra: { nested: [1, "two", null] },
      priority: 3,
    });
    expect(parseStep(input)).toEqual({ ok: true, step: input });
  });

  it("a child trajectory header keeps its parent links", () => {
    const input = stepOf("trajectory", { parent_traj: ID2, parent_step: ID3, parent_traj_ref: ".." });
    expect(parseStep(input)).toEqual({ ok: true, step: input });
  });

  it("a known kind with a bad run_id is rejected", () => {
    const r = parseStep(stepOf("final", { content: "x", run_id: "run-1" }));
    expect(r).toEqual({ ok: false, error: "run_id: step_id must be a UUID" });
  });
});

describe("parseStep: unknown kinds", () => {
  it("are kept with all their fields", () => {
    const input = stepOf("headlong-future-kind", { content: "?", score: 0.5, tags: ["a", "b"], deep: { x: { y: 1 } } });
    expect(parseStep(input)).toEqual({ ok: true, step: input });
  });

  it("still need a UUID step_id and a valid ts", () => {
    expect(parseStep({ type: "whatever", step_id: "nope", ts: TS }).ok).toBe(false);
    expect(parseStep({ type: "whatever", step_id: ID, ts: "yesterday-ish" }).ok).toBe(false);
  });
});

describe("parseStep: rejections of the step head", () => {
  const cases: [string, unknown][] = [
    ["null", null],
    ["a string", "{\"type\":\"final\"}"],
    ["a number", 42],
    ["an array", [stepOf("final", { content: "x" })]],
    ["no type", { step_id: ID, ts: TS }],
    ["a non-string type", { type: 7, step_id: ID, ts: TS }],
    ["no step_id", { type: "idle", ts: TS }],
    ["a non-UUID step_id", { type: "idle", step_id: "0f8fad5b-d9cb-469f-a165", ts: TS }],
    ["a step_id with a non-hex digit", { type: "idle", step_id: "0f8fad5b-d9cb-469f-a165-70867728950g", ts: TS }],
    ["no ts", { type: "idle", step_id: ID }],
    ["an unparseable ts", { type: "idle", step_id: ID, ts: "2026-13-45T99:00:00Z" }],
    ["an empty ts", { type: "idle", step_id: ID, ts: "" }],
    ["a numeric ts", { type: "idle", step_id: ID, ts: 1_700_000_000_000 }],
  ];
  for (const [name, value] of cases) {
    it(`rejects ${name}`, () => {
      const r = parseStep(value);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.length).toBeGreaterThan(0);
    });
  }

  it("names the step_id in its message", () => {
    expect(parseStep({ type: "idle", step_id: "x", ts: TS })).toEqual({ ok: false, error: "step_id: step_id must be a UUID" });
  });

  it("names the ts in its message", () => {
    expect(parseStep({ type: "idle", step_id: ID, ts: "garbage" })).toEqual({ ok: false, error: "ts: ts must be an ISO 8601 time" });
  });

  it("says (step) when the whole value is wrong", () => {
    const r = parseStep(null);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^\(step\): /);
  });
});

describe("parseStep: what it accepts", () => {
  it("accepts timestamps with offsets, as older logs carry", () => {
    for (const ts of ["2025-01-02T03:04:05+02:00", "2025-01-02T03:04:05.678-05:30", "2025-01-02T03:04:05Z"]) {
      const input = { type: "idle", step_id: ID, ts };
      expect(parseStep(input)).toEqual({ ok: true, step: input });
    }
  });

  it("accepts upper-case UUIDs and UUIDs of other versions", () => {
    for (const step_id of [ID.toUpperCase(), "00000000-0000-1000-8000-000000000000"]) {
      const input = { type: "idle", step_id, ts: TS };
      expect(parseStep(input)).toEqual({ ok: true, step: input });
    }
  });

  it("keeps multibyte text exactly", () => {
    const content = "héllo wörld — 日本語 🧠👩‍👩‍👧 \u0000 end";
    const input = stepOf("message", { from: "ダ", to: "ada 🌊", content });
    expect(parseStep(input)).toEqual({ ok: true, step: input });
    const back = parseStep(JSON.parse(JSON.stringify(input)));
    expect(back).toEqual({ ok: true, step: input });
  });

  it("does not mutate its input", () => {
    const input = stepOf("message", { ...REQUIRED.message, extra: { a: 1 } });
    const copy = structuredClone(input);
    parseStep(input);
    expect(input).toEqual(copy);
  });
});

describe("isKnownKind", () => {
  it("is true for every known kind", () => {
    for (const k of Object.keys(KNOWN_KINDS)) expect(isKnownKind(k)).toBe(true);
  });

  it("is false for unknown kinds and for Object.prototype names", () => {
    for (const k of ["", "Message", "headlong-future", "toString", "constructor", "__proto__", "hasOwnProperty"]) {
      expect(isKnownKind(k)).toBe(false);
    }
  });
});

describe("formatTs", () => {
  it("writes UTC with milliseconds", () => {
    expect(formatTs(0)).toBe("1970-01-01T00:00:00.000Z");
    expect(formatTs(Date.UTC(2026, 10, 30, 17, 44, 36, 123))).toBe("2026-11-30T17:44:36.123Z");
    expect(formatTs(Date.UTC(2025, 0, 2, 3, 4, 5, 7))).toBe("2025-01-02T03:04:05.007Z");
  });

  it("always matches YYYY-MM-DDTHH:MM:SS.mmmZ and parses back to the same instant", () => {
    for (const ms of [1, 999, 1_000, 1_700_000_000_000, Date.UTC(2099, 11, 31, 23, 59, 59, 999)]) {
      const s = formatTs(ms);
      expect(s).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(s)).toBe(ms);
      expect(parseStep({ type: "idle", step_id: ID, ts: s }).ok).toBe(true);
    }
  });
});

describe("checkStep (the command line's context reads a long log through it)", () => {
  it("every kind but config is parsed as written: its schema gives back what it is given", () => {
    expect(Object.keys(KNOWN_KINDS).filter((k) => !parsesAsWritten(KNOWN_KINDS[k as KnownKind]))).toEqual(["config"]);
  });

  it("tells a schema that changes a value from one that does not", () => {
    expect(parsesAsWritten(z.looseObject({ a: z.string().optional(), n: z.number().int().min(0), e: z.enum(["x"]), l: z.array(z.looseObject({ b: z.boolean() })) }))).toBe(true);
    expect(parsesAsWritten(z.object({ a: z.string() }))).toBe(false); // drops unknown keys
    expect(parsesAsWritten(z.discriminatedUnion("k", [z.looseObject({ k: z.literal("a") }), z.looseObject({ k: z.literal("b"), n: z.number() })]))).toBe(true);
    expect(parsesAsWritten(z.union([z.looseObject({ k: z.literal("a") }), z.object({ k: z.literal("b") })]))).toBe(false);
    expect(parsesAsWritten(z.looseObject({ a: z.string().trim() }))).toBe(false);
    expect(parsesAsWritten(z.looseObject({ a: z.string().default("x") }))).toBe(false);
    expect(parsesAsWritten(z.looseObject({ a: z.string().catch("x") }))).toBe(false);
    expect(parsesAsWritten(z.looseObject({ a: z.string().transform((v) => v.length) }))).toBe(false);
    expect(parsesAsWritten(z.looseObject({ a: z.looseObject({ b: z.number().optional().default(1) }) }))).toBe(false);
  });

  for (const [type, fields] of Object.entries(REQUIRED)) {
    it(`${type}: the same step as parseStep (the value itself where the schema changes nothing), the same errors`, () => {
      const input = stepOf(type, { ...fields, extra: { kept: [1, "two"] } });
      const checked = checkStep(input);
      expect(checked).toEqual(parseStep(input));
      if (type !== "config") expect(checked.ok && checked.step).toBe(input);
      for (const field of Object.keys(fields)) {
        const broken: Record<string, unknown> = stepOf(type, fields);
        delete broken[field];
        expect(checkStep(broken)).toEqual(parseStep(broken));
        expect(checkStep({ ...broken, [field]: Symbol.for("not JSON") })).toEqual(parseStep({ ...broken, [field]: Symbol.for("not JSON") }));
      }
    });
  }

  it("a config step's defaults are filled in, as parseStep fills them", () => {
    const input = stepOf("config", { ...REQUIRED.config, permissions: { network: { allow: [] } } });
    const checked = checkStep(input);
    expect(checked).toEqual(parseStep(input));
    expect(checked.ok && checked.step).not.toBe(input);
  });

  it("unknown kinds and bad heads answer as parseStep does", () => {
    for (const value of [stepOf("made-up", { x: 1 }), { type: "thought", step_id: "nope", ts: TS, content: "x" }, { type: "thought", step_id: ID, ts: "yesterday", content: "x" }, null, 42, "str"]) {
      expect(checkStep(value)).toEqual(parseStep(value));
    }
  });
});

describe("compiled parsers (zod's z.compile, once a kind has parsed COMPILE_AFTER steps)", () => {
  for (const [type, fields] of Object.entries(REQUIRED)) {
    it(`${type}: the same steps and the same errors before and after its schema is compiled`, () => {
      const valid = stepOf(type, { ...fields, extra: "kept" });
      const invalid = { ...stepOf(type, fields), step_id: "not-a-uuid" };
      const wrongField = Object.keys(fields)[0];
      const wrong = wrongField ? { ...stepOf(type, fields), [wrongField]: 42 } : stepOf(type, { source: 7 });
      const first = [valid, invalid, wrong].map((v) => [parseStep(v), checkStep(v)]);
      for (let i = 0; i < COMPILE_AFTER * 2; i++) parseStep(valid);
      expect([valid, invalid, wrong].map((v) => [parseStep(v), checkStep(v)])).toEqual(first);
      expect(first[0]![0]).toEqual({ ok: true, step: valid });
      expect(first[1]![0]!.ok).toBe(false);
      expect(first[2]![0]!.ok).toBe(false);
    });
  }
});

describe("a wake's home and lease epoch", () => {
  const wake = (extra: Record<string, unknown>) => ({ type: "wake", step_id: "00000000-0000-4000-8000-00000000abcd", ts: "2026-12-04T04:00:00.000Z", reason: "scheduled", level: 1, delay_s: 5, ...extra });
  it("are optional, and when given, a known home and a positive whole epoch", () => {
    expect(parseStep(wake({})).ok).toBe(true);
    expect(parseStep(wake({ home: "server", epoch: 3 }))).toMatchObject({ ok: true, step: { home: "server", epoch: 3 } });
    expect(parseStep(wake({ home: "moon" })).ok).toBe(false);
    expect(parseStep(wake({ home: "tab", epoch: 0 })).ok).toBe(false);
    expect(parseStep(wake({ home: "tab", epoch: 1.5 })).ok).toBe(false);
  });
});
