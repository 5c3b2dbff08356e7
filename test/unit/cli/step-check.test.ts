// cli/step-check.ts checks lines against the step schemas (and tiers.jsonl's)
// compiled to plain JavaScript at build time (cli/step-check-gen.ts), so
// `reverie context` loads no zod. Its answers must be zod's: held here to
// checkStep and readTierLines on a valid value of every kind and on each
// value broken field by field. Where it cannot tell it says undefined (the
// caller then asks zod); it must tell for the valid steps the context shows.
import { describe, expect, it } from "vitest";
import { checkStepValue, checkTierValue } from "@/cli/step-check";
import { readTierLines } from "@/lib/context/rollups";
import { checkStep, KNOWN_KINDS } from "@/lib/trajectory/schema";

const ID = (n: number) => `${n.toString(16).padStart(8, "0")}-0000-4000-8000-aaaaaaaaaaaa`;
const base = (type: string, n: number) => ({ type, step_id: ID(n), ts: "2026-01-01T08:00:00.000Z" });
const SHA = "a".repeat(64);

/** A valid step of every kind the schemas know, with its optional fields where it has some. */
const VALID: Record<string, object> = {
  trajectory: { ...base("trajectory", 1), name: "wren", parent_traj: ID(2) },
  "shellm-run": { ...base("shellm-run", 3), model: "m", launched_by: "monolith", wake: ID(4) },
  prompt: { ...base("prompt", 5), content: "wake", run_id: ID(3), trigger_step: ID(4) },
  reasoning: { ...base("reasoning", 6), thought: "t", cmd: "ls", in_tok: 1, out_tok: 2, usage: { input_tokens: 3, output_tokens: 4, usd: 0.1, model: "m" } },
  "shell-output": { ...base("shell-output", 7), stdout: "out", stderr: "", exit: 0, exec_s: 0.2, stdout_ref: "blobs/x", stdout_bytes: 9, stdout_truncated: true },
  feedback: { ...base("feedback", 8), content: "f" },
  final: { ...base("final", 9), content: "idle" },
  error: { ...base("error", 10), content: "e", reason: "timeout" },
  "run-summary": { ...base("run-summary", 11), content: "s" },
  thought: { ...base("thought", 12), content: "c", source: "monolith", usage: { input_tokens: 1, output_tokens: 1 } },
  action: { ...base("action", 13), content: "a" },
  observation: { ...base("observation", 14), content: "o", decision: "replied" },
  idle: { ...base("idle", 15) },
  message: { ...base("message", 16), content: "hi", from: "ada", to: "wren", reply_to: ID(15), role: "guest" },
  fork: { ...base("fork", 17), child: ID(18), child_ref: "c/" },
  merge: { ...base("merge", 19), content: "m", from_traj: ID(18), from_step: ID(20), from_traj_ref: "c/" },
  wake: { ...base("wake", 21), reason: "scheduled", level: 2, delay_s: 5, home: "server", epoch: 3 },
  "monolith-wake": { ...base("monolith-wake", 22), content: "wake" },
  alarm: { ...base("alarm", 23), op: "set", alarm: ID(23), at: "2026-01-02T09:00:00Z", note: "call Ada" },
  config: { ...base("config", 24), pacing: { base_s: 5, cap_s: 300, ticks_per_level: 3 }, max_iterations: 8, model: "m", provider: "openai" },
  "self-edit": { ...base("self-edit", 25), path: "self/instructions.md", before: SHA, after: null, diff: "-a", by: { kind: "mind", run: ID(3), traj: ID(1) }, content: "I changed it" },
  "a-kind-this-version-does-not-know": { ...base("a-kind-this-version-does-not-know", 26), anything: [1, { a: 2 }] },
};

const WRONG: unknown[] = [42, -1, 1.5, "x", "", null, true, {}, [], "not-a-uuid", "2026-13-45T99:99:99Z", ID(99)];

/** A value as a line of JSON gives it back: what the checks are ever handed. */
const asRead = (v: object): object => JSON.parse(JSON.stringify(v)) as object;

/** Each valid value, and for each of its fields: without it, with each wrong value, and one field more. */
function variants(): object[] {
  const out: object[] = [];
  for (const v of Object.values(VALID)) {
    out.push(v, { ...v, extra: { deep: [1, "x"] } });
    for (const key of Object.keys(v)) {
      const { [key]: _gone, ...without } = v as Record<string, unknown>;
      out.push(without);
      for (const w of WRONG) out.push({ ...v, [key]: w });
      const inner = (v as Record<string, unknown>)[key];
      if (inner && typeof inner === "object" && !Array.isArray(inner)) {
        for (const k of Object.keys(inner)) for (const w of WRONG) out.push({ ...v, [key]: { ...inner, [k]: w } });
      }
    }
  }
  return out.map(asRead);
}

describe("the compiled step checks", () => {
  it("have a valid example of every kind the schemas know", () => {
    expect(Object.keys(KNOWN_KINDS).filter((k) => !(k in VALID))).toEqual([]);
  });

  it("say what checkStep says wherever they answer, and answer for every valid step but a config's", () => {
    const all = variants();
    const disagree = all.filter((v) => {
      const fast = checkStepValue(v);
      return fast !== undefined && fast !== checkStep(v).ok;
    });
    expect(disagree).toEqual([]);
    // A rejection zod's runtime must confirm (a refinement can throw rather than reject): the caller asks zod, so the checks may not answer.
    const valid = all.filter((v) => checkStep(v).ok && (v as { type?: unknown }).type !== "config");
    expect(valid.filter((v) => checkStepValue(v) !== true)).toEqual([]);
    expect([all.length > 1500, valid.length > 100]).toEqual([true, true]);
  });

  it("answer for every valid step that checkStep keeps as it is (every kind but config, whose parse fills in defaults)", () => {
    const unanswered = Object.entries(VALID).filter(([, v]) => checkStepValue(v) !== true).map(([kind]) => kind);
    expect(unanswered).toEqual(["config"]);
  });
});

describe("the compiled tiers.jsonl check", () => {
  const line = { tier: 1, index: 3, content: "s", cites: [ID(1)], first_step: ID(1), last_step: ID(2), steps: 100, first_seq: 4, last_seq: 8, model: "m" };
  const { cites: _none, ...noCites } = line;
  const lines: object[] = [line, noCites];
  for (const key of Object.keys(line)) {
    const { [key as keyof typeof line]: _gone, ...without } = line;
    lines.push(without);
    for (const w of [...WRONG, 0, [""], ["a", 1]]) lines.push({ ...line, [key]: w });
  }

  it("says what readTierLines says of every line it answers for, and answers for the valid ones", () => {
    for (const v of lines.map(asRead)) {
      const zod = readTierLines(JSON.stringify(v)).lines.length === 1;
      const fast = checkTierValue(v);
      expect([v, fast ?? zod, zod ? fast : zod]).toEqual([v, zod, zod]);
    }
  });
});
