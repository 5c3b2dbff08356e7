// Importing Headlong trajectories: lib/import (the streaming importer, over
// lib/archive) into an in-memory sink, then lib/store's Dexie import with its
// commit record and clean-up, export back to the same bytes, and the viewer's
// reads over what was imported.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ArchiveError, type OutEntry, writeTarGz, writeZip } from "@/lib/archive";
import { importArchive, SKIPPED_LINES_SLACK } from "@/lib/import/importer";
import { checkSummary, type ImportStats } from "@/lib/import/stats";
import { getArchive, listArchives } from "@/lib/store/minds/archives";
import { type PageRow, type ReverieDb, type StepRow } from "@/lib/store/db/db";
import { exportDirs, exportEntries, MIND_JSON_FORMAT, mindJson } from "@/lib/store/exchange/export";
import { discardUncommitted, ImportError, importIntoDb, markImportStarted, PAGE_LINES, sweepUnfinishedImports } from "@/lib/store/exchange/import";
import { createMind } from "@/lib/store/minds/minds";
import { appendStep } from "@/lib/store/steps/steps";
import { indexedDbMindState } from "@/lib/store/state/mind-state";
import { readTiers, sealTier } from "@/lib/store/derived/tiers";
import { pageSource, rowSource } from "@/lib/store/view/view";
import type { StepSource, TrajectoryRow } from "@/lib/trajectory/source";
import { trajDirName } from "@/lib/trajectory/headlong";
import { entryOf, type IndexEntry } from "@/lib/trajectory/rows";
import { parseStep, type Step } from "@/lib/trajectory/schema";
import { makeHeadlongTree, type TreeFile } from "../../fixtures/headlong-tree";
import { id, stepMaker } from "../helpers/steps";
import { expectedCounts, linesByDir, MemorySink, pack, streamBytes, unpack } from "../helpers/trees";
import { openTestDb } from "../helpers/db";
import { tarGzBlob } from "../helpers/hostile";
import { errorOf } from "../helpers/errors";

const TREE = makeHeadlongTree({ steps: 40, withChild: true });
const ROOT_DIR = TREE.files[0]!.path.split("/")[0]!;
const CHILD_DIR = TREE.files.find((f) => f.path.split("/").length === 3 && f.path.endsWith("trajectory.jsonl"))!.path.split("/").slice(0, 2).join("/");
const BLOB = TREE.files.find((f) => f.path.includes("/blobs/"))!;
const ROOT_LINES = linesByDir(TREE.files).get(ROOT_DIR)!;
const CHILD_LINES = linesByDir(TREE.files).get(CHILD_DIR)!;


/** Whether a chunk boundary of `parts` falls inside a UTF-8 character. */
function splitsACharacter(parts: readonly Uint8Array[]): boolean {
  return parts.slice(1).some((p) => p.length > 0 && (p[0]! & 0xc0) === 0x80);
}

const parsed = (line: string): Step => {
  const r = parseStep(JSON.parse(line));
  if (!r.ok) throw new Error(r.error);
  return r.step;
};

describe("the fixture, as these tests count it", () => {
  it("a 40-step tree with a child: 44 root lines (a message among them), 6 child lines, one blob", () => {
    expect([ROOT_LINES.length, CHILD_LINES.length]).toEqual([44, 6]);
    expect(TREE.counts).toEqual({ [TREE.rootId]: 44, [TREE.childId!]: 6 });
    expect(TREE.files.map((f) => f.path)).toEqual([`${ROOT_DIR}/trajectory.jsonl`, BLOB.path, `${CHILD_DIR}/trajectory.jsonl`]);
    expect(ROOT_LINES.filter((l) => l.includes(`"step_id":"${TREE.ids.message}"`)).map((l) => (JSON.parse(l) as Step).type)).toEqual(["message"]);
    expect(expectedCounts(TREE, "zip")).toEqual({
      steps: 50,
      skipped: 0,
      byType: { trajectory: 2, "monolith-wake": 10, "shellm-run": 7, prompt: 7, reasoning: 7, "shell-output": 7, final: 7, fork: 1, merge: 1, message: 1 },
      runs: 7,
      forks: 1,
      trajectories: 2,
    });
    expect(expectedCounts(TREE, "jsonl")).toEqual({
      steps: 44,
      skipped: 0,
      byType: { trajectory: 1, "monolith-wake": 10, "shellm-run": 6, prompt: 6, reasoning: 6, "shell-output": 6, final: 6, fork: 1, merge: 1, message: 1 },
      runs: 6,
      forks: 1,
      trajectories: 1,
    });
  });
});

describe("importArchive: a Headlong tree", () => {
  const rootTraj = { trajId: TREE.rootId, dir: ROOT_DIR, name: "monolith", parentTraj: undefined, parentStep: undefined };
  const childTraj = { trajId: TREE.childId, dir: CHILD_DIR, name: "subtask", parentTraj: TREE.rootId, parentStep: TREE.ids.fork };
  const runIdsOf = (lines: string[]) => new Set(lines.map((l) => JSON.parse(l) as { type: string; step_id: string; run_id?: string }).map((s) => (s.type === "shellm-run" ? s.step_id : s.run_id)).filter((r) => r !== undefined));

  it("a lone .jsonl: exact stats, one trajectory, every line as it was", async () => {
    const sink = new MemorySink();
    const stats = await importArchive(await pack(TREE.files, "jsonl"), sink, { name: "trajectory.jsonl" });
    const want = expectedCounts(TREE, "jsonl");
    expect(stats).toEqual({
      steps: want.steps,
      skipped: 0,
      skippedReasons: {},
      invalid: 0,
      byType: want.byType,
      runIds: runIdsOf(ROOT_LINES),
      forks: want.forks,
      trajectories: 1,
      blobs: 0,
      warnings: [],
    } satisfies ImportStats);
    expect(sink.calls).toEqual([
      { call: "trajectory", t: { ...rootTraj, dir: "" } },
      { call: "steps", trajId: TREE.rootId, count: ROOT_LINES.length },
    ]);
    expect(sink.rawLines()).toEqual(new Map([[TREE.rootId, ROOT_LINES]]));
  });

  for (const packing of ["tar.gz", "zip"] as const) {
    it(`a .${packing}: exact stats, both trajectories with their parent links, the blob, every line as it was`, async () => {
      const sink = new MemorySink();
      const stats = await importArchive(await pack(TREE.files, packing), sink, { name: `tree.${packing}` });
      const want = expectedCounts(TREE, packing);
      expect(stats).toEqual({
        steps: want.steps,
        skipped: 0,
        skippedReasons: {},
        invalid: 0,
        byType: want.byType,
        runIds: runIdsOf([...ROOT_LINES, ...CHILD_LINES]),
        forks: want.forks,
        trajectories: 2,
        blobs: 1,
        warnings: [],
      } satisfies ImportStats);
      expect(sink.calls).toEqual([
        { call: "trajectory", t: rootTraj },
        { call: "steps", trajId: TREE.rootId, count: ROOT_LINES.length },
        { call: "blob", path: BLOB.path, length: BLOB.data.length },
        { call: "trajectory", t: childTraj },
        { call: "steps", trajId: TREE.childId, count: CHILD_LINES.length },
      ]);
      expect(sink.rawLines()).toEqual(
        new Map([
          [TREE.rootId, ROOT_LINES],
          [TREE.childId, CHILD_LINES],
        ]),
      );
      expect(sink.blobs).toEqual(new Map([[BLOB.path, BLOB.data]]));
      // Every step went through the schema and kept every field.
      const steps = [...sink.received.values()].flat();
      expect(steps.map((s) => s.step)).toEqual([...ROOT_LINES, ...CHILD_LINES].map(parsed));
    });
  }

  it("a larger tree: stats match a count of its lines, steps go out in batches of batchSize", async () => {
    const big = makeHeadlongTree({ steps: 3000, withChild: true, seed: 7 });
    const sink = new MemorySink();
    const stats = await importArchive(await pack(big.files, "tar.gz"), sink, { name: "big.tar.gz", batchSize: 1000 });
    expect(checkSummary(stats)).toEqual(expectedCounts(big, "tar.gz"));
    const rootCount = big.counts[big.rootId]!;
    const batches = sink.calls.flatMap((c) => (c.call === "steps" ? [[c.trajId, c.count]] : []));
    expect(batches).toEqual([
      ...Array.from({ length: Math.floor(rootCount / 1000) }, () => [big.rootId, 1000]),
      [big.rootId, rootCount % 1000],
      [big.childId, 6],
    ]);
    const lines = linesByDir(big.files);
    expect([...sink.rawLines().values()]).toEqual([...lines.values()]);
  });

  it("reports progress that never goes back and ends at the file's size", async () => {
    const blob = await pack(makeHeadlongTree({ steps: 2000, seed: 3 }).files, "jsonl");
    const seen: [number, number][] = [];
    await importArchive(blob, new MemorySink(), { name: "t.jsonl", onProgress: (read, total) => seen.push([read, total]) });
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.at(-1)).toEqual([blob.size, blob.size]);
    expect(seen.every(([read, total], i) => total === blob.size && read <= total && read >= (seen[i - 1]?.[0] ?? 0))).toBe(true);
  });
});

