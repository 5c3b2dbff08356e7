// A line that is not a valid step (a known kind that fails its schema) is read
// back as an InvalidLine, never as a Step: kept in the log and counted, left
// out of every read the mind makes, given back byte for byte by export, and
// shown by the viewer as what it is. Over both stores: a live mind's rows, an
// imported archive's pages.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OutEntry } from "@/lib/archive";
import { type ReverieDb } from "@/lib/store/db/db";
import { exportEntries } from "@/lib/store/exchange/export";
import { importIntoDb } from "@/lib/store/exchange/import";
import { createMind } from "@/lib/store/minds/minds";
import { appendStep, findSteps, parseRows, searchSteps, tailRows, tailSteps } from "@/lib/store/steps/steps";
import { pageSource, rowSource } from "@/lib/store/view/view";
import { InvalidLine } from "@/lib/trajectory/headlong";
import { buildRows, entryOf, type RowOptions } from "@/lib/trajectory/rows";
import { isKind } from "@/lib/trajectory/schema";
import { openTestDb } from "../../helpers/db";
import { id, stepMaker } from "../../helpers/steps";

const MESSAGE_ERROR = "message: from: Invalid input: expected string, received undefined";
const OPEN: RowOptions = { collapsedRuns: new Set(), openFolds: new Set(), types: null };

const collect = async (entries: AsyncIterable<OutEntry>) => {
  const out: OutEntry[] = [];
  for await (const e of entries) out.push(e);
  return out;
};
const trajectoryText = async (db: ReverieDb, owner: string) => String((await collect(exportEntries(db, owner))).find((f) => f.path.endsWith("trajectory.jsonl"))?.data);

let db: ReverieDb;
beforeEach(async () => {
  db = await openTestDb("invalid-lines");
});
afterEach(async () => {
  await db.delete();
});

describe("a live mind's stored row of a known kind that fails its schema", () => {
  // A message without `from`, as a row written by an older version (or synced) would hold it; key order and escapes its own.
  const badId = "bad00000-0000-4000-8000-000000000001";
  const bad = `{"ts":"2026-01-02T00:00:05.000Z","step_id":"${badId}","type":"message","content":"hi \\u00e9","to":"ada"}`;

  const seed = async () => {
    const mind = await createMind(db, { name: "Ada", persona: "", model: { provider: "openai", model: "gpt" } }, Date.UTC(2026, 0, 2));
    const make = stepMaker({ tail: "cccccccccccc", start: Date.UTC(2026, 0, 2) });
    const before = make("thought", { content: "before hi" });
    await appendStep(db, mind.id, before);
    await db.steps.add({ step_id: badId, mind_id: mind.id, traj_id: mind.id, type: "message", json: bad });
    const after = make("thought", { content: "after hi" });
    await appendStep(db, mind.id, after);
    return { mind, before, after };
  };

  it("comes back from parseRows as an invalid line, counted, and never among the steps (so isKind cannot be told it is a message)", async () => {
    const { mind, before, after } = await seed();
    const rows = await tailRows(db, mind.id, 10);
    const parsed = parseRows(rows);
    const badRow = rows.find((r) => r.step_id === badId);
    expect(parsed.invalid).toEqual([{ seq: badRow?.seq, line: new InvalidLine({ type: "message", step_id: badId, ts: "2026-01-02T00:00:05.000Z", raw: bad, error: MESSAGE_ERROR }) }]);
    expect(parsed.invalid[0]?.line).toBeInstanceOf(InvalidLine);
    expect(parsed.skipped).toBe(0);
    expect(parsed.steps.map((s) => s.step_id)).toEqual(rows.filter((r) => r.step_id !== badId).map((r) => r.step_id));
    expect(parsed.steps.filter((s) => isKind(s, "message"))).toEqual([]);
    // The mind's own reads skip it.
    expect((await tailSteps(db, mind.id, 10)).slice(-2)).toEqual([before, after]);
    expect(await findSteps(db, mind.id, badId, 5)).toEqual([]);
    expect(await searchSteps(db, mind.id, mind.id, "hi", 5)).toEqual([after, before]);
  });

  it("survives export byte for byte", async () => {
    const { mind } = await seed();
    const lines = (await trajectoryText(db, mind.id)).split("\n");
    expect(lines.filter((l) => l.includes(badId))).toEqual([bad]);
    expect(lines.length).toBe((await db.steps.count()) + 1);
  });

  it("is shown by the viewer's source as an invalid entry, its body the invalid line", async () => {
    const { mind } = await seed();
    const source = rowSource(db, mind.id);
    const entries = await source.newest(mind.id, 10);
    const entry = entries.find((e) => e.id === badId);
    expect(entry).toEqual({ seq: entry?.seq, id: badId, type: "message", ts: "2026-01-02T00:00:05.000Z", preview: bad, invalid: MESSAGE_ERROR });
    expect(entries.filter((e) => e.invalid !== undefined)).toEqual([entry]);
    const body = (await source.bodies([entry?.seq ?? -1])).get(entry?.seq ?? -1);
    expect(body).toBeInstanceOf(InvalidLine);
    expect(body).toMatchObject({ raw: bad, error: MESSAGE_ERROR });
  });
});

