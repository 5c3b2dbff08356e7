// lib/trajectory/headlong.ts: Headlong's folder layout (names, what each
// archive path is) and its tolerant line reader, which skips junk with a
// reason, keeps unknown kinds whole, keeps a line that is not a valid step as
// an InvalidLine (never typed as a step) and keeps the raw line for export.
import { describe, expect, it } from "vitest";
import { classifyPath, InvalidLine, keptLine, parentDir, readLine, slugify, trajDirName } from "@/lib/trajectory/headlong";
import { isKind } from "@/lib/trajectory/schema";

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const RUN = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const TS = "2026-11-30T17:44:36.123Z";

describe("slugify", () => {
  it.each([
    ["monolith", "monolith"],
    ["My Mind: v2.0!", "my-mind-v2.0"],
    ["  spaced   out  ", "spaced-out"],
    ["under_score.and-dash", "under_score.and-dash"],
    ["UPPER/lower\\back", "upper-lower-back"],
    // Accents are dropped, not turned into dashes; compatibility forms are folded.
    ["Café Ünïcødé", "cafe-unic-de"],
    ["Über", "uber"],
    ["İstanbul", "istanbul"],
    ["ﬁle Ⅻ", "file-xii"],
    // Nothing usable left: a fixed name, never empty.
    ["日本語 🙂", "trajectory"],
    ["", "trajectory"],
    ["---", "trajectory"],
    // No hidden folders, no "..".
    ["..", "trajectory"],
    ["...hidden", "hidden"],
    ["-.-x-", "x"],
  ])("%j → %j", (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it("cuts at 60 characters, and drops a dash the cut leaves at the end", () => {
    expect(slugify("a".repeat(100))).toBe("a".repeat(60));
    expect(slugify(`${"a".repeat(59)} bcd`)).toBe("a".repeat(59));
    expect(slugify(`${"é".repeat(70)}`)).toBe("e".repeat(60));
  });

  it("always gives 1 to 60 characters of [a-z0-9._-], not starting with a dot or dash", () => {
    const alphabet = [..."aZ9 ._-/\\:é漢🙂\u0301\t\nßØ"];
    let x = 7;
    for (let i = 0; i < 500; i++) {
      let name = "";
      const length = i % 90;
      for (let j = 0; j < length; j++) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        name += alphabet[(x >>> 16) % alphabet.length];
      }
      expect(slugify(name), JSON.stringify(name)).toMatch(/^[a-z0-9_][a-z0-9._-]{0,59}$/);
    }
  });
});

describe("trajDirName", () => {
  it("is the id's first 8 hex digits, a dash, and the slug", () => {
    expect(trajDirName(ID, "Main Mind")).toBe("0f8fad5b-main-mind");
    expect(trajDirName(ID, "日本語")).toBe("0f8fad5b-trajectory");
    // Dashes in the id do not count as digits.
    expect(trajDirName("0f8f-ad5b-d9cb", "x")).toBe("0f8fad5b-x");
  });
});

describe("classifyPath", () => {
  it.each([
    ["trajectory.jsonl", { kind: "trajectory", dir: "" }],
    ["0f8fad5b-main/trajectory.jsonl", { kind: "trajectory", dir: "0f8fad5b-main" }],
    ["0f8fad5b-main/7c9e6679-child/trajectory.jsonl", { kind: "trajectory", dir: "0f8fad5b-main/7c9e6679-child" }],
    ["./export/0f8fad5b-main/trajectory.jsonl", { kind: "trajectory", dir: "export/0f8fad5b-main" }],
    ["0f8fad5b-main\\7c9e6679-child\\trajectory.jsonl", { kind: "trajectory", dir: "0f8fad5b-main/7c9e6679-child" }],
    ["blobs/x.stdout", { kind: "blob", dir: "", name: "x.stdout" }],
    ["0f8fad5b-main/blobs/x.stdout", { kind: "blob", dir: "0f8fad5b-main", name: "x.stdout" }],
    ["0f8fad5b-main/7c9e6679-child/blobs/x.stderr", { kind: "blob", dir: "0f8fad5b-main/7c9e6679-child", name: "x.stderr" }],
    ["0f8fad5b-main/blobs/sub/x.stdout", { kind: "blob", dir: "0f8fad5b-main", name: "sub/x.stdout" }],
    ["mind.json", { kind: "mind" }],
    ["./mind.json", { kind: "mind" }],
    ["export/mind.json", { kind: "mind" }],
    ["export/0f8fad5b-main/mind.json", { kind: "other" }],
    ["0f8fad5b-main/blobs/", { kind: "other" }],
    ["0f8fad5b-main/", { kind: "other" }],
    ["0f8fad5b-main/notes.txt", { kind: "other" }],
    ["0f8fad5b-main/trajectory.json", { kind: "other" }],
    ["README.md", { kind: "other" }],
  ])("%s", (path, role) => {
    expect(classifyPath(path)).toEqual(role);
  });
});

describe("parentDir", () => {
  const dirs = new Set(["", "a", "a/b", "x/y"]);

  it("is the nearest trajectory folder above, skipping folders that hold none", () => {
    expect(parentDir("a/b/c", dirs)).toBe("a/b");
    expect(parentDir("a/b", dirs)).toBe("a");
    expect(parentDir("a/other/c", dirs)).toBe("a");
    expect(parentDir("x/y/z", dirs)).toBe("x/y");
    // A lone trajectory.jsonl at the top is the parent of top-level folders.
    expect(parentDir("a", dirs)).toBe("");
    expect(parentDir("x", dirs)).toBe("");
  });

  it("is undefined at the top, and when no folder above holds a trajectory", () => {
    expect(parentDir("", dirs)).toBeUndefined();
    expect(parentDir("x/q", new Set(["a"]))).toBeUndefined();
    expect(parentDir("a", new Set(["a"]))).toBeUndefined();
  });
});

describe("readLine", () => {
  it.each([
    ["", "blank"],
    ["   \t ", "blank"],
    ["not json", "not JSON"],
    ['{"type":"thought","step_id":', "not JSON"],
    ["[1,2,3]", "not a JSON object"],
    ["null", "not a JSON object"],
    ["42", "not a JSON object"],
    ['"a string"', "not a JSON object"],
    [`{"step_id":"${ID}","ts":"${TS}"}`, "no type or step_id"],
    [`{"type":"thought","ts":"${TS}","content":"x"}`, "no type or step_id"],
    [`{"type":"","step_id":"${ID}"}`, "no type or step_id"],
    [`{"type":"thought","step_id":""}`, "no type or step_id"],
    [`{"type":7,"step_id":"${ID}"}`, "no type or step_id"],
    [`{"type":"thought","step_id":12345}`, "no type or step_id"],
  ])("rejects %j: %s", (line, reason) => {
    expect(readLine(line)).toEqual({ ok: false, reason });
  });

  it("keeps a valid step, with the raw line exactly as written (escapes and key order included)", () => {
    const line = `{"ts":"${TS}","step_id":"${ID}","type":"thought","content":"caf\\u00e9 \\"quoted\\" 漢字","run_id":"${RUN}"}`;
    expect(readLine(line)).toEqual({
      ok: true,
      raw: line,
      valid: true,
      step: { type: "thought", step_id: ID, ts: TS, content: 'café "quoted" 漢字', run_id: RUN },
    });
  });

  it("keeps a step of an unknown kind with all its fields", () => {
    const step = { type: "telemetry", step_id: ID, ts: TS, source: "probe", nested: { list: [1, "two", null], flag: false }, n: 1.5 };
    const line = JSON.stringify(step);
    expect(readLine(line)).toEqual({ ok: true, step, raw: line, valid: true });
  });

  it("keeps a known kind that lacks required fields as an invalid line, not a step: its raw text, why, and where it sits", () => {
    const value = { type: "reasoning", step_id: ID, ts: TS, thought: "no command", run_id: RUN, extra: [1] };
    const line = JSON.stringify(value);
    const invalid = new InvalidLine({ type: "reasoning", step_id: ID, ts: TS, run_id: RUN, raw: line, error: "reasoning: cmd: Invalid input: expected string, received undefined" });
    const r = readLine(line);
    expect(r).toEqual({ ok: true, valid: false, invalid, raw: line });
    expect(keptLine(r)).toBeInstanceOf(InvalidLine);
  });

  it("keeps a line without a usable ts or with a non-UUID id as an invalid line, its ts \"\" when it is not a string", () => {
    const noTs = JSON.stringify({ type: "thought", step_id: ID, content: "x" });
    expect(keptLine(readLine(noTs))).toEqual(new InvalidLine({ type: "thought", step_id: ID, ts: "", raw: noTs, error: "ts: Invalid input: expected string, received undefined" }));
    const numericTs = JSON.stringify({ type: "custom", step_id: ID, ts: 1764524676, source: 7, trigger_step: RUN });
    expect(keptLine(readLine(numericTs))).toEqual(
      new InvalidLine({ type: "custom", step_id: ID, ts: "", trigger_step: RUN, raw: numericTs, error: "ts: Invalid input: expected string, received number; source: Invalid input: expected string, received number" }),
    );
    const oddId = JSON.stringify({ type: "custom", step_id: "step-1", ts: TS });
    expect(keptLine(readLine(oddId))).toEqual(new InvalidLine({ type: "custom", step_id: "step-1", ts: TS, raw: oddId, error: "step_id: step_id must be a UUID" }));
  });

  it("an invalid message (no from) is never a step, so isKind cannot be told it is a message", () => {
    const line = JSON.stringify({ type: "message", step_id: ID, ts: TS, content: "hi", to: "ada" });
    const r = readLine(line);
    expect(r.ok && r.valid).toBe(false);
    const kept = keptLine(r);
    expect(kept).toBeInstanceOf(InvalidLine);
    // The only way to a Step is through `valid`: there is no step here for isKind to narrow.
    const steps = [kept].flatMap((l) => (l && !(l instanceof InvalidLine) ? [l] : []));
    expect(steps.filter((s) => isKind(s, "message"))).toEqual([]);
  });

  it("trims whitespace around the line (so raw is the trimmed line)", () => {
    const line = `{"type":"thought","step_id":"${ID}","ts":"${TS}","content":"x"}`;
    expect(readLine(`  ${line}\t`)).toMatchObject({ ok: true, raw: line, valid: true });
  });
});

describe("keptLine", () => {
  it("is the step of a valid line, undefined for a line readers skip", () => {
    const step = { type: "thought", step_id: ID, ts: TS, content: "x" };
    expect(keptLine(readLine(JSON.stringify(step)))).toEqual(step);
    expect(keptLine(readLine(JSON.stringify(step)))).not.toBeInstanceOf(InvalidLine);
    expect(keptLine(readLine("not json"))).toBeUndefined();
    expect(keptLine(readLine(""))).toBeUndefined();
  });
});