describe("importArchive: tolerance", () => {
  const make = stepMaker({ tail: "bbbbbbbbbbbb" });
  const TRAJ = id(900, "bbbbbbbbbbbb");
  const header = JSON.stringify({ type: "trajectory", step_id: TRAJ, ts: "2025-01-01T00:00:00.000Z", name: "hand made" });
  const thought = JSON.stringify(make("thought", { content: "first — 漢字" }));
  const duplicate = JSON.stringify({ ...JSON.parse(thought), content: "second copy" });
  const invalid = JSON.stringify({ type: "reasoning", step_id: id(901, "bbbbbbbbbbbb"), ts: "2025-01-01T00:00:09.000Z", thought: "no cmd" });
  const unknown = JSON.stringify({ type: "telemetry", step_id: id(902, "bbbbbbbbbbbb"), ts: "2025-01-01T00:00:10.000Z", cpu: [0.5, 0.7] });
  const last = JSON.stringify(make("final", { content: "end, no newline after me" }));

  it("skips junk lines and duplicates, counting each reason; keeps invalid and unknown steps; reads \\r\\n and a last line without newline", async () => {
    const text = [header, "", "not json at all", "[1,2]", "null", '{"type":"thought"}', thought, duplicate, invalid, "   ", unknown, last].join("\r\n");
    const sink = new MemorySink();
    const stats = await importArchive(new Blob([text]), sink, { name: "hand.jsonl" });
    expect(stats).toEqual({
      steps: 5,
      skipped: 5,
      skippedReasons: { "not JSON": 1, "not a JSON object": 2, "no type or step_id": 1, "duplicate step_id": 1 },
      invalid: 1,
      byType: { trajectory: 1, thought: 1, reasoning: 1, telemetry: 1, final: 1 },
      runIds: new Set(),
      forks: 0,
      trajectories: 1,
      blobs: 0,
      warnings: [],
    } satisfies ImportStats);
    expect(sink.trajectories).toEqual([{ trajId: TRAJ, dir: "", name: "hand made", parentTraj: undefined, parentStep: undefined }]);
    // The first of two steps with one id wins; the copy is dropped.
    expect(sink.rawLines()).toEqual(new Map([[TRAJ, [header, thought, invalid, unknown, last]]]));
    expect(sink.received.get(TRAJ)?.[3]?.step).toEqual(JSON.parse(unknown));
  });

  it("skips a line over the limit unread, counts it with its reason and warns, and keeps the lines around it, in every format", async () => {
    const long = JSON.stringify(make("thought", { content: "x".repeat(5000) }));
    const text = [header, thought, long, "y".repeat(12_000), last].join("\n");
    const packed: [Blob, string][] = [
      [new Blob([text]), "trajectory.jsonl"],
      [await writeZip([{ path: "t/trajectory.jsonl", data: text }]), "t/trajectory.jsonl"],
      [new Blob([await streamBytes(writeTarGz([{ path: "t/trajectory.jsonl", data: text }]))]), "t/trajectory.jsonl"],
    ];
    for (const [blob, file] of packed) {
      const sink = new MemorySink();
      const stats = await importArchive(blob, sink, { name: "long", limits: { maxLineBytes: 4096 } });
      expect([stats.steps, stats.skipped, stats.skippedReasons, stats.warnings]).toEqual([
        3,
        2,
        { "line over 4 KiB": 2 },
        [`${file}: 2 line(s) over 4 KiB skipped unread; the lines around them were read.`],
      ]);
      expect([...sink.rawLines().values()]).toEqual([[header, thought, last]]);
    }
  });

  it("refuses a compressed flood of unreadable lines once they outnumber the bytes read, and reads the same lines uncompressed", async () => {
    const junk = new TextEncoder().encode("x\n".repeat(512 * 1024));
    const flood = tarGzBlob([{ name: "t/trajectory.jsonl", runs: [{ bytes: new TextEncoder().encode(`${header}\n`) }, { bytes: junk, times: 64 }] }]);
    const error = await errorOf(importArchive(flood, new MemorySink(), { name: "flood.tar.gz" }));
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as Error).message).toMatch(/^This file inflates to more unreadable lines than it has bytes \([\d,]+ lines from [\d.]+ KiB\); it looks like a decompression bomb and was not read further\.$/);
    const plain = await importArchive(new Blob([`${header}\n`, junk]), new MemorySink(), { name: "junk.jsonl" });
    expect([plain.steps, plain.skipped, SKIPPED_LINES_SLACK]).toEqual([1, 512 * 1024, 100_000]);
  });

  it("reads a line of exactly the limit, and lines of up to 8 MiB by default", async () => {
    const line = (bytes: number) => {
      const start = JSON.stringify(make("thought", { content: "" })).slice(0, -2);
      return `${start}${"x".repeat(bytes - start.length - 2)}"}`;
    };
    const at = line(4096);
    expect((await importArchive(new Blob([`${header}\n${at}\n`]), new MemorySink(), { limits: { maxLineBytes: 4096 } })).steps).toBe(2);
    const big = line(8 * 1024 * 1024);
    const stats = await importArchive(new Blob([`${header}\n${big}\n${line(8 * 1024 * 1024 + 1)}\n`]), new MemorySink());
    expect([stats.steps, stats.skippedReasons]).toEqual([2, { "line over 8 MiB": 1 }]);
  });

  it("imports without a mind.json its sink cannot use (nested too deep for a recursive walk), and says why", async () => {
    const deep = `{"name":${"[".repeat(200_000)}${"]".repeat(200_000)}}`;
    const sink = new MemorySink();
    sink.mind = async (json) => void JSON.stringify(json);
    const stats = await importArchive(await writeZip([{ path: "mind.json", data: deep }, { path: "t/trajectory.jsonl", data: `${header}\n` }]), sink);
    expect([stats.steps, stats.warnings]).toEqual([1, ["mind.json could not be used (Maximum call stack size exceeded); the trajectory was imported without it."]]);
  });

  it("skips a step whose id another trajectory of the archive already used", async () => {
    const child = JSON.stringify({ type: "trajectory", step_id: id(903, "bbbbbbbbbbbb"), ts: "2025-01-01T00:00:00.000Z", parent_traj: TRAJ });
    const sink = new MemorySink();
    const stats = await importArchive(
      await writeZip([
        { path: "a/trajectory.jsonl", data: `${header}\n${thought}\n` },
        { path: "a/b/trajectory.jsonl", data: `${child}\n${duplicate}\n${last}\n` },
      ]),
      sink,
      { name: "dup.zip" },
    );
    expect([stats.steps, stats.skipped, stats.skippedReasons]).toEqual([4, 1, { "duplicate step_id": 1 }]);
    expect([...sink.rawLines().values()]).toEqual([
      [header, thought],
      [child, last],
    ]);
  });

  it("gives a log without a trajectory line a new id, its folder's name, and its parent by folder", async () => {
    const ids = ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"];
    const sink = new MemorySink();
    await importArchive(
      await writeZip([
        { path: "export/a/trajectory.jsonl", data: `${header}\n` },
        { path: "export/a/old-log/trajectory.jsonl", data: `${thought}\n` },
      ]),
      sink,
      { name: "old.zip", newId: () => ids.shift() ?? "none left" },
    );
    expect(sink.trajectories).toEqual([
      { trajId: TRAJ, dir: "export/a", name: "hand made", parentTraj: undefined, parentStep: undefined },
      { trajId: "11111111-1111-4111-8111-111111111111", dir: "export/a/old-log", name: "old-log", parentTraj: TRAJ, parentStep: undefined },
    ]);
    expect(sink.rawLines().get("11111111-1111-4111-8111-111111111111")).toEqual([thought]);
  });

  it("an empty .jsonl is one empty trajectory, with a warning that names no folder", async () => {
    const sink = new MemorySink();
    const stats = await importArchive(new Blob([]), sink, { name: "empty.jsonl", newId: () => TRAJ });
    expect(checkSummary(stats)).toEqual({ steps: 0, skipped: 0, byType: {}, runs: 0, forks: 0, trajectories: 1 });
    expect(stats.warnings).toEqual(["trajectory.jsonl holds no readable steps."]);
    expect(sink.calls).toEqual([{ call: "trajectory", t: { trajId: TRAJ, dir: "", name: "trajectory", parentTraj: undefined, parentStep: undefined } }]);
  });

  it("a trajectory.jsonl of junk lines and duplicates in an archive is an empty trajectory, with a warning naming its folder", async () => {
    const first = "11111111-1111-4111-8111-111111111111";
    const second = "22222222-2222-4222-8222-222222222222";
    const ids = [first, second];
    const sink = new MemorySink();
    const stats = await importArchive(
      await writeZip([
        { path: "export/a/trajectory.jsonl", data: `${header}\n${thought}\n` },
        { path: "export/a/junk/trajectory.jsonl", data: `not json\n\n${thought}\n[1]\n` },
        { path: "export/b/trajectory.jsonl", data: "" },
      ]),
      sink,
      { name: "junk.zip", newId: () => ids.shift() ?? "none left" },
    );
    expect(checkSummary(stats)).toEqual({ steps: 2, skipped: 3, byType: { trajectory: 1, thought: 1 }, runs: 0, forks: 0, trajectories: 3 });
    expect(stats.skippedReasons).toEqual({ "not JSON": 1, "duplicate step_id": 1, "not a JSON object": 1 });
    expect(stats.warnings).toEqual(["export/a/junk/trajectory.jsonl holds no readable steps.", "export/b/trajectory.jsonl holds no readable steps."]);
    expect(sink.calls).toEqual([
      { call: "trajectory", t: { trajId: TRAJ, dir: "export/a", name: "hand made", parentTraj: undefined, parentStep: undefined } },
      { call: "steps", trajId: TRAJ, count: 2 },
      { call: "trajectory", t: { trajId: first, dir: "export/a/junk", name: "junk", parentTraj: TRAJ, parentStep: undefined } },
      { call: "trajectory", t: { trajId: second, dir: "export/b", name: "b", parentTraj: undefined, parentStep: undefined } },
    ]);
  });

  it("an archive without a trajectory.jsonl: no trajectories, and a warning", async () => {
    for (const [blob, name] of [
      [await writeZip([]), "empty.zip"],
      [await writeZip([{ path: "notes/readme.txt", data: "hello" }]), "other.zip"],
      [new Blob([await streamBytes(writeTarGz([]))]), "empty.tar.gz"],
    ] as const) {
      const sink = new MemorySink();
      const stats = await importArchive(blob, sink, { name });
      expect(checkSummary(stats), name).toEqual({ steps: 0, skipped: 0, byType: {}, runs: 0, forks: 0, trajectories: 0 });
      expect(stats.warnings, name).toEqual(["No trajectory.jsonl was found in this file."]);
      expect(sink.calls, name).toEqual([]);
    }
  });

  it("an empty file without a name is refused as not importable", async () => {
    const error = await errorOf(importArchive(new Blob([]), new MemorySink()));
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as Error).message).toBe("This file is not something Reverie can import: expected a .zip, .tar.gz, .tar or .jsonl file.");
  });

  it("hands mind.json to the sink, and warns (without failing) when it is not JSON", async () => {
    const good = new MemorySink();
    await importArchive(await writeZip([{ path: "mind.json", data: '{"name":"Ada","persona":"p"}' }, { path: "a/trajectory.jsonl", data: header }]), good, { name: "m.zip" });
    expect(good.minds).toEqual([{ name: "Ada", persona: "p" }]);
    const bad = new MemorySink();
    const stats = await importArchive(await writeZip([{ path: "x/mind.json", data: "{nope" }, { path: "a/trajectory.jsonl", data: header }]), bad, { name: "m.zip" });
    expect(bad.minds).toEqual([]);
    expect(stats.warnings).toEqual(["mind.json is not valid JSON; the trajectory was imported without it."]);
    expect(stats.steps).toBe(1);
  });

  it("decodes characters split across stream chunks: a Blob of 3-byte parts gives back every line exactly", async () => {
    const bytes = new TextEncoder().encode(TREE.files[0]!.data);
    const parts: Uint8Array<ArrayBuffer>[] = [];
    for (let i = 0; i < bytes.length; i += 3) parts.push(bytes.subarray(i, i + 3));
    expect(splitsACharacter(parts)).toBe(true);
    const sink = new MemorySink();
    const stats = await importArchive(new Blob(parts), sink, { name: "t.jsonl" });
    expect([stats.steps, stats.skipped]).toEqual([ROOT_LINES.length, 0]);
    expect(sink.rawLines()).toEqual(new Map([[TREE.rootId, ROOT_LINES]]));
  });

  it("a missing blob does not fail the import: the step keeps its inline text and ref", async () => {
    const sink = new MemorySink();
    const stats = await importArchive(await pack(TREE.files.filter((f) => f !== BLOB), "tar.gz"), sink, { name: "t.tar.gz" });
    expect(checkSummary(stats)).toEqual(expectedCounts(TREE, "tar.gz"));
    expect([stats.blobs, stats.warnings]).toEqual([0, []]);
    const big = sink.received.get(TREE.rootId)?.find((s) => s.step.step_id === TREE.ids.bigOutput);
    expect(big?.step).toMatchObject({ stdout: BLOB.data.slice(0, 4096), stdout_ref: `blobs/${BLOB.path.split("/").pop()}`, stdout_truncated: true });
  });
});