describe("an imported line of a known kind that fails its schema", () => {
  const T = id(100, "dddddddddddd");
  const make = stepMaker({ tail: "dddddddddddd" });
  const header = `{"type":"trajectory","step_id":"${T}","ts":"2025-01-01T00:00:00.000Z","name":"hand made"}`;
  const thought = JSON.stringify(make("thought", { content: "ok" }));
  // An exit status that is not a number: not a valid step of this schema.
  const bad = `{"type":"shell-output","step_id":"${id(9, "dddddddddddd")}","ts":"2025-01-01T00:00:09.000Z","stdout":"a  b","stderr":"","exit":"zero","timed_out":false}`;
  const text = `${header}\n${thought}\n${bad}\n`;

  it("is kept and counted by the import, read back as an invalid line, and exported byte for byte", async () => {
    const { id: owner, stats } = await importIntoDb(db, new Blob([text]), { name: "hand.jsonl" });
    expect([stats.steps, stats.invalid, stats.skipped]).toEqual([3, 1, 0]);
    const source = pageSource(db, owner);
    const entries = await source.newest(T, 10);
    expect(entries.map((e) => [e.type, e.invalid])).toEqual([
      ["trajectory", undefined],
      ["thought", undefined],
      ["shell-output", "shell-output: exit: Invalid input: expected number, received string"],
    ]);
    const bodies = await source.bodies(entries.map((e) => e.seq));
    expect([...bodies.values()].map((b) => b instanceof InvalidLine)).toEqual([false, false, true]);
    expect(await trajectoryText(db, owner)).toBe(text);
  });
});

describe("Headlong's variant of shell-output (its fixtures write exit_code and no exec_s)", () => {
  const T = id(200, "dddddddddddd");
  const header = `{"type":"trajectory","step_id":"${T}","ts":"2025-01-01T00:00:00.000Z","name":"headlong fixture"}`;
  const variant = `{"type":"shell-output","step_id":"${id(201, "dddddddddddd")}","ts":"2025-01-01T00:00:01.000Z","stdout":"hi","stderr":"","exit_code":3,"cmd":"echo hi"}`;
  const text = `${header}\n${variant}\n`;

  it("is read as the valid step it is (exit from exit_code, no exec_s), and exported byte for byte", async () => {
    const { id: owner, stats } = await importIntoDb(db, new Blob([text]), { name: "fixture.jsonl" });
    expect([stats.steps, stats.invalid, stats.skipped]).toEqual([2, 0, 0]);
    const source = pageSource(db, owner);
    const entries = await source.newest(T, 10);
    expect(entries.map((e) => [e.type, e.invalid])).toEqual([
      ["trajectory", undefined],
      ["shell-output", undefined],
    ]);
    const step = [...(await source.bodies(entries.map((e) => e.seq))).values()][1];
    expect(step instanceof InvalidLine).toBe(false);
    expect(step && !(step instanceof InvalidLine) && isKind(step, "shell-output") ? [step.exit, step.exec_s, step.timed_out] : null).toEqual([3, undefined, undefined]);
    expect(await trajectoryText(db, owner)).toBe(text);
  });
});

describe("the row builder", () => {
  const make = stepMaker({ tail: "eeeeeeeeeeee" });
  const invalid = (n: number, type: string, run?: string) => {
    const raw = JSON.stringify({ type, step_id: id(n, "ffffffffffff"), ts: `2025-01-01T00:01:0${n}.000Z`, ...(run ? { run_id: run } : {}) });
    return new InvalidLine({ type, step_id: id(n, "ffffffffffff"), ts: `2025-01-01T00:01:0${n}.000Z`, ...(run ? { run_id: run } : {}), raw, error: `${type}: content: Invalid input: expected string, received undefined` });
  };

  it("places an invalid line by its run, but never as the run's end or its work, and never folds it away", () => {
    const run = make("shellm-run", { model: "m" });
    const prompt = make("prompt", { content: "go", run_id: run.step_id });
    const idles = [make("idle"), make("idle"), make("idle")];
    const lines = [run, prompt, invalid(1, "final", run.step_id), invalid(2, "message", run.step_id), ...idles, invalid(3, "idle"), make("idle")];
    const entries = lines.map((l, i) => entryOf(i + 1, l));
    expect(entries[2]).toMatchObject({ type: "final", run: run.step_id, invalid: "final: content: Invalid input: expected string, received undefined" });
    const rows = buildRows(entries, OPEN);
    expect(rows.map((r) => (r.kind === "fold" ? `fold ${r.entries.map((e) => e.seq).join(",")}` : `${r.inRun ? "  " : ""}${r.entry.seq} ${r.entry.type}${r.entry.invalid !== undefined ? " (invalid)" : ""}`))).toEqual([
      "1 shellm-run",
      "  2 prompt",
      "  3 final (invalid)",
      "  4 message (invalid)",
      // Three idle markers then an invalid one: the three are not enough to fold, and the invalid one is shown as itself.
      "5 idle",
      "6 idle",
      "7 idle",
      "8 idle (invalid)",
      "9 idle",
    ]);
    const header = rows[0];
    expect(header?.kind === "step" ? [header.run?.end, header.run?.didWork, header.run?.count] : null).toEqual([undefined, false, 3]);
  });
});
