// lib/store over fake-indexeddb: steps are append-only and parsed on the way
// out; minds, messages, files and settings round-trip and survive damage.
import { DEFAULT_PERMISSIONS } from "@/lib/trajectory/permissions";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ReverieDb } from "@/lib/store/db/db";
import { mindFiles } from "@/lib/store/minds/files";
import { MAX_MESSAGE_CHARS, sendMessage } from "@/lib/store/steps/messages";
import { DEFAULT_BUDGET } from "@/lib/mind/budget/budget";
import { createMind, getMind, listMinds, saveShellState, setRunning } from "@/lib/store/minds/minds";
import { DEFAULT_SENDER, getSenderName, setSenderName } from "@/lib/store/minds/settings";
import * as stepsModule from "@/lib/store/steps/steps";
import {
  appendStep,
  countSteps,
  findSteps,
  getBlob,
  InvalidStepError,
  lastSeq,
  parseRows,
  putBlob,
  rowsAfter,
  tailRows,
  tailSteps,
} from "@/lib/store/steps/steps";
import type { Step } from "@/lib/trajectory/schema";
import { InvalidLine } from "@/lib/trajectory/headlong";
import type { FileRecord } from "@/lib/shell/persistent-fs";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import { openTestDb } from "../../helpers/db";

let db: ReverieDb;

beforeEach(async () => {
  db = await openTestDb("store-test");
});

afterEach(async () => {
  await db.delete();
});

const MIND = "aaaaaaaa-0000-4000-8000-000000000000";
const OTHER = "bbbbbbbb-0000-4000-8000-000000000000";
const TS = "2026-11-30T17:44:36.123Z";

/** A step with a readable, predictable id: `<prefix8>-0000-4000-8000-<n as 12 digits>`. */
function idOf(n: number, prefix = "c0ffee00"): string {
  return `${prefix}-0000-4000-8000-${String(n).padStart(12, "0")}`;
}

function thought(n: number, extra: Partial<Step> = {}): Step {
  return { type: "thought", step_id: idOf(n), ts: TS, source: "test", content: `thought ${n}`, ...extra } as Step;
}

const allRows = () => db.steps.orderBy("seq").toArray();

describe("steps: append-only", () => {
  it("exposes no way to update or delete a step", () => {
    const names = Object.keys(stepsModule);
    expect(names.length).toBeGreaterThan(5);
    const mutating = names.filter((n) => /update|delete|remove|put(?!Blob)/i.test(n));
    expect(mutating).toEqual([]);
    expect(names).toContain("putBlob");
  });

  it("the mind's state (indexedDbMindState) has only appends, blobs, fork, reads, the mind's own record and its way in; no way to change or delete a step", () => {
    const keys = Object.keys(indexedDbMindState(db, MIND)).sort();
    expect(keys).toEqual(["append", "blob", "count", "files", "find", "fork", "inbound", "mindId", "ofKind", "putBlob", "record", "savePacing", "saveShellState", "search", "spendSince", "tail", "tiers"]);
    expect(keys.filter((n) => /update|delete|remove|put(?!Blob)/i.test(n))).toEqual([]);
  });

  it("appendStep writes the step exactly as given and returns its seq", async () => {
    const step = thought(1, { extra_field: { kept: true } } as Partial<Step>);
    const seq = await appendStep(db, MIND, step);
    const rows = await allRows();
    expect(rows).toEqual([{ seq, step_id: step.step_id, mind_id: MIND, traj_id: MIND, type: "thought", json: JSON.stringify(step) }]);
    expect(seq).toBeGreaterThan(0);
  });

  it("appendStep records a child trajectory id when given", async () => {
    const child = idOf(99, "dddddddd");
    await appendStep(db, MIND, thought(1), child);
    expect((await allRows()).map((r) => [r.mind_id, r.traj_id])).toEqual([[MIND, child]]);
  });

  it("appendStep refuses an invalid step with InvalidStepError and writes nothing", async () => {
    const bad = { type: "message", step_id: idOf(1), ts: TS, content: "hi", from: "you" } as unknown as Step; // no `to`
    const err = await appendStep(db, MIND, bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidStepError);
    expect((err as Error).message).toMatch(/^Refusing to append an invalid step: message: to: /);
    const badId = { ...thought(2), step_id: "not-a-uuid" } as Step;
    await expect(appendStep(db, MIND, badId)).rejects.toBeInstanceOf(InvalidStepError);
    expect(await db.steps.count()).toBe(0);
  });

  it("refuses a duplicate step_id within a mind", async () => {
    await appendStep(db, MIND, thought(1));
    await expect(appendStep(db, MIND, thought(1, { content: "again" } as Partial<Step>))).rejects.toMatchObject({ name: "ConstraintError" });
    await expect(appendStep(db, MIND, thought(1), idOf(9, "dddddddd"))).rejects.toMatchObject({ name: "ConstraintError" });
    const rows = await allRows();
    expect(rows.map((r) => [r.mind_id, JSON.parse(r.json).content])).toEqual([[MIND, "thought 1"]]);
  });

  it("lets another owner hold the same step_id (an archive imported twice is two owners)", async () => {
    await appendStep(db, MIND, thought(1));
    await appendStep(db, OTHER, thought(1));
    expect(await tailSteps(db, MIND, 5)).toEqual([thought(1)]);
    expect(await tailSteps(db, OTHER, 5)).toEqual([thought(1)]);
  });
});