describe("importArchive: abort", () => {
  const big = makeHeadlongTree({ steps: 5000, seed: 9 });
  const total = big.counts[big.rootId]!;

  for (const packing of ["jsonl", "tar.gz", "zip"] as const) {
    it(`stops a .${packing} with an AbortError once aborted, before the sink gets every step`, async () => {
      const controller = new AbortController();
      const sink = new MemorySink();
      const error = await errorOf(
        importArchive(await pack(big.files, packing), sink, { name: `big.${packing}`, signal: controller.signal, batchSize: 100, onProgress: () => controller.abort() }),
      );
      expect(error).toBeInstanceOf(DOMException);
      expect((error as DOMException).name).toBe("AbortError");
      const received = [...sink.received.values()].flat().length;
      expect(received).toBeLessThan(total);
    });
  }

  it("does not start when the signal is already aborted, and throws its reason", async () => {
    const controller = new AbortController();
    const reason = new DOMException("user left", "AbortError");
    controller.abort(reason);
    const sink = new MemorySink();
    expect(await errorOf(importArchive(await pack(TREE.files, "zip"), sink, { signal: controller.signal }))).toBe(reason);
    expect(sink.calls).toEqual([]);
  });
});

// ---------------------------------------------------------------- IndexedDB

let db: ReverieDb;
const openDb = () => openTestDb("import-test");

