// cli/reverie.ts: `reverie check` and `reverie show` over files on disk, run
// in-process through main(argv, io) with the output captured. Exit codes: 0
// done, 1 the file or the step is the problem, 2 the arguments are.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USAGE, verbUsage } from "@/cli/help.mjs";
import { main } from "@/cli/reverie";
import { makeHeadlongTree } from "../../fixtures/headlong-tree";
import { bundleEntry, runBin } from "../helpers/cli-bin";
import { tarGzBlob } from "../helpers/hostile";
import { expectedCounts, pack, type Packing } from "../helpers/trees";


async function run(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err };
}

const TREE = makeHeadlongTree({ steps: 40, withChild: true });
const BLOB = TREE.files.find((f) => f.path.includes("/blobs/"))!;
const lineOf = (stepId: string) => TREE.files.flatMap((f) => (f.path.endsWith(".jsonl") ? f.data.split("\n") : [])).find((l) => l.includes(`"step_id":"${stepId}"`))!;

const dir = mkdtempSync(join(tmpdir(), "reverie-cli-"));
const file: Record<Packing, string> = { jsonl: join(dir, "trajectory.jsonl"), "tar.gz": join(dir, "tree.tar.gz"), zip: join(dir, "tree.zip") };

beforeAll(async () => {
  for (const packing of ["jsonl", "tar.gz", "zip"] as const) {
    writeFileSync(file[packing], new Uint8Array(await (await pack(TREE.files, packing)).arrayBuffer()));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// One line of JSON: the counts, keys in this order, types in the order first seen.
const jsonOf = (c: ReturnType<typeof expectedCounts>) =>
  `{"steps":${c.steps},"skipped":${c.skipped},"byType":{${Object.entries(c.byType)
    .map(([type, n]) => `"${type}":${n}`)
    .join(",")}},"runs":${c.runs},"forks":${c.forks},"trajectories":${c.trajectories}}\n`;

describe("reverie check", () => {
  const TREE_JSON = jsonOf(expectedCounts(TREE, "zip"));

  it("the fixture's tree, as --json should print it", () => {
    expect(TREE_JSON).toBe(
      '{"steps":50,"skipped":0,"byType":{"trajectory":2,"monolith-wake":10,"shellm-run":7,"prompt":7,"reasoning":7,"shell-output":7,"final":7,"fork":1,"merge":1,"message":1},"runs":7,"forks":1,"trajectories":2}\n',
    );
  });

  it("--json on a lone trajectory.jsonl", async () => {
    expect(await run("check", file.jsonl, "--json")).toEqual({ code: 0, out: jsonOf(expectedCounts(TREE, "jsonl")), err: "" });
  });

  for (const packing of ["tar.gz", "zip"] as const) {
    it(`--json on a .${packing}, the flag before or after the path`, async () => {
      expect(await run("check", file[packing], "--json")).toEqual({ code: 0, out: TREE_JSON, err: "" });
      expect(await run("check", "--json", file[packing])).toEqual({ code: 0, out: TREE_JSON, err: "" });
    });
  }

  it("reads a file by its bytes whatever its name", async () => {
    const renamed = join(dir, "download.bin");
    writeFileSync(renamed, new Uint8Array(await (await pack(TREE.files, "zip")).arrayBuffer()));
    expect(await run("check", renamed, "--json")).toEqual({ code: 0, out: TREE_JSON, err: "" });
  });

  it("prints a summary for people: totals, then kinds by count", async () => {
    expect(await run("check", file["tar.gz"])).toEqual({
      code: 0,
      out: [
        "50 steps in 2 trajectories, 7 runs, 1 fork; 0 lines skipped",
        "        10  monolith-wake",
        "         7  shellm-run",
        "         7  prompt",
        "         7  reasoning",
        "         7  shell-output",
        "         7  final",
        "         2  trajectory",
        "         1  fork",
        "         1  merge",
        "         1  message",
        "",
      ].join("\n"),
      err: "",
    });
  });

  it("counts skipped lines, in the singular when there is one, and says why", async () => {
    const path = join(dir, "junk.jsonl");
    writeFileSync(path, `${lineOf(TREE.rootId)}\nnot json\n`);
    expect(await run("check", path)).toEqual({ code: 0, out: "1 step in 1 trajectory, 0 runs, 0 forks; 1 line skipped (not JSON: 1)\n         1  trajectory\n", err: "" });
    expect(await run("check", path, "--json")).toEqual({ code: 0, out: '{"steps":1,"skipped":1,"byType":{"trajectory":1},"runs":0,"forks":0,"trajectories":1}\n', err: "" });
  });

  it("warns on stderr when an archive holds no trajectory, with --json too (stdout stays the JSON line)", async () => {
    const path = join(dir, "empty.zip");
    writeFileSync(path, new Uint8Array(await (await pack([{ path: "notes/readme.txt", data: "hi" }], "zip")).arrayBuffer()));
    expect(await run("check", path)).toEqual({ code: 0, out: "0 steps in 0 trajectories, 0 runs, 0 forks; 0 lines skipped\n", err: "warning: No trajectory.jsonl was found in this file.\n" });
    expect(await run("check", path, "--json")).toEqual({ code: 0, out: '{"steps":0,"skipped":0,"byType":{},"runs":0,"forks":0,"trajectories":0}\n', err: "warning: No trajectory.jsonl was found in this file.\n" });
  });

  it("warns on stderr, one line each, when a trajectory.jsonl holds no readable steps", async () => {
    const lone = join(dir, "blank.jsonl");
    writeFileSync(lone, "not json\n\n");
    expect(await run("check", lone, "--json")).toEqual({
      code: 0,
      out: '{"steps":0,"skipped":1,"byType":{},"runs":0,"forks":0,"trajectories":1}\n',
      err: "warning: trajectory.jsonl holds no readable steps.\n",
    });
    const zip = join(dir, "hollow.zip");
    const files = [
      { path: "a/trajectory.jsonl", data: "" },
      { path: "b/trajectory.jsonl", data: "[1]\n" },
    ];
    writeFileSync(zip, new Uint8Array(await (await pack(files, "zip")).arrayBuffer()));
    const warnings = "warning: a/trajectory.jsonl holds no readable steps.\nwarning: b/trajectory.jsonl holds no readable steps.\n";
    expect(await run("check", zip, "--json")).toEqual({ code: 0, out: '{"steps":0,"skipped":1,"byType":{},"runs":0,"forks":0,"trajectories":2}\n', err: warnings });
    expect(await run("check", zip)).toEqual({ code: 0, out: "0 steps in 2 trajectories, 0 runs, 0 forks; 1 line skipped (not a JSON object: 1)\n", err: warnings });
  });

  it("skips a line over 8 MiB unread and says so, in the summary and on stderr; the lines around it are counted", async () => {
    const path = join(dir, "long.jsonl");
    writeFileSync(path, `${lineOf(TREE.rootId)}\n{"type":"thought","content":"${"x".repeat(9 * 1024 * 1024)}"}\n${lineOf(TREE.ids.message)}\n`);
    const warning = "warning: trajectory.jsonl: 1 line(s) over 8 MiB skipped unread; the lines around them were read.\n";
    expect(await run("check", path)).toEqual({ code: 0, out: "2 steps in 1 trajectory, 0 runs, 0 forks; 1 line skipped (line over 8 MiB: 1)\n         1  trajectory\n         1  message\n", err: warning });
    expect(await run("check", path, "--json")).toEqual({ code: 0, out: '{"steps":2,"skipped":1,"byType":{"trajectory":1,"message":1},"runs":0,"forks":0,"trajectories":1}\n', err: warning });
  });

  it("refuses a decompression bomb with a clear message and exit 1, long before its end", async () => {
    // One line of 4 GiB, about 4 MiB gzipped: each 1 MiB of it is one gzip member, written again and again.
    const path = join(dir, "bomb.tar.gz");
    const enc = new TextEncoder();
    const runs = [{ bytes: enc.encode('{"type":"thought","content":"') }, { bytes: new Uint8Array(1024 * 1024).fill(0x78), times: 4096 }, { bytes: enc.encode('"}\n') }];
    writeFileSync(path, new Uint8Array(await tarGzBlob([{ name: "t/trajectory.jsonl", runs }]).arrayBuffer()));
    const r = await run("check", path);
    expect({ ...r, err: r.err.replace(/[\d.]+ [KMG]?i?B from [\d.]+ [KMG]?i?B \([\d,]+ times\)/, "N from M (R times)") }).toEqual({
      code: 1,
      out: "",
      err: "reverie: This .tar.gz file inflates to N from M (R times); it looks like a decompression bomb and was not read further.\n",
    });
  });
});

describe("reverie show", () => {
  const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

  for (const packing of ["jsonl", "tar.gz", "zip"] as const) {
    it(`prints a step of a .${packing}, by its 8-hex prefix, as pretty JSON of the original line`, async () => {
      const stepId = TREE.ids.bigOutput;
      expect(await run("show", file[packing], stepId.slice(0, 8))).toEqual({ code: 0, out: pretty(JSON.parse(lineOf(stepId))), err: "" });
    });
  }

  it("finds a step of the child trajectory, by its whole id in any case", async () => {
    const stepId = TREE.ids.childFinal!;
    expect(await run("show", file.zip, stepId.toUpperCase())).toEqual({ code: 0, out: pretty(JSON.parse(lineOf(stepId))), err: "" });
  });

  for (const packing of ["tar.gz", "zip"] as const) {
    it(`--full puts the whole blob text in place of the inline cut (.${packing})`, async () => {
      const original = JSON.parse(lineOf(TREE.ids.bigOutput)) as Record<string, unknown>;
      expect(original.stdout).not.toBe(BLOB.data);
      const result = await run("show", file[packing], TREE.ids.bigOutput.slice(0, 8), "--full");
      expect(result).toEqual({ code: 0, out: pretty({ ...original, stdout: BLOB.data }), err: "" });
      expect(result.out).toContain("needle-in-blob-FOUND");
    });
  }

  it("--full without the blob (a lone .jsonl) shows the inline text and says why", async () => {
    const original = JSON.parse(lineOf(TREE.ids.bigOutput)) as Record<string, unknown>;
    expect(await run("show", file.jsonl, TREE.ids.bigOutput.slice(0, 8), "--full")).toEqual({
      code: 0,
      out: pretty(original),
      err: `warning: the blob ${String(original.stdout_ref)} is not in the archive; the inline text is shown\n`,
    });
  });

  it("an ambiguous prefix lists the matching steps and exits 1", async () => {
    const path = join(dir, "ambiguous.jsonl");
    const a = "abcd1234-0000-4000-8000-000000000001";
    const b = "abcd5678-0000-4000-8000-000000000002";
    writeFileSync(path, [{ type: "thought", step_id: a, ts: "2026-01-01T00:00:00.000Z", content: "a" }, { type: "final", step_id: b, ts: "2026-01-01T00:00:01.000Z", content: "b" }].map((s) => JSON.stringify(s)).join("\n"));
    expect(await run("show", path, "abcd")).toEqual({ code: 1, out: "", err: `reverie: abcd matches 2 steps; give more of the id:\n  ${a} thought\n  ${b} final\n` });
    expect(await run("show", path, "abcd5")).toEqual({ code: 0, out: `${JSON.stringify({ type: "final", step_id: b, ts: "2026-01-01T00:00:01.000Z", content: "b" }, null, 2)}\n`, err: "" });
  });

  it("an unknown id exits 1", async () => {
    expect(await run("show", file.zip, "deadbeef")).toEqual({ code: 1, out: "", err: `reverie: no step deadbeef in ${file.zip}\n` });
  });

  it("something that is not a hex id exits 2", async () => {
    expect(await run("show", file.zip, "xyz-not-hex")).toEqual({ code: 2, out: "", err: "reverie: 'xyz-not-hex' is not a step id or a hex prefix of one\n" });
    expect(await run("show", file.zip, "abc")).toEqual({ code: 2, out: "", err: "reverie: 'abc' is not a step id or a hex prefix of one\n" });
  });
});

describe("a Headlong folder as it lies on disk", () => {
  // The fixture's files written out: <hex8>-monolith/trajectory.jsonl, its blobs/, and the forked child's folder inside it.
  const folder = join(dir, "headlong");
  const rootDir = TREE.files[0]!.path.split("/")[0]!;
  beforeAll(() => {
    for (const f of TREE.files) {
      mkdirSync(dirname(join(folder, f.path)), { recursive: true });
      writeFileSync(join(folder, f.path), f.data);
    }
  });
  const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

  it("check reads it as the same tree packed as .tar.gz: the same counts, with --json and without", async () => {
    expect(await run("check", folder, "--json")).toEqual({ code: 0, out: jsonOf(expectedCounts(TREE, "tar.gz")), err: "" });
    expect(await run("check", folder, "--json")).toEqual(await run("check", file["tar.gz"], "--json"));
    expect(await run("check", folder)).toEqual(await run("check", file["tar.gz"]));
  });

  it("the trajectory's own folder (trajectory.jsonl at its top, the child inside) counts the same", async () => {
    expect(await run("check", join(folder, rootDir), "--json")).toEqual(await run("check", file["tar.gz"], "--json"));
  });

  it("show finds a root step and a child's step, and --full reads the blob from blobs/ beside trajectory.jsonl", async () => {
    const original = JSON.parse(lineOf(TREE.ids.bigOutput)) as Record<string, unknown>;
    const full = await run("show", folder, TREE.ids.bigOutput.slice(0, 8), "--full");
    expect(full).toEqual({ code: 0, out: pretty({ ...original, stdout: BLOB.data }), err: "" });
    expect(full).toEqual(await run("show", file["tar.gz"], TREE.ids.bigOutput.slice(0, 8), "--full"));
    expect(await run("show", folder, TREE.ids.childFinal!)).toEqual({ code: 0, out: pretty(JSON.parse(lineOf(TREE.ids.childFinal!))), err: "" });
  });

  it("--full without the blob says the folder lacks it", async () => {
    const bare = join(dir, "headlong-no-blobs");
    mkdirSync(bare, { recursive: true });
    writeFileSync(join(bare, "trajectory.jsonl"), TREE.files[0]!.data);
    const original = JSON.parse(lineOf(TREE.ids.bigOutput)) as Record<string, unknown>;
    expect(await run("show", bare, TREE.ids.bigOutput.slice(0, 8), "--full")).toEqual({
      code: 0,
      out: pretty(original),
      err: `warning: the blob ${String(original.stdout_ref)} is not in the folder; the inline text is shown\n`,
    });
  });

  it("symlinks are not followed (a tar keeps them as links): a link to the tree inside it changes nothing", async () => {
    const linked = join(dir, "headlong-linked");
    mkdirSync(linked, { recursive: true });
    for (const f of TREE.files) {
      mkdirSync(dirname(join(linked, f.path)), { recursive: true });
      writeFileSync(join(linked, f.path), f.data);
    }
    symlinkSync(join(linked, rootDir), join(linked, rootDir, "loop"));
    symlinkSync(join(linked, rootDir, "trajectory.jsonl"), join(linked, "trajectory.jsonl"));
    expect(await run("check", linked, "--json")).toEqual(await run("check", file["tar.gz"], "--json"));
  });
});

describe("the binary (bin/reverie.mjs, over its bundle)", () => {
  it("--help, -h and help print the usage and exit 0; no command prints it and exits 2", async () => {
    for (const flag of ["--help", "-h", "help"]) expect(await runBin([flag])).toMatchObject({ code: 0, out: `${USAGE}\n`, err: "" });
    expect(await runBin([])).toMatchObject({ code: 2, out: `${USAGE}\n`, err: "" });
  });

  it("counts tokens from its table (o200k_base.bpe beside the chunks), with neither gpt-tokenizer's ranks nor zod's locales in a chunk", async () => {
    // The counts themselves are held to the library's by cli-context.test.ts (the binary's context against the sources').
    const at = dirname(fileURLToPath(await bundleEntry()));
    const files = readdirSync(at);
    expect(files).toContain("o200k_base.bpe");
    const chunks = files.filter((f) => f.endsWith(".mjs")).map((f) => readFileSync(join(at, f), "utf8"));
    // The bundle is minified (no module comments): each module is told by what it holds. The table's reader names the table;
    // gpt-tokenizer's encoder is its class GptEncoding; lib/context/count-o200k.ts holds AS_TEXT; zod's Arabic messages, Arabic.
    expect(chunks.filter((c) => c.includes("o200k_base.bpe"))).toHaveLength(1);
    expect(chunks.filter((c) => c.includes("GptEncoding") || c.includes("AS_TEXT") || c.includes("أن يحوي"))).toEqual([]);
  });

  it("check and show read a folder as they read the .tar.gz; a folder with no trajectory exits 2", async () => {
    const folder = join(dir, "headlong-bin");
    for (const f of TREE.files) {
      mkdirSync(dirname(join(folder, f.path)), { recursive: true });
      writeFileSync(join(folder, f.path), f.data);
    }
    expect(await runBin(["check", folder, "--json"])).toMatchObject({ code: 0, out: jsonOf(expectedCounts(TREE, "tar.gz")), err: "" });
    expect(await runBin(["show", folder, TREE.ids.bigOutput.slice(0, 8), "--full"])).toMatchObject(await run("show", file["tar.gz"], TREE.ids.bigOutput.slice(0, 8), "--full"));
    const empty = join(dir, "empty-folder");
    mkdirSync(empty, { recursive: true });
    expect(await runBin(["check", empty])).toMatchObject({ code: 2, out: "", err: `reverie: ${empty} is a folder with no trajectory.jsonl in it or in its subfolders; give a Headlong trajectory folder, a trajectory.jsonl, .zip or .tar.gz\n` });
  });
});

describe("errors", () => {
  it("a missing file exits 1, naming it", async () => {
    const path = join(dir, "nope.tar.gz");
    expect(await run("check", path)).toEqual({ code: 1, out: "", err: `reverie: no such file or folder: ${path}\n` });
    expect(await run("show", path, "deadbeef")).toEqual({ code: 1, out: "", err: `reverie: no such file or folder: ${path}\n` });
  });

  it("a folder with no trajectory.jsonl in it, or in its subfolders, exits 2 and says what it wanted", async () => {
    const folder = join(dir, "a-folder");
    mkdirSync(join(folder, "notes"), { recursive: true });
    writeFileSync(join(folder, "notes", "readme.txt"), "hi");
    const err = `reverie: ${folder} is a folder with no trajectory.jsonl in it or in its subfolders; give a Headlong trajectory folder, a trajectory.jsonl, .zip or .tar.gz\n`;
    expect(await run("check", folder)).toEqual({ code: 2, out: "", err });
    expect(await run("check", folder, "--json")).toEqual({ code: 2, out: "", err });
    expect(await run("show", folder, "deadbeef")).toEqual({ code: 2, out: "", err });
  });

  it("a damaged archive exits 1 with the reader's message", async () => {
    const path = join(dir, "cut.tar.gz");
    const whole = new Uint8Array(await (await pack(TREE.files, "tar.gz")).arrayBuffer());
    writeFileSync(path, whole.subarray(0, Math.floor(whole.length / 2)));
    expect(await run("check", path, "--json")).toEqual({ code: 1, out: "", err: "reverie: This .tar.gz file is damaged: the compressed data is cut short or corrupt.\n" });
  });

  it("a file that is no archive exits 1", async () => {
    const path = join(dir, "picture.png");
    writeFileSync(path, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0xff]));
    expect(await run("check", path)).toEqual({
      code: 1,
      out: "",
      err: "reverie: This file is not something Reverie can import: expected a .zip, .tar.gz, .tar or .jsonl file.\n",
    });
  });

  it.each([
    [["check"], "check needs a <path>", "check"],
    [["check", "a", "b"], "unexpected argument 'b'", "check"],
    [["show", "a"], "show needs a <path> and a step id or prefix after it", "show"],
    [["show"], "show needs a <path> and a step id or prefix", "show"],
    [["show", "a", "b", "c"], "unexpected argument 'c'", "show"],
  ] as const)("bad arguments %j exit 2 with the problem and the verb's usage on stderr", async (argv, problem, verb) => {
    expect(await run(...argv)).toEqual({ code: 2, out: "", err: `reverie: ${problem}\n${verbUsage(verb)}\n` });
  });

  it.each([[["frobnicate", "x"]], [["frobnicate", "--json"]], [["frobnicate", "--help"]], [["help", "frobnicate"]]])("an unknown verb %j exits 2, naming the verbs, with the usage on stderr", async (argv) => {
    expect(await run(...argv)).toEqual({ code: 2, out: "", err: `reverie: unknown verb 'frobnicate'; the verbs are check, show, context, sh, eval, runner, minds\n\n${USAGE}\n` });
  });

  it.each([
    [["check", "x.zip", "--jsn"], "--jsn", "check"],
    [["check", "--jsn", "x.zip"], "--jsn", "check"],
    [["check", "x.zip", "--full"], "--full", "check"],
    [["check", "x.zip", "-j"], "-j", "check"],
    [["show", "x.zip", "deadbeef", "--json"], "--json", "show"],
    [["show", "x.zip", "deadbeef", "--ful"], "--ful", "show"],
  ] as const)("an unknown option %j exits 2 with the verb's usage on stderr, before reading any file", async (argv, option, verb) => {
    expect(await run(...argv)).toEqual({ code: 2, out: "", err: `reverie: unknown option ${option}\n${verbUsage(verb)}\n` });
  });

  it("several unknown options are named together", async () => {
    expect(await run("check", file.zip, "--jsn", "--json", "--verbose")).toEqual({ code: 2, out: "", err: `reverie: unknown option --jsn, --verbose\n${verbUsage("check")}\n` });
  });

  it("each command's known options still work: --help (or -h) anywhere for its usage, --json for check, --full for show", async () => {
    expect(await run("check", "--help")).toEqual({ code: 0, out: `${verbUsage("check")}\n`, err: "" });
    expect(await run("check", file.zip, "-h")).toEqual({ code: 0, out: `${verbUsage("check")}\n`, err: "" });
    expect(await run("show", "--help")).toEqual({ code: 0, out: `${verbUsage("show")}\n`, err: "" });
    expect((await run("check", file.zip, "--json")).code).toBe(0);
    expect((await run("show", file.zip, TREE.ids.bigOutput.slice(0, 8), "--full")).code).toBe(0);
  });

  it("no command prints the usage and exits 2; help, --help and -h exit 0", async () => {
    expect(await run()).toEqual({ code: 2, out: `${USAGE}\n`, err: "" });
    expect(await run("help")).toEqual({ code: 0, out: `${USAGE}\n`, err: "" });
    expect(await run("--help")).toEqual({ code: 0, out: `${USAGE}\n`, err: "" });
    expect(await run("-h")).toEqual({ code: 0, out: `${USAGE}\n`, err: "" });
  });
});
