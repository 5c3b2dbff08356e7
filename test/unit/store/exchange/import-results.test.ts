// An eval run's results.json in an archive (issue 23, the scoreboard in the
// app): the importer hands it to the sink and warns of one that is not readable
// results, skips one too big or a second one; importIntoDb keeps it beside the
// archive (read back parsed), export gives it back byte for byte, and search
// over the archive's blobs does not see it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeZip } from "@/lib/archive";
import { importArchive, MAX_RESULTS_JSON } from "@/lib/import/importer";
import type { ReverieDb } from "@/lib/store/db/db";
import { exportEntries } from "@/lib/store/exchange/export";
import { discardUncommitted, importIntoDb, markImportStarted } from "@/lib/store/exchange/import";
import { putResultsText, readArchiveResults, RESULTS_BLOB } from "@/lib/store/minds/results";
import { pageSource } from "@/lib/store/view/view";
import { makeHeadlongTree } from "../../../fixtures/headlong-tree";
import { makeResults } from "../../../fixtures/eval-results";
import { MemorySink, pack } from "../../helpers/trees";
import { openTestDb } from "../../helpers/db";

const TREE = makeHeadlongTree({ steps: 40, withChild: true });
const RESULTS = makeResults({ message: TREE.ids.message, answer: TREE.ids.last, other: TREE.ids.childFinal! });
const TEXT = `${JSON.stringify(RESULTS, null, 2)}\n`;
const HEADER = `{"type":"trajectory","step_id":"t1","ts":"2025-01-01T00:00:00.000Z","name":"t"}\n`;

/** A MemorySink that also keeps each results.json it is handed. */
function resultsSink() {
  const got: string[] = [];
  const sink = Object.assign(new MemorySink(), { results: async (text: string) => void got.push(text) });
  return { sink, got };
}

const archive = (results: Record<string, string>) => writeZip([...Object.entries(results).map(([path, data]) => ({ path, data })), { path: "t/trajectory.jsonl", data: HEADER }]);

describe("importArchive: results.json", () => {
  it("hands results.json at the root, or in the one folder the archive was packed in, to the sink as it is", async () => {
    for (const path of ["results.json", "out/results.json"]) {
      const { sink, got } = resultsSink();
      const stats = await importArchive(await archive({ [path]: TEXT }), sink, { name: "r.zip" });
      expect([got, stats.warnings, stats.steps]).toEqual([[TEXT], [], 1]);
    }
  });

  it("leaves alone a results.json deeper down, and one in a blobs folder (a blob)", async () => {
    const { sink, got } = resultsSink();
    const stats = await importArchive(await archive({ "a/b/results.json": TEXT, "t/blobs/results.json": "x" }), sink, { name: "r.zip" });
    expect([got, stats.warnings, [...sink.blobs.keys()]]).toEqual([[], [], ["t/blobs/results.json"]]);
  });

  it("keeps a results.json that is not JSON, or not a scenario's results, and says so; the import goes on", async () => {
    const cases: [string, string][] = [
      ["{nope", "results.json is not JSON: "],
      [JSON.stringify({ ...RESULTS, version: 2 }), "results.json is not a scenario's results: version: "],
      [JSON.stringify({ ...RESULTS, probes: [{ id: "x" }] }), "results.json is not a scenario's results: probes.0.kind: "],
    ];
    for (const [text, start] of cases) {
      const { sink, got } = resultsSink();
      const stats = await importArchive(await archive({ "results.json": text }), sink, { name: "r.zip" });
      expect(got).toEqual([text]);
      expect(stats.steps).toBe(1);
      expect(stats.warnings).toHaveLength(1);
      expect(stats.warnings[0]).toMatch(new RegExp(`^${start.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}.*; it was kept as it is, without a scoreboard\\.$`));
    }
  });

  it("skips a results.json over 5 MiB unread, and a second one, saying which", async () => {
    const big = `"${"x".repeat(MAX_RESULTS_JSON)}"`;
    const { sink, got } = resultsSink();
    const stats = await importArchive(await archive({ "results.json": big }), sink, { name: "r.zip" });
    expect([got, stats.steps, stats.warnings]).toEqual([[], 1, ["results.json is over 5 MiB and was not read; the trajectory was imported without its scoreboard."]]);

    const two = resultsSink();
    const both = await importArchive(await archive({ "results.json": TEXT, "x/results.json": "{}" }), two.sink, { name: "r.zip" });
    expect([two.got, both.warnings]).toEqual([[TEXT], ["x/results.json was not read: the archive's results are results.json."]]);
  });

  it("checks results.json for a sink without a place for it (reverie check)", async () => {
    const stats = await importArchive(await archive({ "results.json": "[]" }), new MemorySink(), { name: "r.zip" });
    expect(stats.warnings).toEqual(["results.json is not a scenario's results: (top): Invalid input: expected object, received array; it was kept as it is, without a scoreboard."]);
  });
});