const TABLES = ["minds", "steps", "pages", "blobs", "trajectories"] as const;
const counts = async (d: ReverieDb) => {
  const out = { minds: 0, steps: 0, pages: 0, blobs: 0, trajectories: 0 };
  for (const t of TABLES) out[t] = await d[t].count();
  return out;
};
const NOTHING = { minds: 0, steps: 0, pages: 0, blobs: 0, trajectories: 0 };

/** Counts rows written through Dexie (bulkAdd and put included), whatever happens to them later. */
function countWrites(d: ReverieDb) {
  const written = { steps: 0, pages: 0, blobs: 0, trajectories: 0 };
  d.steps.hook("creating", () => void written.steps++);
  d.pages.hook("creating", () => void written.pages++);
  d.blobs.hook("creating", () => void written.blobs++);
  d.trajectories.hook("creating", () => void written.trajectories++);
  return written;
}

const collect = async (entries: AsyncIterable<OutEntry>) => {
  const out: OutEntry[] = [];
  for await (const e of entries) out.push(e);
  return out;
};
const byPath = (files: { path: string; data: string | Uint8Array }[]) => [...files].sort((a, b) => a.path.localeCompare(b.path));
const stepIdOf = (line: string) => (JSON.parse(line) as Step).step_id;

/** The pages an import should write: each trajectory's lines in pages of PAGE_LINES, seqs shared by the owner, ids lower-cased. */
function expectedPages(owner: string, trajectories: [string, string[]][]): PageRow[] {
  const out: PageRow[] = [];
  let seq = 0;
  for (const [traj, lines] of trajectories) {
    for (let page = 0; page * PAGE_LINES < lines.length; page++) {
      const chunk = lines.slice(page * PAGE_LINES, (page + 1) * PAGE_LINES);
      out.push({ mind_id: owner, traj_id: traj, page, first: seq, lines: chunk.join("\n"), ids: chunk.map((l) => stepIdOf(l).toLowerCase()).join(",") });
      seq += chunk.length;
    }
  }
  return out;
}
const pagesOf = async (d: ReverieDb, owner: string) => (await d.pages.where("[mind_id+first]").between([owner, 0], [owner, Infinity]).toArray()).sort((a, b) => a.first - b.first);