describe("steps: reading", () => {
  beforeEach(async () => {
    // Interleave two minds so every read must filter by mind.
    for (let n = 1; n <= 6; n++) {
      await appendStep(db, MIND, thought(n));
      await appendStep(db, OTHER, thought(100 + n));
    }
  });

  it("tailSteps returns the newest n, oldest first", async () => {
    expect(await tailSteps(db, MIND, 3)).toEqual([thought(4), thought(5), thought(6)]);
    expect(await tailSteps(db, OTHER, 2)).toEqual([thought(105), thought(106)]);
  });

  it("tailSteps with n past the start returns all, oldest first", async () => {
    expect(await tailSteps(db, MIND, 50)).toEqual([1, 2, 3, 4, 5, 6].map((n) => thought(n)));
    expect(await tailSteps(db, "no-such-mind", 5)).toEqual([]);
  });

  it("lastSeq and countSteps are per mind", async () => {
    const rows = await allRows();
    const mine = rows.filter((r) => r.mind_id === MIND);
    expect(await lastSeq(db, MIND)).toBe(mine[5]?.seq);
    expect(await lastSeq(db, OTHER)).toBe(rows[11]?.seq);
    expect(await countSteps(db, MIND)).toBe(6);
    expect(await countSteps(db, OTHER)).toBe(6);
    expect(await lastSeq(db, "nobody")).toBe(0);
    expect(await countSteps(db, "nobody")).toBe(0);
  });

  it("rowsAfter returns only that mind's rows after seq, oldest first", async () => {
    const mine = (await allRows()).filter((r) => r.mind_id === MIND);
    const after = await rowsAfter(db, MIND, mine[2]?.seq ?? -1);
    expect(after).toEqual(mine.slice(3));
    expect(parseRows(after).steps).toEqual([thought(4), thought(5), thought(6)]);
    expect(await rowsAfter(db, MIND, await lastSeq(db, MIND))).toEqual([]);
    expect(await rowsAfter(db, MIND, 0)).toEqual(mine);
  });

  it("findSteps finds by an 8-hex prefix (any case) and by whole id, within the mind", async () => {
    await appendStep(db, MIND, thought(7, { step_id: "deadbeef-1111-4000-8000-000000000001" }));
    await appendStep(db, OTHER, thought(8, { step_id: "deadbeef-2222-4000-8000-000000000002" }));
    expect(await findSteps(db, MIND, "deadbeef", 5)).toEqual([{ step: thought(7, { step_id: "deadbeef-1111-4000-8000-000000000001" }), trajId: MIND }]);
    expect(await findSteps(db, MIND, "DEADBEEF", 5)).toHaveLength(1);
    expect(await findSteps(db, OTHER, "deadbeef-2222-4000-8000-000000000002", 5)).toEqual([
      { step: thought(8, { step_id: "deadbeef-2222-4000-8000-000000000002" }), trajId: OTHER },
    ]);
    expect(await findSteps(db, MIND, "deadbeef-2222", 5)).toEqual([]);
    expect(await findSteps(db, MIND, "12345678", 5)).toEqual([]);
  });

  it("findSteps stops at the limit", async () => {
    expect(await findSteps(db, MIND, "c0ffee00", 2)).toEqual([
      { step: thought(1), trajId: MIND },
      { step: thought(2), trajId: MIND },
    ]);
  });
});