describe("importIntoDb and export: results.json", () => {
  let db: ReverieDb;
  beforeEach(async () => {
    db = await openTestDb("import-results");
  });
  afterEach(async () => {
    await db.delete();
  });

  const tree = async (results: string) => pack([{ path: "mind.json", data: '{"name":"Ada"}' }, { path: "results.json", data: results }, ...TREE.files], "tar.gz");

  it("keeps results.json beside the archive, read back parsed, and exports it again byte for byte", async () => {
    const { id, stats } = await importIntoDb(db, await tree(TEXT), { name: "run.tar.gz" });
    expect(stats.warnings).toEqual([]);
    expect(await readArchiveResults(db, id)).toEqual({ ok: true, results: RESULTS });
    // Not one of the trajectory's blobs.
    const archive = await db.minds.get(id);
    expect((archive?.json as { stats: { blobs: number } }).stats.blobs).toBe(1);

    const files = new Map<string, string>();
    for await (const e of exportEntries(db, id)) files.set(e.path, String(e.data));
    expect([...files.keys()].slice(0, 2)).toEqual(["mind.json", "results.json"]);
    expect(files.get("results.json")).toBe(TEXT);
    // …and that export imports again to the same results.
    const again = await importIntoDb(db, await pack([...files].map(([path, data]) => ({ path, data })), "zip"), { name: "again.zip" });
    expect(await readArchiveResults(db, again.id)).toEqual({ ok: true, results: RESULTS });
  });

  it("an archive without results.json has none, and exports none", async () => {
    const { id } = await importIntoDb(db, await pack(TREE.files, "zip"), { name: "plain.zip" });
    expect(await readArchiveResults(db, id)).toBeNull();
    const paths: string[] = [];
    for await (const e of exportEntries(db, id)) paths.push(e.path);
    expect(paths).not.toContain("results.json");
  });

  it("imports an archive whose results.json is unreadable, with the warning; the page is told why, and export gives the file back", async () => {
    const { id, stats } = await importIntoDb(db, await tree("{nope"), { name: "bad.tar.gz" });
    expect(stats.warnings).toEqual([expect.stringMatching(/^results\.json is not JSON: .*; it was kept as it is, without a scoreboard\.$/)]);
    expect(stats.steps).toBe(50);
    const read = await readArchiveResults(db, id);
    expect(read).toEqual({ ok: false, error: expect.stringMatching(/^results\.json is not JSON: /) });
    const files = new Map<string, string>();
    for await (const e of exportEntries(db, id)) files.set(e.path, String(e.data));
    expect(files.get("results.json")).toBe("{nope");
  });

  it("search over the archive's blobs does not take results.json for a step's blob", async () => {
    const { id } = await importIntoDb(db, await tree(TEXT), { name: "run.tar.gz" });
    // A word only results.json has; "needle-in-blob-FOUND" is in the tree's one blob.
    expect((await pageSource(db, id).search("tokens_per_hour_idle")).hits).toEqual([]);
    expect((await pageSource(db, id).search("needle-in-blob-FOUND")).hits.map((h) => h.id)).toEqual([TREE.ids.bigOutput]);
  });

  it("an import that never committed leaves no results.json behind", async () => {
    await markImportStarted(db, "gone");
    await putResultsText(db, "gone", TEXT);
    await discardUncommitted(db, "gone");
    expect(await db.blobs.get(["gone", RESULTS_BLOB])).toBeUndefined();
  });
});