describe("importIntoDb", () => {
  beforeEach(async () => {
    db = await openDb();
  });
  afterEach(async () => {
    await db.delete();
  });

  it("writes every line (in pages), trajectory and blob under a new owner, and commits an ImportedArchive record with the stats", async () => {
    const before = Date.now();
    const { id: owner, stats } = await importIntoDb(db, await pack(TREE.files, "tar.gz"), { name: "tree.tar.gz" });
    const after = Date.now();
    expect(checkSummary(stats)).toEqual(expectedCounts(TREE, "tar.gz"));

    const record = await getArchive(db, owner);
    expect(record).toEqual({
      kind: "imported",
      id: owner,
      name: "tree",
      created_at: record?.created_at,
      source: "tree.tar.gz",
      stats: { steps: ROOT_LINES.length + CHILD_LINES.length, skipped: 0, trajectories: 2, forks: 1, runs: 7, blobs: 1 },
    });
    const created = Date.parse(record?.created_at ?? "");
    expect(created >= before - 1 && created <= after + 1).toBe(true);
    expect(await listArchives(db)).toEqual([record]);

    expect(await db.trajectories.where("mind_id").equals(owner).toArray()).toEqual(
      [
        { mind_id: owner, traj_id: TREE.rootId, name: "monolith", dir: ROOT_DIR },
        { mind_id: owner, traj_id: TREE.childId!, name: "subtask", dir: CHILD_DIR, parent_traj: TREE.rootId, parent_step: TREE.ids.fork },
      ].sort((a, b) => a.traj_id.localeCompare(b.traj_id)),
    );
    expect(await pagesOf(db, owner)).toEqual(
      expectedPages(owner, [
        [TREE.rootId, ROOT_LINES],
        [TREE.childId!, CHILD_LINES],
      ]),
    );
    expect(await db.blobs.toArray()).toEqual([{ mind_id: owner, name: BLOB.path, text: BLOB.data }]);
    expect(await db.steps.count()).toBe(0);
  });

  it("splits a long trajectory into pages of PAGE_LINES lines, the child's seqs following the root's", async () => {
    const big = makeHeadlongTree({ steps: 1200, withChild: true, seed: 4 });
    const lines = [...linesByDir(big.files).values()];
    const { id: owner } = await importIntoDb(db, await pack(big.files, "zip"), { name: "big.zip" });
    const pages = await pagesOf(db, owner);
    expect(pages).toEqual(
      expectedPages(owner, [
        [big.rootId, lines[0]!],
        [big.childId!, lines[1]!],
      ]),
    );
    expect(pages.map((p) => [p.traj_id === big.rootId ? "root" : "child", p.page, p.first])).toEqual([
      ["root", 0, 0],
      ["root", 1, 500],
      ["root", 2, 1000],
      ["child", 0, lines[0]!.length],
    ]);
  });

  it("names the archive after its mind.json, and keeps that mind.json without keys", async () => {
    const mind = { name: "  Ada  ", persona: "curious", model: { provider: "openai", model: "gpt", apiKey: "fake-key-secret" }, access_token: "t", notes: ["kept"] };
    const { id: owner } = await importIntoDb(db, await writeZip([{ path: "mind.json", data: JSON.stringify(mind) }, ...TREE.files]), { name: "x.zip" });
    const record = await getArchive(db, owner);
    const c = expectedCounts(TREE, "zip");
    expect(record).toEqual({
      kind: "imported",
      id: owner,
      name: "Ada",
      created_at: record?.created_at,
      source: "x.zip",
      stats: { steps: c.steps, skipped: 0, trajectories: c.trajectories, forks: c.forks, runs: c.runs, blobs: 1 },
      mind: { name: "  Ada  ", persona: "curious", model: { provider: "openai", model: "gpt" }, notes: ["kept"] },
    });
    expect(JSON.stringify(await db.minds.get(owner))).not.toMatch(/fake-key-secret|access_token/);
  });

  it("drops only fields named like a credential, in any case and at any depth: max_tokens and the like are kept", async () => {
    const mind = {
      name: "Ada",
      model: {
        provider: "openai",
        model: "gpt",
        max_tokens: 4096,
        apiKey: "fake-key-1",
        api_key: "fake-key-2",
        "API-KEY": "fake-key-3",
        headers: { Authorization: "Bearer fake-key-4", "X-Trace": "kept" },
      },
      Token: "fake-key-5",
      ACCESS_TOKEN: "fake-key-6",
      "access-token": "fake-key-7",
      secret: "fake-key-8",
      Password: "fake-key-9",
      key: "fake-key-10",
      keyboard: "qwerty",
      tokens_used: 12,
      secret_santa: "Bob",
      api_keys_note: "kept",
      monkey: "kept",
    };
    const { id: owner } = await importIntoDb(db, await writeZip([{ path: "mind.json", data: JSON.stringify(mind) }, ...TREE.files]), { name: "m.zip" });
    expect((await getArchive(db, owner))?.mind).toEqual({
      name: "Ada",
      model: { provider: "openai", model: "gpt", max_tokens: 4096, headers: { "X-Trace": "kept" } },
      keyboard: "qwerty",
      tokens_used: 12,
      secret_santa: "Bob",
      api_keys_note: "kept",
      monkey: "kept",
    });
    expect(JSON.stringify(await db.minds.get(owner))).not.toMatch(/fake-key-/);
  });

  it("imports a tree whose mind.json is nested too deep to strip, without it, named after the file", async () => {
    const deep = `{"name":"Deep","x":${"[".repeat(200_000)}${"]".repeat(200_000)}}`;
    const { id: owner, stats } = await importIntoDb(db, await writeZip([{ path: "mind.json", data: deep }, ...TREE.files]), { name: "deep.zip" });
    const archive = await getArchive(db, owner);
    expect([archive?.name, archive?.mind, stats.steps, stats.warnings]).toEqual([
      "deep",
      undefined,
      expectedCounts(TREE, "zip").steps,
      ["mind.json could not be used (Maximum call stack size exceeded); the trajectory was imported without it."],
    ]);
  });

  it("stores a page's step ids lower-cased, its lines as they were, so any case of an id is found", async () => {
    const upper = (n: number) => id(n, "ABCDEFABCDEF").toUpperCase();
    const lines = [
      JSON.stringify({ type: "trajectory", step_id: upper(0xa1), ts: "2025-01-01T00:00:00.000Z", name: "Shouting" }),
      JSON.stringify({ type: "thought", step_id: upper(0xa2), ts: "2025-01-01T00:00:01.000Z", content: "ID IN CAPITALS" }),
      JSON.stringify({ type: "final", step_id: "000000a3-0000-4000-8000-abcdefabcdef", ts: "2025-01-01T00:00:02.000Z", content: "done" }),
    ];
    const { id: owner } = await importIntoDb(db, new Blob([`${lines.join("\n")}\n`]), { name: "upper.jsonl" });
    expect(await pagesOf(db, owner)).toEqual([
      {
        mind_id: owner,
        traj_id: "000000A1-0000-4000-8000-ABCDEFABCDEF",
        page: 0,
        first: 0,
        lines: lines.join("\n"),
        ids: "000000a1-0000-4000-8000-abcdefabcdef,000000a2-0000-4000-8000-abcdefabcdef,000000a3-0000-4000-8000-abcdefabcdef",
      },
    ]);
    const source = pageSource(db, owner);
    expect(await source.locate("000000A2-0000-4000-8000-ABCDEFABCDEF")).toEqual({ seq: 1, traj: "000000A1-0000-4000-8000-ABCDEFABCDEF" });
    expect(await source.locate("000000a2-0000-4000-8000-abcdefabcdef")).toEqual({ seq: 1, traj: "000000A1-0000-4000-8000-ABCDEFABCDEF" });
    expect(await source.locate("000000a3-0000-4000-8000-ABCDEFABCDEF")).toEqual({ seq: 2, traj: "000000A1-0000-4000-8000-ABCDEFABCDEF" });
  });

  it("imports the same file twice as two owners", async () => {
    const blob = await pack(TREE.files, "zip");
    const a = await importIntoDb(db, blob, { name: "t.zip" });
    const b = await importIntoDb(db, blob, { name: "t.zip" });
    expect(a.id).not.toBe(b.id);
    expect(await counts(db)).toEqual({ minds: 2, steps: 0, pages: 4, blobs: 2, trajectories: 4 });
  });

  it("a file with no readable steps fails with ImportError and leaves nothing behind", async () => {
    const written = countWrites(db);
    const error = await errorOf(importIntoDb(db, new Blob(["junk\n[1]\n"]), { name: "junk.jsonl" }));
    expect(error).toBeInstanceOf(ImportError);
    expect((error as Error).message).toBe("junk.jsonl holds no readable steps (2 line(s) skipped).");
    expect(written.trajectories).toBe(1);
    expect(await counts(db)).toEqual(NOTHING);
  });

  it("an archive without trajectories fails with ImportError, its blobs removed", async () => {
    const written = countWrites(db);
    const error = await errorOf(importIntoDb(db, await writeZip([{ path: "a/blobs/x", data: "text" }]), { name: "x.zip" }));
    expect(error).toBeInstanceOf(ImportError);
    expect((error as Error).message).toBe("x.zip holds no trajectory.jsonl: nothing to import.");
    expect(written.blobs).toBe(1);
    expect(await counts(db)).toEqual(NOTHING);
  });

  it("a damaged archive fails with its ArchiveError after pages were written, and leaves none", async () => {
    const big = makeHeadlongTree({ steps: 6000, withChild: true, seed: 5 });
    const whole = new Uint8Array(await (await pack(big.files, "tar.gz")).arrayBuffer());
    const written = countWrites(db);
    const error = await errorOf(importIntoDb(db, new Blob([whole.subarray(0, Math.floor(whole.length * 0.8))]), { name: "cut.tar.gz" }));
    expect(error).toBeInstanceOf(ArchiveError);
    expect(written.pages).toBeGreaterThanOrEqual(4);
    expect(await counts(db)).toEqual(NOTHING);
  });

  it("an import aborted after the first progress report rejects with AbortError and leaves nothing behind", async () => {
    const written = countWrites(db);
    const controller = new AbortController();
    let reports = 0;
    const error = await errorOf(
      importIntoDb(db, await pack(makeHeadlongTree({ steps: 3000 }).files, "jsonl"), {
        name: "t.jsonl",
        signal: controller.signal,
        onProgress: () => {
          if (reports++ === 0) controller.abort();
        },
      }),
    );
    expect((error as Error).name).toBe("AbortError");
    expect(written.trajectories).toBeGreaterThan(0);
    expect(await counts(db)).toEqual(NOTHING);
  });

  it("an import aborted once pages were written leaves nothing behind either", async () => {
    const written = countWrites(db);
    const controller = new AbortController();
    const error = await errorOf(
      importIntoDb(db, await pack(makeHeadlongTree({ steps: 6000, withChild: true }).files, "zip"), {
        name: "t.zip",
        signal: controller.signal,
        onProgress: (_read, _total, stats) => {
          if (stats.steps >= 2000) controller.abort();
        },
      }),
    );
    expect((error as Error).name).toBe("AbortError");
    expect(written.pages).toBeGreaterThanOrEqual(4);
    expect(await counts(db)).toEqual(NOTHING);
  });

  it("discardUncommitted refuses a committed owner and deletes nothing", async () => {
    const { id: owner } = await importIntoDb(db, await pack(TREE.files, "zip"), { name: "t.zip" });
    const before = await counts(db);
    const error = await errorOf(discardUncommitted(db, owner));
    expect((error as Error).message).toBe("Refusing to delete the steps of a committed owner.");
    expect(await counts(db)).toEqual(before);
  });

  it("discardUncommitted refuses a live mind too", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "", model: { provider: "openai", model: "gpt" } });
    await expect(discardUncommitted(db, mind.id)).rejects.toThrow("Refusing to delete the steps of a committed owner.");
    expect(await counts(db)).toEqual({ minds: 1, steps: 2, pages: 0, blobs: 0, trajectories: 1 });
  });

  it("sweepUnfinishedImports removes abandoned imports (even one that only got as far as a blob), sparing running ones, committed archives and minds", async () => {
    const { id: committed } = await importIntoDb(db, await pack(TREE.files, "zip"), { name: "t.zip" });
    const mind = await createMind(db, { name: "Ada", persona: "", model: { provider: "openai", model: "gpt" } });
    await indexedDbMindState(db, mind.id).putBlob(mind.id, "x.stdout", "mind blob");
    const abandoned = "abandon0-0000-4000-8000-000000000000";
    const running = "running0-0000-4000-8000-000000000000";
    const blobOnly = "blobonly-0000-4000-8000-000000000000";
    // Each import marks itself in progress before it writes anything.
    for (const owner of [abandoned, running, blobOnly]) await markImportStarted(db, owner);
    for (const owner of [abandoned, running]) {
      await db.trajectories.put({ mind_id: owner, traj_id: owner, name: "half", dir: "half" });
      await db.pages.add({ mind_id: owner, traj_id: owner, page: 0, first: 0, lines: ROOT_LINES.slice(0, 3).join("\n"), ids: ROOT_LINES.slice(0, 3).map(stepIdOf).join(",") });
      await db.blobs.put({ mind_id: owner, name: "half/blobs/x", text: "half" });
    }
    // An archive that lists blobs/ before trajectory.jsonl, closed while its blobs were being written.
    await db.blobs.put({ mind_id: blobOnly, name: "a/blobs/first", text: "listed before trajectory.jsonl" });
    const before = await counts(db);

    expect(await sweepUnfinishedImports(db, (owner) => owner === running)).toBe(2);
    expect(await counts(db)).toEqual({ ...before, pages: before.pages - 1, blobs: before.blobs - 2, trajectories: before.trajectories - 1 });
    const owners = async (table: "steps" | "pages" | "blobs" | "trajectories") => [...new Set((await db[table].toArray()).map((r) => r.mind_id))].sort();
    expect(await owners("pages")).toEqual([committed, running].sort());
    expect(await owners("blobs")).toEqual([committed, mind.id, running].sort());
    expect(await owners("trajectories")).toEqual([committed, mind.id, running].sort());
    expect(await owners("steps")).toEqual([mind.id]);
    // Nothing left to sweep; the running import is swept once it is no longer running.
    expect(await sweepUnfinishedImports(db, (owner) => owner === running)).toBe(0);
    expect(await sweepUnfinishedImports(db)).toBe(1);
    expect(await owners("trajectories")).toEqual([committed, mind.id].sort());
    // The committed import cleared its own marker; the swept ones lost theirs.
    expect(await db.settings.toArray()).toEqual([]);
  });
});