describe("steps: damaged rows", () => {
  it("are skipped and counted by parseRows; a known kind missing fields is kept as an invalid line, never a step", async () => {
    await appendStep(db, MIND, thought(1));
    await db.steps.add({ step_id: idOf(2), mind_id: MIND, traj_id: MIND, type: "thought", json: "{\"type\":\"thought\",\"step_" });
    await db.steps.add({ step_id: idOf(3), mind_id: MIND, traj_id: MIND, type: "message", json: JSON.stringify({ type: "message", step_id: idOf(3), ts: TS }) });
    await db.steps.add({ step_id: idOf(4), mind_id: MIND, traj_id: MIND, type: "x", json: "null" });
    await db.steps.add({ step_id: idOf(5), mind_id: MIND, traj_id: MIND, type: "x", json: "[1,2]" });
    await appendStep(db, MIND, thought(6));

    const rows = await tailRows(db, MIND, 10);
    expect(rows).toHaveLength(6);
    const parsed = parseRows(rows);
    // The message lacks from/to/content, but has type and step_id: kept (and counted) as an invalid line, not dropped, and not a step.
    const json = JSON.stringify({ type: "message", step_id: idOf(3), ts: TS });
    const invalid = new InvalidLine({ type: "message", step_id: idOf(3), ts: TS, raw: json, error: "message: content: Invalid input: expected string, received undefined; from: Invalid input: expected string, received undefined; to: Invalid input: expected string, received undefined" });
    expect(parsed).toEqual({ steps: [thought(1), thought(6)], seqs: [rows[0]?.seq, rows[5]?.seq], invalid: [{ seq: rows[2]?.seq, line: invalid }], skipped: 3 });
    expect(parsed.invalid[0]?.line).toBeInstanceOf(InvalidLine);
    expect(await tailSteps(db, MIND, 10)).toEqual([thought(1), thought(6)]);
    expect(await findSteps(db, MIND, idOf(2), 5)).toEqual([]);
    // They still count as rows: nothing is rewritten or dropped from the log.
    expect(await countSteps(db, MIND)).toBe(6);
  });

  it("an unknown kind in a row is a step, not damage", async () => {
    const json = JSON.stringify({ type: "monolith-nap", step_id: idOf(1), ts: TS, minutes: 3 });
    await db.steps.add({ step_id: idOf(1), mind_id: MIND, traj_id: MIND, type: "monolith-nap", json });
    expect(parseRows(await tailRows(db, MIND, 5))).toMatchObject({ steps: [JSON.parse(json)], skipped: 0 });
  });
});

describe("steps: blobs", () => {
  it("the mind's state writes its root's blobs under blobs/, as step refs name them", async () => {
    const state = indexedDbMindState(db, MIND);
    await state.putBlob(MIND, "c0ffee00-stdout.txt", "whole output");
    expect(await getBlob(db, MIND, "blobs/c0ffee00-stdout.txt")).toBe("whole output");
    expect(await state.blob(MIND, "blobs/c0ffee00-stdout.txt")).toBe("whole output");
    expect(await getBlob(db, MIND, "c0ffee00-stdout.txt")).toBeUndefined();
  });

  it("stores and returns a blob per mind, and refuses a second blob of one name", async () => {
    await putBlob(db, MIND, "c0ffee00-stdout", "big output");
    expect(await getBlob(db, MIND, "c0ffee00-stdout")).toBe("big output");
    expect(await getBlob(db, OTHER, "c0ffee00-stdout")).toBeUndefined();
    await expect(putBlob(db, MIND, "c0ffee00-stdout", "other")).rejects.toMatchObject({ name: "ConstraintError" });
    expect(await getBlob(db, MIND, "c0ffee00-stdout")).toBe("big output");
  });
});

const MODEL = { provider: "openai-compatible" as const, baseURL: "http://localhost:11434/v1", model: "llama3", apiKey: "fake-key-secret-123" };
const NOW = Date.UTC(2026, 10, 30, 17, 44, 36, 123);

