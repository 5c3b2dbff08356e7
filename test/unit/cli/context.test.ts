// `reverie context` (cli/context.ts) over files on disk, in-process through
// main(argv, io) and once as the real binary: the same projection as the mind
// (buildContext over the filtered stream), with sealed summaries from
// tiers.jsonl checked against the stream (lib/context/rollups.ts), elisions
// where there are none, malformed lines skipped without hiding what follows.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "@/cli/reverie";
import { arraySource, buildContext, DEFAULT_BUDGET, inStream, type BuiltContext, type ContextPart, type Summary } from "@/lib/context/build";
import { MISMATCH } from "@/lib/context/rollups";
import { blockRange, completeBlocks, DEFAULT_TIERS, type BlockRef } from "@/lib/context/staircase";
import { TokenCounter } from "@/lib/context/tokens";
import { writeTarGz } from "@/lib/archive";
import { exportEntries } from "@/lib/store/exchange/export";
import { createMind } from "@/lib/store/minds/minds";
import { appendStep } from "@/lib/store/steps/steps";
import { sealTier } from "@/lib/store/derived/tiers";
import { readLine } from "@/lib/trajectory/headlong";
import type { Step } from "@/lib/trajectory/schema";
import { makeHeadlongTree } from "../../fixtures/headlong-tree";
import { runBin } from "../helpers/cli-bin";
import { openTestDb } from "../helpers/db";
import { pack, streamBytes } from "../helpers/trees";
import { stepMaker } from "../helpers/steps";

async function run(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err };
}