describe("export", () => {
  beforeEach(async () => {
    db = await openDb();
  });
  afterEach(async () => {
    await db.delete();
  });

  const roundTrip = async (owner: string, packing: "tar.gz" | "zip") => {
    const entries = exportEntries(db, owner);
    const blob = packing === "tar.gz" ? new Blob([await streamBytes(writeTarGz(entries))]) : await writeZip(entries);
    return unpack(blob, `out.${packing}`);
  };

  for (const packing of ["tar.gz", "zip"] as const) {
    it(`an imported tree exports (as .${packing}) to the same files, byte for byte, plus mind.json`, async () => {
      const { id: owner } = await importIntoDb(db, await pack(TREE.files, "tar.gz"), { name: "tree.tar.gz" });
      const files = await roundTrip(owner, packing);
      const mind = files.find((f) => f.path === "mind.json");
      expect(JSON.parse(mind?.data ?? "")).toEqual({ format: "reverie-mind", version: 1, name: "tree" });
      expect(byPath(files.filter((f) => f !== mind))).toEqual(byPath(TREE.files));
    });
  }

  it("a tree of several pages per trajectory exports byte for byte", async () => {
    const big = makeHeadlongTree({ steps: 1300, withChild: true, seed: 8 });
    const { id: owner } = await importIntoDb(db, await pack(big.files, "zip"), { name: "big.zip" });
    const files = await roundTrip(owner, "zip");
    expect(byPath(files.filter((f) => f.path !== "mind.json"))).toEqual(byPath(big.files));
  });

  it("a lone .jsonl exports into a <hex8>-<slug> folder", async () => {
    const { id: owner } = await importIntoDb(db, await pack(TREE.files, "jsonl"), { name: "trajectory.jsonl" });
    const files = await collect(exportEntries(db, owner));
    expect(files.map((f) => f.path)).toEqual(["mind.json", `${trajDirName(TREE.rootId, "monolith")}/trajectory.jsonl`]);
    expect(files[1]?.data).toBe(TREE.files[0]?.data);
    expect(trajDirName(TREE.rootId, "monolith")).toBe(ROOT_DIR);
  });

  it("an imported mind.json is exported again, without its keys, under the archive's name", async () => {
    const mind = { format: "reverie-mind", version: 1, name: "Ada", persona: "curious", model: { provider: "openai", model: "gpt", apiKey: "fake-key-secret" } };
    const { id: owner } = await importIntoDb(db, await writeZip([{ path: "mind.json", data: JSON.stringify(mind) }, ...TREE.files]), { name: "x.zip" });
    const files = await collect(exportEntries(db, owner));
    expect(JSON.parse(String(files.find((f) => f.path === "mind.json")?.data))).toEqual({
      format: "reverie-mind",
      version: 1,
      name: "Ada",
      persona: "curious",
      model: { provider: "openai", model: "gpt" },
    });
  });

  it("a live mind's sealed summaries export as tiers.jsonl beside its trajectory (without the store's seqs), and import back into the tiers table", async () => {
    const mind = await createMind(db, { name: "Wren", persona: "", model: { provider: "openai", model: "gpt" } }, Date.UTC(2026, 0, 2));
    const mk = stepMaker({ start: Date.UTC(2026, 0, 3) });
    const ids: string[] = [];
    const seqs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const step = mk("thought", { content: `thought ${i}` });
      seqs.push(await appendStep(db, mind.id, step));
      ids.push(step.step_id);
    }
    const line = (index: number) => ({ tier: 0, index, content: `I thought, part ${index}.`, cites: [ids[index * 10 + 2] as string], first_step: ids[index * 10] as string, last_step: ids[index * 10 + 9] as string, steps: 10 });
    for (const index of [1, 0]) await sealTier(db, mind.id, mind.id, { ...line(index), first_seq: seqs[index * 10], last_seq: seqs[index * 10 + 9], model: "scripted/model", created: "2026-01-03T00:00:00.000Z" });
    const files = await collect(exportEntries(db, mind.id));
    const dir = trajDirName(mind.id, "Wren");
    expect(files.map((f) => f.path)).toEqual(["mind.json", `${dir}/trajectory.jsonl`, `${dir}/tiers.jsonl`]);
    const exported = [line(0), line(1)].map((l) => ({ ...l, model: "scripted/model", created: "2026-01-03T00:00:00.000Z" }));
    expect(String(files[2]?.data)).toBe(exported.map((l) => `${JSON.stringify(l)}\n`).join(""));

    // Back in, with a malformed line and a second line for block 0 among them: both skipped and counted, the rest kept.
    const damaged = files.map((f) => (f.path.endsWith("tiers.jsonl") ? { ...f, data: `not json\n${String(f.data)}${JSON.stringify({ ...line(0), content: "A rewrite." })}\n{"tier":0}\n` } : f));
    const { id: owner, stats } = await importIntoDb(db, await writeZip(damaged), { name: "wren.zip" });
    expect((await readTiers(db, owner, mind.id)).tiers).toEqual([line(0), line(1)]);
    expect(await db.tiers.where("[mind_id+traj_id]").equals([owner, mind.id]).toArray()).toEqual(exported.map((l) => ({ mind_id: owner, traj_id: mind.id, ...l })));
    expect(stats.warnings).toEqual([`${dir}/tiers.jsonl: 2 line(s) skipped that are not sealed summaries; the other 2 were imported.`, `${dir}/tiers.jsonl: 1 later summary line(s) of a block already read were skipped (the first one sealed it).`]);
    // And out again, the same lines.
    expect(String((await collect(exportEntries(db, owner))).find((f) => f.path.endsWith("tiers.jsonl"))?.data)).toBe(String(files[2]?.data));
  });

  it("a live mind exports its trajectory, its blobs, and a mind.json without the key", async () => {
    const mind = await createMind(db, { name: "Ada Lovelace", persona: "curious", model: { provider: "openai", model: "gpt", apiKey: "fake-key-secret-123" } }, Date.UTC(2026, 0, 2));
    await indexedDbMindState(db, mind.id).putBlob(mind.id, "out.stdout", "whole output");
    const files = await roundTrip(mind.id, "tar.gz");
    const rootDir = trajDirName(mind.id, "Ada Lovelace");
    expect(files.map((f) => f.path)).toEqual(["mind.json", `${rootDir}/trajectory.jsonl`, `${rootDir}/blobs/out.stdout`]);
    expect(JSON.parse(files[0]?.data ?? "")).toEqual({
      format: MIND_JSON_FORMAT,
      version: 1,
      id: mind.id,
      name: "Ada Lovelace",
      persona: "curious",
      model: { provider: "openai", model: "gpt" },
      pacing: { base_s: 5, cap_s: 300, ticks_per_level: 3 },
      max_iterations: 12,
      created_at: "2026-01-02T00:00:00.000Z",
    });
    expect(files.some((f) => f.data.includes("fake-key-secret"))).toBe(false);
    const rootSteps = (files[1]?.data ?? "")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Step);
    expect(rootSteps.map((s) => [s.type, s.step_id])).toEqual([
      ["trajectory", mind.id],
      ["config", rootSteps[1]?.step_id],
    ]);
    expect(files[2]?.data).toBe("whole output");
  });

  it("a live mind's forked child is exported in a folder nested in the mind's", async () => {
    const mind = await createMind(db, { name: "Ada", persona: "", model: { provider: "openai", model: "gpt" } });
    const childId = "c0c0c0c0-0000-4000-8000-000000000000";
    await db.trajectories.add({ mind_id: mind.id, traj_id: childId, name: "Sub Task", dir: "", parent_traj: mind.id, parent_step: id(1) });
    const childStep = stepMaker({ tail: "dddddddddddd" })("thought", { content: "in the child" });
    await appendStep(db, mind.id, childStep, childId);
    const files = await collect(exportEntries(db, mind.id));
    const rootDir = trajDirName(mind.id, "Ada");
    expect(files.map((f) => f.path).sort()).toEqual(["mind.json", `${rootDir}/trajectory.jsonl`, `${rootDir}/c0c0c0c0-sub-task/trajectory.jsonl`].sort());
    expect(files.find((f) => f.path.endsWith("sub-task/trajectory.jsonl"))?.data).toBe(`${JSON.stringify(childStep)}\n`);
  });

  it("refuses to export an owner that does not exist", async () => {
    await expect(collect(exportEntries(db, "nobody"))).rejects.toThrow("Nothing to export: no mind or archive nobody.");
  });

  it("exportDirs nests live children under their parent, keeps imported folders, and roots a child whose parent is gone", () => {
    const row = (traj_id: string, name: string, dir: string, parent_traj?: string): TrajectoryRow => ({ mind_id: "m", traj_id, name, dir, parent_traj });
    const dirs = exportDirs([row(id(3), "grandchild", "", id(2)), row(id(1), "Root", ""), row(id(2), "child", "", id(1)), row(id(4), "orphan", "", id(9)), row(id(5), "imported", "x/y")]);
    expect(dirs).toEqual(
      new Map([
        [id(3), "00000001-root/00000002-child/00000003-grandchild"],
        [id(1), "00000001-root"],
        [id(2), "00000001-root/00000002-child"],
        [id(4), "00000004-orphan"],
        [id(5), "x/y"],
      ]),
    );
  });

  it("mindJson of something that is neither mind nor archive is a bare reverie-mind", () => {
    expect(mindJson({ what: "ever" })).toEqual({ format: "reverie-mind", version: 1, name: "trajectory" });
  });
});