describe("minds", () => {
  it("createMind writes the mind, a trajectory step with the mind's id, and a config step", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "curious", model: MODEL }, NOW);
    expect(mind).toEqual({
      id: mind.id,
      name: "Ada",
      persona: "curious",
      model: MODEL,
      created_at: TS,
      running: true,
      pacing: { base_s: 5, cap_s: 300, ticks_per_level: 3 },
      max_iterations: 12,
      permissions: DEFAULT_PERMISSIONS,
      budget: DEFAULT_BUDGET,
    });
    expect(mind.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await getMind(db, mind.id)).toEqual(mind);

    const steps = await tailSteps(db, mind.id, 10);
    expect(steps).toEqual([
      { type: "trajectory", step_id: mind.id, ts: TS, name: "Ada", source: "system" },
      {
        type: "config",
        step_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        ts: TS,
        source: "system",
        pacing: { base_s: 5, cap_s: 300, ticks_per_level: 3 },
        max_iterations: 12,
        provider: "openai-compatible",
        model: "llama3",
        permissions: DEFAULT_PERMISSIONS,
        budget: DEFAULT_BUDGET,
      },
    ]);
    expect(steps[1]?.step_id).not.toBe(mind.id);
    expect(await db.trajectories.toArray()).toEqual([{ mind_id: mind.id, traj_id: mind.id, name: "Ada", dir: "" }]);
    // The key stays in the mind's settings, never in the log (which is exported).
    const raw = (await allRows()).map((r) => r.json).join("\n");
    expect(raw).not.toContain("fake-key-secret-123");
    expect((await allRows()).every((r) => r.mind_id === mind.id && r.traj_id === mind.id)).toBe(true);
  });

  it("createMind with an invalid mind writes nothing", async () => {
    await expect(createMind(db, { name: "", persona: "", model: MODEL })).rejects.toThrow();
    expect(await db.minds.count()).toBe(0);
    expect(await db.steps.count()).toBe(0);
    expect(await db.trajectories.count()).toBe(0);
  });

  it("getMind returns null for a missing or damaged row", async () => {
    expect(await getMind(db, "nope")).toBeNull();
    await db.minds.put({ id: "broken", json: { id: "broken", name: "", running: "yes" } });
    await db.minds.put({ id: "worse", json: "not an object" });
    expect(await getMind(db, "broken")).toBeNull();
    expect(await getMind(db, "worse")).toBeNull();
  });

  it("listMinds skips damaged rows and lists newest first", async () => {
    const a = await createMind(db, { name: "Old", persona: "", model: MODEL }, NOW);
    const b = await createMind(db, { name: "New", persona: "", model: MODEL }, NOW + 1000);
    await db.minds.put({ id: "broken", json: { name: 3 } });
    expect(await listMinds(db)).toEqual([b, a]);
  });

  it("fills defaults for an older mind row without pacing or limits", async () => {
    const old = { id: "old", name: "Old", persona: "", model: { provider: "openai", model: "gpt" }, created_at: TS, running: false };
    await db.minds.put({ id: "old", json: old });
    expect(await getMind(db, "old")).toEqual({ ...old, pacing: { base_s: 5, cap_s: 300, ticks_per_level: 3 }, max_iterations: 12, permissions: DEFAULT_PERMISSIONS });
  });

  it("setRunning and saveShellState change only their field and write no step", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "p", model: MODEL }, NOW);
    await setRunning(db, mind.id, false);
    expect(await getMind(db, mind.id)).toEqual({ ...mind, running: false });
    const shell = { env: { A: "1", FINAL: "x y" }, cwd: "/workspace/sub" };
    await saveShellState(db, mind.id, shell);
    expect(await getMind(db, mind.id)).toEqual({ ...mind, running: false, shell });
    await setRunning(db, mind.id, true);
    expect(await getMind(db, mind.id)).toEqual({ ...mind, running: true, shell });
    expect(await countSteps(db, mind.id)).toBe(2);
  });

  it("setRunning on a missing or damaged mind fails and writes nothing", async () => {
    await expect(setRunning(db, "nope", true)).rejects.toThrow("No mind nope in this browser.");
    await db.minds.put({ id: "broken", json: { x: 1 } });
    await expect(saveShellState(db, "broken", { env: {}, cwd: "/" })).rejects.toThrow("No mind broken");
    expect(await db.minds.get("broken")).toEqual({ id: "broken", json: { x: 1 } });
    expect(await db.minds.get("nope")).toBeUndefined();
  });
});