const dir = mkdtempSync(join(tmpdir(), "reverie-context-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, data: string | Uint8Array) => {
  const path = join(dir, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, data);
  return path;
};
const jsonl = (steps: readonly Step[]) => `${steps.map((s) => JSON.stringify(s)).join("\n")}\n`;
const id8 = (id: string) => id.slice(0, 8);
const key = (b: BlockRef) => `${b.tier}:${b.index}`;

/** What the mind builds from this stream with these summaries: what the CLI must print. */
function mindContext(stream: readonly Step[], sealed: Map<string, Summary> = new Map(), missing: Map<string, string> = new Map(), budget = DEFAULT_BUDGET, selfName = "mind"): BuiltContext {
  return buildContext(arraySource(stream), { selfName, budget, tiers: DEFAULT_TIERS, summary: (b) => sealed.get(key(b)), missing: (b) => missing.get(key(b)), counter: new TokenCounter() });
}

/** Every stream step in exactly one part, in order. */
function expectCoversOnce(parts: readonly ContextPart[], stream: readonly Step[]) {
  expect(parts.flatMap((p) => p.step_ids)).toEqual(stream.map((s) => s.step_id));
}

/** A trajectory of `n` thoughts after its header: all of them in the stream. */
function thoughts(n: number, text = (i: number) => `thought number ${i}`) {
  const mk = stepMaker();
  const header = mk("trajectory", { name: "mind" });
  const stream = Array.from({ length: n }, (_, i) => mk("thought", { content: text(i), source: "monolith" }));
  return { header, stream, all: [header, ...stream] };
}

describe("a plain trajectory.jsonl, no sealed summaries", () => {
  const t = thoughts(230);
  const ids = t.stream.map((s) => s.step_id);
  const note = `[30 steps, ${id8(ids[0]!)}…${id8(ids[29]!)}, not shown: not summarized yet. \`traj show\` and \`traj search\` reach them.]`;
  const tail = t.stream.slice(30).map((s) => (s as { content: string }).content).join("\n\n");
  let path = "";
  beforeAll(() => void (path = write("plain/trajectory.jsonl", jsonl(t.all))));

  it("--json: the older 30 steps elided (not summarized yet), the newest 200 verbatim, as the mind builds it", async () => {
    const r = await run("context", path, "--json");
    expect([r.code, r.err]).toEqual([0, ""]);
    expect(r.out.endsWith("}\n") && r.out.indexOf("\n") === r.out.length - 1).toBe(true);
    const json = JSON.parse(r.out) as BuiltContext;
    const verbatimTokens = t.stream.slice(30).reduce((n, s) => n + countTokens((s as { content: string }).content), 0);
    expect(json).toEqual({
      messages: [
        { role: "user", content: note },
        { role: "assistant", content: tail },
        { role: "user", content: "[continue]" },
      ],
      tokens: mindContext(t.stream).tokens,
      parts: [
        { kind: "elided", tier: 0, index: 0, step_ids: ids.slice(0, 30), reason: "not summarized yet", tokens: countTokens(note) },
        { kind: "verbatim", step_ids: ids.slice(30), tokens: verbatimTokens },
      ],
    });
    expect(json).toEqual(mindContext(t.stream));
    expectCoversOnce(json.parts, t.stream);
    expect(json.tokens).toBeLessThanOrEqual(DEFAULT_BUDGET);
  });

  it("prints each message under a header with its tokens, then the parts in one line", async () => {
    const tokens = mindContext(t.stream).tokens.toLocaleString("en-US");
    expect(await run("context", path)).toEqual({
      code: 0,
      out: [
        `--- user (${countTokens(note)} tokens) ---`,
        note,
        `--- assistant (${countTokens(tail)} tokens) ---`,
        tail,
        `--- user (${countTokens("[continue]")} tokens) ---`,
        "[continue]",
        "",
        `elided ×1, verbatim 200 steps; ${tokens} tokens`,
        "",
      ].join("\n"),
      err: "",
    });
  });

  it("the binary prints the same JSON (its bundle reads the tokenizer's ranks as JSON)", async () => {
    expect(await runBin(["context", path, "--json"])).toMatchObject({ code: 0, out: (await run("context", path, "--json")).out, err: "" });
  }, 60_000);

  it("a trajectory with no stream steps: one message, and says so", async () => {
    const only = write("header-only/trajectory.jsonl", jsonl([t.header]));
    expect(await run("context", only)).toEqual({ code: 0, out: `--- user (${countTokens("[the trajectory so far]")} tokens) ---\n[the trajectory so far]\n\nno steps in the stream; 0 tokens\n`, err: "" });
  });
});

describe("malformed lines", () => {
  const t = thoughts(60);
  const lines = jsonl(t.all).split("\n");
  // Two bad lines in the middle: Headlong's recap stops reading at the first.
  const broken = [...lines.slice(0, 31), '{"type":"thought","step_id":"cut-off', "[1, 2]", ...lines.slice(31)].join("\n");

  it("are skipped and counted on stderr; every step after them is in the context", async () => {
    const r = await run("context", write("broken/trajectory.jsonl", broken), "--json");
    expect(r.code).toBe(0);
    expect(r.err).toBe("warning: skipped 2 malformed lines of trajectory.jsonl (not JSON: 1, not a JSON object: 1); the steps after them are read\n");
    const json = JSON.parse(r.out) as BuiltContext;
    expect(json).toEqual(mindContext(t.stream));
    expect(json.parts.map((p) => [p.kind, p.step_ids.length])).toEqual([["verbatim", 60]]);
    expectCoversOnce(json.parts, t.stream);
    expect(json.messages[1]?.content.endsWith("thought number 58\n\nthought number 59")).toBe(true);
    // And it reads exactly as the file without them.
    expect(r.out).toBe((await run("context", write("whole/trajectory.jsonl", lines.join("\n")), "--json")).out);
  });

  it("a line that is not a valid step (a thought whose content is a number) is not in the context, and is counted with them", async () => {
    const invalid = JSON.stringify({ type: "thought", step_id: "0b0b0b0b-0000-4000-8000-000000000001", ts: "2026-01-01T00:00:00.000Z", content: 42 });
    const r = await run("context", write("invalid/trajectory.jsonl", [...lines.slice(0, 21), invalid, "not json", ...lines.slice(21)].join("\n")), "--json");
    expect(r.err).toBe("warning: skipped 2 malformed lines of trajectory.jsonl (not a valid step: 1, not JSON: 1); the steps after them are read\n");
    expect(JSON.parse(r.out)).toEqual(mindContext(t.stream));
  });

  it("one bad line is named in the singular, without --json too", async () => {
    const r = await run("context", write("one-bad/trajectory.jsonl", [...lines.slice(0, 11), "not json", ...lines.slice(11)].join("\n")));
    expect(r.err).toBe("warning: skipped 1 malformed line of trajectory.jsonl (not JSON: 1); the steps after it are read\n");
    expect(r.out).toContain("thought number 59\n");
    expect(r.out.endsWith(`\nverbatim 60 steps; ${mindContext(t.stream).tokens} tokens\n`)).toBe(true);
  });
});

describe("a .tar.gz with sealed summaries in tiers.jsonl", () => {
  const TREE = makeHeadlongTree({ steps: 700, withChild: true });
  const rootFile = TREE.files[0]!;
  const rootDir = rootFile.path.split("/")[0]!;
  const stream = rootFile.data
    .split("\n")
    .map((line) => readLine(line))
    .flatMap((r) => (r.ok && r.valid ? [r.step] : []))
    .filter(inStream);
  const ids = stream.map((s) => s.step_id);
  /** A sealed line for a block, tied to the stream by its first and last step. */
  const sealedLine = (tier: number, index: number, content: string, cites: string[] = [], over: Record<string, unknown> = {}) => {
    const size = 10 ** (tier + 1);
    return JSON.stringify({ tier, index, content, cites, first_step: ids[index * size], last_step: ids[(index + 1) * size - 1], steps: size, model: "scripted/model", ...over });
  };
  const tiersJsonl = [
    // Tier 1, block 0: steps [0, 100), citing one step by its 8-hex prefix (as Headlong does) and one whole.
    sealedLine(1, 0, "I woke, ran echo, and read what it printed, a hundred steps over.", [id8(ids[5]!), ids[42]!]),
    // Tier 1, block 1 was made over another filtering: its last step is elsewhere. Its children stand in.
    sealedLine(1, 1, "Not of this stream.", [], { last_step: ids[150] }),
    ...[10, 11, 12, 13, 14].map((i) => sealedLine(0, i, `I ran blocks of echo, part ${i}.`)),
    // Block 20 of another log: its first step is not this stream's.
    sealedLine(0, 20, "Someone else's steps.", [], { first_step: "ffffffff-0000-4000-8000-000000000000" }),
    sealedLine(0, 21, "I kept waking and echoing.", [ids[215]!, "deadbeef"]),
    "not a sealed summary",
    // Sealed once, never rewritten: a second line for block 0 is not used.
    sealedLine(1, 0, "A rewrite that must not win."),
  ].join("\n");
  // Headlong's own rollup block: its positions count Headlong's filtered steps.
  const headlongBlock = JSON.stringify({ tier: 1, start: 0, end: 10, n: 10, summary: "I woke.", themes: ["waking"], step_ids: [id8(ids[3]!)], model: "m", prompt_version: 2, created: "2026-11-01T09:00:00" });
  const files = [...TREE.files, { path: `${rootDir}/tiers.jsonl`, data: `${tiersJsonl}\n` }, { path: `${rootDir}/rollups/t1/000000000000-000000000010.json`, data: headlongBlock }];

  const sealed = new Map<string, Summary>([
    ["1:0", { content: "I woke, ran echo, and read what it printed, a hundred steps over.", cites: [ids[5]!, ids[42]!] }],
    ...[10, 11, 12, 13, 14].map((i): [string, Summary] => [`0:${i}`, { content: `I ran blocks of echo, part ${i}.`, cites: [] }]),
    ["0:21", { content: "I kept waking and echoing.", cites: [ids[215]!] }],
  ]);
  const missing = new Map([["1:1", MISMATCH], ["0:20", MISMATCH], ["0:0", MISMATCH]]);
  const expected = (budget = DEFAULT_BUDGET) => mindContext(stream, sealed, missing, budget, "monolith");
  const STDERR = [
    `note: the file holds 2 trajectories; this is the root: ${rootDir}/trajectory.jsonl (monolith)`,
    `warning: skipped 1 line of ${rootDir}/tiers.jsonl that is not a sealed summary`,
    "warning: 2 sealed summaries do not match the stream and are not used: their first and last steps are not at their blocks' ends",
    "note: 1 Headlong rollup (rollups/) not used: Headlong counts its own filtered steps, not this stream",
    "warning: 1 sealed summary of a block that already had one is not used (the first one sealed it)",
    "",
  ].join("\n");
  let path = "";
  beforeAll(async () => void (path = write("tree.tar.gz", new Uint8Array(await (await pack(files, "tar.gz")).arrayBuffer()))));

  it("the fixture: 419 stream steps, so the staircase covers [0, 220) and 199 are verbatim", () => {
    expect(stream.length).toBe(419);
  });

  it("uses the summaries that match the stream, cites whole step ids, and elides the blocks whose summary does not match", async () => {
    const r = await run("context", path, "--json");
    expect([r.code, r.err]).toEqual([0, STDERR]);
    const json = JSON.parse(r.out) as BuiltContext;
    const range = (from: number, to: number) => ids.slice(from, to);
    const any = expect.any(Number) as unknown as number;
    expect(json.parts).toEqual([
      { kind: "tier", tier: 1, index: 0, step_ids: range(0, 100), cites: [ids[5], ids[42]], tokens: any },
      ...[10, 11, 12, 13, 14].map((i) => ({ kind: "tier", tier: 0, index: i, step_ids: range(i * 10, i * 10 + 10), cites: [], tokens: any })),
      { kind: "elided", tier: 0, index: 15, step_ids: range(150, 200), reason: "not summarized yet", tokens: any },
      { kind: "elided", tier: 0, index: 20, step_ids: range(200, 210), reason: MISMATCH, tokens: any },
      { kind: "tier", tier: 0, index: 21, step_ids: range(210, 220), cites: [ids[215]], tokens: any },
      { kind: "verbatim", step_ids: range(220, 419), tokens: any },
    ]);
    expect(json).toEqual(expected());
    expectCoversOnce(json.parts, stream);
    expect(json.messages[0]).toEqual({
      role: "user",
      content: expect.stringMatching(
        new RegExp(`^\\[My summary of 100 steps, ${id8(ids[0]!)}…${id8(ids[99]!)} \\(tier 1\\); it cites ${id8(ids[5]!)}, ${id8(ids[42]!)}\\. .*\\]\nI woke, ran echo, and read what it printed, a hundred steps over\\.\n\n\\[My summary of 10 steps`),
      ),
    });
  });

  it("prints the parts line: tiers coarsest first, then elisions, then the tail", async () => {
    const r = await run("context", path);
    expect(r.err).toBe(STDERR);
    expect(r.out.endsWith(`\ntier 1 ×1, tier 0 ×6, elided ×2, verbatim 199 steps; ${expected().tokens.toLocaleString("en-US")} tokens\n`)).toBe(true);
  });

  it("the same files as a folder on disk read as the .tar.gz: the same context, the same notes", async () => {
    for (const f of files) write(`tree-folder/${f.path}`, f.data);
    const folder = join(dir, "tree-folder");
    const inFolder = (err: string) => err.replace("note: the file holds", "note: the folder holds");
    const r = await run("context", folder, "--json");
    expect([r.code, r.err]).toEqual([0, inFolder(STDERR)]);
    expect(JSON.parse(r.out)).toEqual(expected());
    const packed = await run("context", path, "--json");
    expect(r).toEqual({ ...packed, err: inFolder(packed.err) });
    const human = await run("context", path);
    expect(await run("context", folder)).toEqual({ ...human, err: inFolder(human.err) });
  });

  it("the trajectory's own folder: its tiers.jsonl and rollups/ at its top, its child inside", async () => {
    for (const f of files) write(`tree-folder-2/${f.path}`, f.data);
    const r = await run("context", join(dir, "tree-folder-2", rootDir), "--json");
    expect(r.err).toBe(STDERR.replaceAll(`${rootDir}/`, "").replace("note: the file holds", "note: the folder holds"));
    expect(JSON.parse(r.out)).toEqual(expected());
  });

  it("reads tiers.jsonl beside a lone trajectory.jsonl on disk", async () => {
    const lone = write("lone/trajectory.jsonl", rootFile.data);
    write("lone/tiers.jsonl", tiersJsonl);
    const r = await run("context", lone, "--json");
    expect(r.err).toBe(STDERR.split("\n").slice(1).join("\n").replace(`${rootDir}/tiers.jsonl`, "tiers.jsonl").replace(/note: 1 Headlong.*\n/, ""));
    expect(JSON.parse(r.out)).toEqual(expected());
  });

  it.each([300, 600, 1000, 2000, 4000, 8000])("--budget %i: within it, every step in one part, as the mind builds it", async (budget) => {
    const r = await run("context", path, "--budget", String(budget), "--json");
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as BuiltContext;
    expect(json.tokens).toBeLessThanOrEqual(budget);
    expectCoversOnce(json.parts, stream);
    expect(json).toEqual(expected(budget));
    expect((await run("context", path, `--budget=${budget}`, "--json")).out).toBe(r.out);
  });

  it("a smaller budget shows fewer steps verbatim", async () => {
    const verbatim = async (budget: number) => ((JSON.parse((await run("context", path, "--budget", String(budget), "--json")).out) as BuiltContext).parts.at(-1)?.step_ids.length ?? 0);
    const counts = [await verbatim(8000), await verbatim(2000), await verbatim(600)];
    expect(counts[0]).toBe(199);
    expect(counts[0]! > counts[1]! && counts[1]! > counts[2]!).toBe(true);
  });
});

describe("arguments and files", () => {
  let usage = "";
  let path = "";
  beforeAll(async () => {
    await main(["help", "context"], { out: (s) => void (usage += s), err: () => undefined });
    path = write("args/trajectory.jsonl", jsonl(thoughts(3).all));
  });

  it("--help prints context's own usage", async () => {
    expect(await run("context", "--help")).toEqual({ code: 0, out: usage, err: "" });
    expect(usage.startsWith("usage: reverie context <path> [--budget TOKENS] [--json]\n")).toBe(true);
  });

  it.each([
    [[], "context needs a trajectory folder, a trajectory.jsonl, .zip or .tar.gz"],
    [["--budget"], "--budget needs a number of tokens"],
    [["--json"], "context needs a trajectory folder, a trajectory.jsonl, .zip or .tar.gz"],
    [["x.jsonl", "y.jsonl"], "unexpected argument 'y.jsonl' (context reads one file)"],
    [["x.jsonl", "--jsn"], "unknown option --jsn"],
    [["x.jsonl", "--full"], "unknown option --full"],
    [["x.jsonl", "--budget"], "--budget needs a number of tokens"],
    [["x.jsonl", "--budget", "abc"], "--budget takes a whole number of tokens above 0, not 'abc'"],
    [["x.jsonl", "--budget", "0"], "--budget takes a whole number of tokens above 0, not '0'"],
    [["x.jsonl", "--budget", "-5"], "--budget takes a whole number of tokens above 0, not '-5'"],
    [["x.jsonl", "--budget", "1.5"], "--budget takes a whole number of tokens above 0, not '1.5'"],
    [["x.jsonl", "--budget", "1e4"], "--budget takes a whole number of tokens above 0, not '1e4'"],
    [["x.jsonl", "--budget="], "--budget takes a whole number of tokens above 0, not ''"],
  ])("bad arguments %j exit 2 with the problem and the usage, before reading any file", async (argv, problem) => {
    expect(await run("context", ...argv)).toEqual({ code: 2, out: "", err: `reverie: ${problem}\n${usage}` });
  });

  it("a missing file exits 1, naming it, as check and show do", async () => {
    const missing = join(dir, "nope.tar.gz");
    expect(await run("context", missing, "--json")).toEqual({ code: 1, out: "", err: `reverie: no such file or folder: ${missing}\n` });
  });

  it("a folder without a trajectory exits 2; a damaged archive, a file that is no archive, an archive without a trajectory exit 1; each says which", async () => {
    const folder = join(dir, "no-trajectory");
    write("no-trajectory/blobs/x.stdout", "output");
    expect(await run("context", folder)).toEqual({
      code: 2,
      out: "",
      err: `reverie: ${folder} is a folder with no trajectory.jsonl in it or in its subfolders; give a Headlong trajectory folder, a trajectory.jsonl, .zip or .tar.gz\n`,
    });
    const whole = new Uint8Array(await (await pack(makeHeadlongTree({ steps: 40 }).files, "tar.gz")).arrayBuffer());
    expect(await run("context", write("cut.tar.gz", whole.subarray(0, Math.floor(whole.length / 2))))).toEqual({
      code: 1,
      out: "",
      err: "reverie: This .tar.gz file is damaged: the compressed data is cut short or corrupt.\n",
    });
    expect(await run("context", write("picture.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0xff])))).toEqual({
      code: 1,
      out: "",
      err: "reverie: This file is not something Reverie can import: expected a .zip, .tar.gz, .tar or .jsonl file.\n",
    });
    const empty = write("empty.zip", new Uint8Array(await (await pack([{ path: "notes/readme.txt", data: "hi" }], "zip")).arrayBuffer()));
    expect(await run("context", empty)).toEqual({ code: 1, out: "", err: `reverie: no trajectory.jsonl in ${empty}\n` });
  });

  it("options may come before the path", async () => {
    const r = await run("context", "--json", "--budget", "5000", path);
    expect(r.code).toBe(0);
    expect(r.out).toBe((await run("context", path, "--json")).out);
  });
});

describe("a live mind's export: its sealed summaries go out as tiers.jsonl", () => {
  it("`reverie context --json` on the exported .tar.gz shows the mind's sealed summaries (tier parts), as the mind builds them", async () => {
    const db = await openTestDb("cli-context-export");
    try {
      const mind = await createMind(db, { name: "Wren", persona: "", model: { provider: "openai", model: "gpt" } }, Date.UTC(2026, 0, 1));
      const mk = stepMaker({ start: Date.UTC(2026, 0, 2) });
      const stream: Step[] = [];
      const seqs: number[] = [];
      for (let i = 0; i < 260; i++) {
        const step = mk("thought", { content: `thought number ${i}`, source: "monolith" });
        seqs.push(await appendStep(db, mind.id, step));
        stream.push(step);
      }
      // Every complete block sealed, as the summarizer seals them (with the store's seqs).
      const sealed = new Map<string, Summary>();
      for (const b of completeBlocks(stream.length, DEFAULT_TIERS)) {
        const { from, to } = blockRange(b, DEFAULT_TIERS);
        const content = `I thought through block ${b.tier}:${b.index}.`;
        const cites = [stream[from + 1]!.step_id];
        await sealTier(db, mind.id, mind.id, { ...b, content, cites, first_step: stream[from]!.step_id, last_step: stream[to - 1]!.step_id, steps: to - from, first_seq: seqs[from], last_seq: seqs[to - 1], model: "scripted/model" });
        sealed.set(key(b), { content, cites });
      }
      const archive = write("export.tar.gz", await streamBytes(writeTarGz(exportEntries(db, mind.id))));
      const r = await run("context", archive, "--json");
      expect([r.code, r.err]).toEqual([0, ""]);
      const json = JSON.parse(r.out) as BuiltContext;
      const want = mindContext(stream, sealed, new Map(), DEFAULT_BUDGET, "Wren");
      expect(json).toEqual(JSON.parse(JSON.stringify(want)));
      expect(json.parts.filter((p) => p.kind === "tier").map((p) => [p.tier, p.index])).toEqual([[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5]]);
      expectCoversOnce(json.parts, stream);
    } finally {
      await db.delete();
    }
  });
});