/** Every entry `older` hands over, and the sizes of the pages it handed. */
async function olderOf(source: StepSource, traj: string, beforeSeq: number) {
  const entries: IndexEntry[] = [];
  const sizes: number[] = [];
  await source.older(traj, beforeSeq, (page) => {
    entries.push(...page);
    sizes.push(page.length);
  });
  return { entries, sizes };
}

describe("view: an imported archive (pageSource)", () => {
  let owner: string;
  let source: StepSource;
  let root: IndexEntry[];
  let child: IndexEntry[];
  let trajs: TrajectoryRow[];
  const big = makeHeadlongTree({ steps: 5200, withChild: true, seed: 11 });
  const [bigRoot, bigChild] = [...linesByDir(big.files).values()] as [string[], string[]];
  const bigBlob = big.files.find((f) => f.path.includes("/blobs/")) as TreeFile;

  beforeAll(async () => {
    db = await openDb();
    owner = (await importIntoDb(db, await pack(big.files, "tar.gz"), { name: "big.tar.gz" })).id;
    // A second import of another tree, to show reads stay within their owner.
    await importIntoDb(db, await pack(TREE.files, "tar.gz"), { name: "other.tar.gz" });
    source = pageSource(db, owner);
    // Seqs are the owner's line numbers: the root's lines, then the child's.
    root = bigRoot.map((l, i) => entryOf(i, parsed(l)));
    child = bigChild.map((l, i) => entryOf(bigRoot.length + i, parsed(l)));
    trajs = await db.trajectories.where("mind_id").equals(owner).toArray();
  });
  afterAll(async () => {
    await db.delete();
  });

  it("newest: the newest n of one trajectory, oldest first, across pages", async () => {
    expect(await source.newest(big.rootId, 5)).toEqual(root.slice(-5));
    expect(await source.newest(big.rootId, 700)).toEqual(root.slice(-700));
    expect(await source.newest(big.childId!, 100)).toEqual(child);
    expect(await source.newest("no-such-traj", 5)).toEqual([]);
  });

  it("older: every entry before a seq, oldest first, a page at a time", async () => {
    const before = root.at(-150)!.seq;
    const { entries, sizes } = await olderOf(source, big.rootId, before);
    expect(entries).toEqual(root.slice(0, -150));
    expect(sizes.every((n) => n <= PAGE_LINES)).toBe(true);
    expect(sizes.length).toBe(Math.ceil(entries.length / PAGE_LINES));
    expect((await olderOf(source, big.childId!, child[3]!.seq)).entries).toEqual(child.slice(0, 3));
    expect((await olderOf(source, big.rootId, 0)).entries).toEqual([]);
  });

  it("older stops when its signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await errorOf(source.older(big.rootId, root.at(-1)!.seq, () => undefined, controller.signal));
    expect((error as Error).name).toBe("AbortError");
  });

  it("bodies: the parsed steps for seqs, from any trajectory, skipping seqs that do not exist", async () => {
    const bigOutput = root.find((e) => e.id === big.ids.bigOutput)!;
    const childFinal = child.find((e) => e.id === big.ids.childFinal)!;
    const seqs = [bigOutput.seq, bigOutput.seq + 1, childFinal.seq, root.at(-1)!.seq, 99_999_999];
    expect(await source.bodies(seqs)).toEqual(
      new Map([
        [bigOutput.seq, parsed(bigRoot[bigOutput.seq]!)],
        [bigOutput.seq + 1, parsed(bigRoot[bigOutput.seq + 1]!)],
        [childFinal.seq, parsed(bigChild.at(-1)!)],
        [root.at(-1)!.seq, parsed(bigRoot.at(-1)!)],
      ]),
    );
  });

  it("locate finds a step in either trajectory, by any case of its id, and only in its owner", async () => {
    const childFinal = child.find((e) => e.id === big.ids.childFinal)!;
    expect(await source.locate(big.ids.childFinal!)).toEqual({ seq: childFinal.seq, traj: big.childId });
    expect(await source.locate(big.ids.childFinal!.toUpperCase())).toEqual({ seq: childFinal.seq, traj: big.childId });
    expect(await source.locate(big.rootId)).toEqual({ seq: 0, traj: big.rootId });
    expect(await source.locate(big.ids.last)).toEqual({ seq: root.at(-1)!.seq, traj: big.rootId });
    expect(await source.locate(TREE.ids.last)).toBeNull();
    expect(await source.locate(id(12345))).toBeNull();
  });

  it("lists the archive's trajectories, and cannot be watched (an archive does not grow)", async () => {
    expect((await source.trajectories()).map((t) => t.traj_id).sort()).toEqual(trajs.map((t) => t.traj_id).sort());
    expect(source.watch).toBeUndefined();
    expect(source.root).toBeUndefined();
  });

  it("blob reads a ref relative to the trajectory's own folder", async () => {
    const ref = `blobs/${bigBlob.path.split("/").pop()}`;
    expect(await source.blob(trajs.find((t) => t.traj_id === big.rootId), ref)).toBe(bigBlob.data);
    expect(await source.blob(trajs.find((t) => t.traj_id === big.childId), ref)).toBeUndefined();
    expect(await source.blob(undefined, ref)).toBeUndefined();
  });

  it("search finds text that is only inside a blob, at the step that points to it", async () => {
    expect(bigRoot.some((l) => l.includes("needle-in-blob-FOUND"))).toBe(false);
    const bigOutput = root.find((e) => e.id === big.ids.bigOutput)!;
    expect(await source.search("needle-in-blob-found")).toEqual({ hits: [{ seq: bigOutput.seq, id: big.ids.bigOutput, traj: big.rootId }], truncated: false });
  });

  it("search finds text in the child trajectory and the merge that carried it back, in order, case-insensitively", async () => {
    const merge = root.find((e) => e.type === "merge")!;
    const childFinal = child.find((e) => e.id === big.ids.childFinal)!;
    const want = [
      { seq: merge.seq, id: merge.id, traj: big.rootId },
      { seq: childFinal.seq, id: childFinal.id, traj: big.childId },
    ];
    expect(await source.search("CHILD-answer-THREE")).toEqual({ hits: want, truncated: false });
    expect(await source.search("child-answer-three", { limit: 1 })).toEqual({ hits: want.slice(0, 1), truncated: true });
  });

  it("search reads every page, and finds nothing that is not there", async () => {
    expect(root.length).toBeGreaterThan(5000);
    expect(await source.search(big.ids.last)).toEqual({ hits: [{ seq: root.at(-1)!.seq, id: big.ids.last, traj: big.rootId }], truncated: false });
    expect(await source.search("no such text anywhere")).toEqual({ hits: [], truncated: false });
  });

  it("search stops when its signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(((await errorOf(source.search("x", { signal: controller.signal }))) as Error).name).toBe("AbortError");
  });
});