describe("messages", () => {
  it("sendMessage appends a message step from chat, trimmed", async () => {
    const before = Date.now();
    const step = await sendMessage(db, MIND, { from: "you", to: "Ada", content: "  hello, Ada 👋\n" });
    expect(step).toEqual({
      type: "message",
      step_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      ts: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      source: "chat",
      from: "you",
      to: "Ada",
      content: "hello, Ada 👋",
    });
    expect(Date.parse(step.ts)).toBeGreaterThanOrEqual(before - 1);
    expect(await tailSteps(db, MIND, 5)).toEqual([step]);
  });

  it("refuses empty or whitespace-only text and writes nothing", async () => {
    await expect(sendMessage(db, MIND, { from: "you", to: "Ada", content: "" })).rejects.toThrow("An empty message is not sent.");
    await expect(sendMessage(db, MIND, { from: "you", to: "Ada", content: " \n\t " })).rejects.toThrow("An empty message is not sent.");
    expect(await db.steps.count()).toBe(0);
  });

  it("refuses text over the limit", async () => {
    await expect(sendMessage(db, MIND, { from: "you", to: "Ada", content: "x".repeat(MAX_MESSAGE_CHARS + 1) })).rejects.toThrow(
      `at most ${MAX_MESSAGE_CHARS} characters`,
    );
    await sendMessage(db, MIND, { from: "you", to: "Ada", content: "x".repeat(MAX_MESSAGE_CHARS) });
    expect(await db.steps.count()).toBe(1);
  });
});

describe("settings: sender name", () => {
  it("defaults to you", async () => {
    expect(DEFAULT_SENDER).toBe("you");
    expect(await getSenderName(db)).toBe("you");
  });

  it("round-trips a name, trimmed, and falls back to you for a blank one", async () => {
    await setSenderName(db, "  Grace ");
    expect(await getSenderName(db)).toBe("Grace");
    await setSenderName(db, "   ");
    expect(await getSenderName(db)).toBe("you");
  });

  it("ignores a damaged setting", async () => {
    await db.settings.put({ key: "sender", value: { name: "Grace" } });
    expect(await getSenderName(db)).toBe("you");
    await db.settings.put({ key: "sender", value: 42 });
    expect(await getSenderName(db)).toBe("you");
  });
});

describe("files", () => {
  const records: FileRecord[] = [
    { path: "/workspace", kind: "dir", mode: 0o755, mtime: 1000 },
    { path: "/workspace/a.txt", kind: "file", data: new Uint8Array([104, 105, 0, 255]), mode: 0o644, mtime: 2000 },
    { path: "/workspace/link", kind: "symlink", target: "a.txt", mode: 0o777, mtime: 3000 },
  ];
  const byPath = (a: FileRecord, b: FileRecord) => a.path.localeCompare(b.path);

  it("save then loadAll gives back the same records, per mind", async () => {
    const store = mindFiles(db, MIND);
    await store.save(records, []);
    expect((await store.loadAll()).sort(byPath)).toEqual(records);
    expect(await mindFiles(db, OTHER).loadAll()).toEqual([]);
  });

  it("save removes and replaces", async () => {
    const store = mindFiles(db, MIND);
    await store.save(records, []);
    const changed: FileRecord = { path: "/workspace/a.txt", kind: "file", data: new Uint8Array([1]), mode: 0o600, mtime: 5000 };
    await store.save([changed], ["/workspace/link"]);
    expect((await store.loadAll()).sort(byPath)).toEqual([records[0], changed]);
  });

  it("loadAll skips damaged rows", async () => {
    const store = mindFiles(db, MIND);
    await store.save(records, []);
    await db.files.put({ mind_id: MIND, path: "relative/path", kind: "file", mode: 0o644, mtime: 1 });
    await db.files.put({ mind_id: MIND, path: "/workspace/weird", kind: "socket", mode: 0o644, mtime: 1 } as never);
    await db.files.put({ mind_id: MIND, path: "/workspace/nodata", kind: "file", data: "text, not bytes", mode: 0o644, mtime: 1 } as never);
    await db.files.put({ mind_id: MIND, path: "/workspace/nomode", kind: "dir", mtime: 1 } as never);
    expect((await store.loadAll()).sort(byPath)).toEqual(records);
  });
});