describe("view: a live mind (rowSource)", () => {
  let source: StepSource;
  let mindId: string;
  const childId = "c0c0c0c0-0000-4000-8000-000000000000";
  const make = stepMaker({ tail: "eeeeeeeeeeee" });
  let rootRows: StepRow[];
  let childRows: StepRow[];
  const entriesOf = (rows: StepRow[]) => rows.map((r) => entryOf(r.seq!, parsed(r.json)));

  beforeAll(async () => {
    db = await openDb();
    const mind = await createMind(db, { name: "Ada", persona: "", model: { provider: "openai", model: "gpt" } });
    mindId = mind.id;
    await db.trajectories.add({ mind_id: mindId, traj_id: childId, name: "child", dir: "", parent_traj: mindId });
    // Root and child steps interleave in seq, as a fork's would.
    for (let i = 0; i < 30; i++) {
      await appendStep(db, mindId, make("thought", { content: `root thought ${i}` }));
      if (i % 10 === 0) await appendStep(db, mindId, make("thought", { content: `child thought ${i} Needle` }), childId);
    }
    await indexedDbMindState(db, mindId).putBlob(mindId, "x.stdout", "a NEEDLE only in the blob");
    await appendStep(db, mindId, make("shell-output", { stdout: "cut", stderr: "", exit: 0, exec_s: 0, timed_out: false, stdout_ref: "blobs/x.stdout", stdout_truncated: true }));
    const rows = await db.steps.orderBy("seq").toArray();
    rootRows = rows.filter((r) => r.traj_id === mindId);
    childRows = rows.filter((r) => r.traj_id === childId);
    source = rowSource(db, mindId);
  });
  afterAll(async () => {
    await db.delete();
  });

  it("the fixture: 33 root steps (trajectory, config, 30 thoughts, an output) and 3 child steps", () => {
    expect([rootRows.length, childRows.length]).toEqual([33, 3]);
  });

  it("newest and older page one trajectory, whatever the other wrote in between", async () => {
    const root = entriesOf(rootRows);
    expect(await source.newest(mindId, 4)).toEqual(root.slice(-4));
    expect((await olderOf(source, mindId, root.at(-4)!.seq)).entries).toEqual(root.slice(0, -4));
    expect(await source.newest(childId, 10)).toEqual(entriesOf(childRows));
  });

  it("bodies, locate and search", async () => {
    const root = entriesOf(rootRows);
    expect(await source.bodies([root[2]!.seq, childRows[1]!.seq!, 99_999])).toEqual(
      new Map([
        [root[2]!.seq, parsed(rootRows[2]!.json)],
        [childRows[1]!.seq!, parsed(childRows[1]!.json)],
      ]),
    );
    expect(await source.locate(childRows[2]!.step_id)).toEqual({ seq: childRows[2]!.seq, traj: childId });
    expect(await source.locate(id(4242))).toBeNull();
    const output = rootRows.at(-1)!;
    expect(await source.search("needle")).toEqual({
      hits: [...childRows.map((r) => ({ seq: r.seq, id: r.step_id, traj: childId })), { seq: output.seq, id: output.step_id, traj: mindId }],
      truncated: false,
    });
  });

  it("watch hands over the steps appended after a seq, in that trajectory only", async () => {
    const after = rootRows.at(-1)!.seq!;
    const got: IndexEntry[][] = [];
    let resolve: () => void = () => undefined;
    const arrived = new Promise<void>((r) => (resolve = r));
    const stop = rowSource(db, mindId).watch!(mindId, after, (entries) => {
      got.push(entries);
      if (got.flat().length >= 2) resolve();
    });
    const childStep = make("thought", { content: "not for this watcher" });
    const first = make("thought", { content: "new 1" });
    const second = make("thought", { content: "new 2" });
    await appendStep(db, mindId, childStep, childId);
    const seq1 = await appendStep(db, mindId, first);
    const seq2 = await appendStep(db, mindId, second);
    await arrived;
    stop();
    expect(got.flat()).toEqual([entryOf(seq1, first), entryOf(seq2, second)]);
  });
});
