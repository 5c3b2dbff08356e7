// How `reverie context` reads a trajectory.jsonl on disk (cli/context-scan.ts):
// lines cut where lib/import/lines.ts's LineSplitter cuts them, each classified
// as lib/trajectory's readLine classifies it, except a line the context never
// shows that begins as every writer writes one: it is taken as the step of
// that kind and id without being parsed. Held here to LineSplitter and
// readLine directly, and, through the command, to the same file read as a
// .tar.gz (lib/archive's pass, every line read in full).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readOnDisk } from "@/cli/context-read";
import { scan } from "@/cli/context-scan";
import { main } from "@/cli/reverie";
import { LineSplitter, MAX_LINE_BYTES, overLongReason } from "@/lib/import/lines";
import { readLine } from "@/lib/trajectory/headlong";
import type { Step } from "@/lib/trajectory/schema";
import { stepMaker } from "../helpers/steps";
import { pack } from "../helpers/trees";

async function run(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err };
}

const dir = mkdtempSync(join(tmpdir(), "reverie-context-scan-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, data: string | Uint8Array) => {
  const path = join(dir, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, data);
  return path;
};

/** A seeded generator, so a failure can be run again. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

/** A life of thoughts, its wakes and headers among them, as a writer writes them (type and step_id first). */
function life(n: number) {
  const mk = stepMaker();
  const steps: Step[] = [mk("trajectory", { name: "mind" })];
  for (let i = 0; i < n; i++) steps.push(i % 7 === 3 ? mk("wake", { reason: "scheduled", level: 0, delay_s: 0 }) : mk("thought", { content: `thought ${i}\ttab "quoted" ünïcödé`, source: "monolith" }));
  return steps.map((s) => JSON.stringify(s));
}

/** What readLine makes of the lines LineSplitter cuts: the stream's ids and the reasons lines were skipped, in order. */
function byReadLine(bytes: Uint8Array) {
  const splitter = new LineSplitter();
  const lines = [...splitter.push(bytes), ...splitter.end()];
  const seen = new Set<string>();
  const stream: string[] = [];
  const skipped: Record<string, number> = {};
  const skip = (r: string, n = 1) => void (skipped[r] = (skipped[r] ?? 0) + n);
  for (const line of lines) {
    const r = readLine(line, { asWritten: true, seen: (id) => seen.has(id) });
    if (!r.ok) {
      if (r.reason !== "blank") skip(r.reason);
      continue;
    }
    const kept = r.valid ? r.step : r.invalid;
    seen.add(kept.step_id);
    if (!r.valid) skip("not a valid step");
    else if (!["trajectory", "shellm-run", "config", "monolith-wake", "wake"].includes(kept.type)) stream.push(kept.step_id);
  }
  if (splitter.overLong) skip(overLongReason(MAX_LINE_BYTES), splitter.overLong);
  return { lines, stream, skipped };
}

/** The lines as the scan cuts them, decoded (a BOM at the very start left to readLine's trim, as LineSplitter drops it). */
function cutByScan(bytes: Uint8Array): string[] {
  const buffer = Buffer.from(bytes);
  const s = scan(buffer, new Set(), new Map());
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  return s.lines.from.map((from, i) => decoder.decode(buffer.subarray(from, s.lines.to[i]))).map((l, i) => (i === 0 ? l.replace(/^\ufeff/, "") : l));
}

/** The stream and the skipped lines as `reverie context` reads a trajectory.jsonl on disk (every line read in full, with `full`). */
async function byContext(name: string, bytes: Uint8Array, full = false) {
  const tree = await readOnDisk(write(`${name}/trajectory.jsonl`, bytes));
  if (!tree) throw new Error("not read on disk");
  if (full) for (let line = 0; line < cutByScan(bytes).length; line++) tree.again(line);
  const { source, skipped } = await tree.stream(0);
  return { stream: source.ids(0, source.length), skipped };
}

describe("lines, cut as LineSplitter cuts them", () => {
  it("blank lines, \\r\\n, leading blanks, a BOM, bytes past ASCII and broken UTF-8, a last line with no newline", () => {
    const r = rng(36);
    const parts = ["{}", "  {}", "\t{}", "\r\n", "\n", "\n\n  \n", "x", "é", "\ufeff{}", " \r", "[1]", '{"a":"\\n"}', "\u2028"];
    for (let n = 0; n < 300; n++) {
      const text = Array.from({ length: 1 + Math.floor(r() * 12) }, () => parts[Math.floor(r() * parts.length)]).join(r() < 0.5 ? "\n" : "\r\n");
      const bytes = new TextEncoder().encode(text);
      // A byte that is not UTF-8 now and then: both decode it to U+FFFD.
      if (n % 5 === 0 && bytes.length) bytes[Math.floor(r() * bytes.length)] = 0xff;
      expect([text, cutByScan(bytes)]).toEqual([text, byReadLine(bytes).lines]);
    }
  });

  it("a line over the limit is left out and counted, as LineSplitter does", async () => {
    const lines = life(3);
    const bytes = new TextEncoder().encode([lines[0], lines[1], `{"type":"thought","step_id":"x","content":"${"a".repeat(MAX_LINE_BYTES)}"}`, lines[2], lines[3]].join("\n"));
    const scanned = await byContext("over-long", bytes);
    expect(scanned).toEqual({ stream: byReadLine(bytes).stream, skipped: byReadLine(bytes).skipped });
    expect(scanned.skipped).toEqual({ [overLongReason(MAX_LINE_BYTES)]: 1 });
  });
});

describe("lines classified as readLine classifies them", () => {
  const lines = life(20);
  const id = (line: string | undefined) => (JSON.parse(line ?? "{}") as { step_id: string }).step_id;
  /** Every way a line is skipped, or kept though not written as writers write it. */
  const odd = [
    "not json",
    "[1, 2]",
    '{"type":"thought"}',
    '{"step_id":"x","type":""}',
    `{"type":"thought","step_id":"${id(lines[4])}","ts":"2026-01-01T00:00:00Z","content":"a duplicate"}`,
    '{"type":"thought","step_id":"0b0b0b0b-0000-4000-8000-000000000001","ts":"2026-01-01T00:00:00.000Z","content":42}',
    '{"step_id":"0b0b0b0b-0000-4000-8000-000000000002","type":"thought","ts":"2026-01-01T00:00:00.000Z","content":"keys in another order"}',
    '  {"type":"thought","step_id":"0b0b0b0b-0000-4000-8000-000000000003","ts":"2026-01-01T00:00:00.000Z","content":"a blank before it"}',
    '{"type":"thought","step_id":"0b0b0b0b-0000-4000-8000-00000000000\\u0034","ts":"2026-01-01T00:00:00.000Z","content":"an escape in its id"}',
    '{"type":"shell-output","step_id":"0b0b0b0b-0000-4000-8000-000000000005","ts":"2026-01-01T00:00:00.000Z","stdout":"","stderr":"","exit_code":0}',
    '{"type":"a kind of its own","step_id":"0b0b0b0b-0000-4000-8000-000000000006","ts":"2026-01-01T00:00:00.000Z"} ',
    '{"type":"thought","step_id":"cut-off',
  ];
  const mixed = [lines[0], ...lines.slice(1, 10), ...odd, ...lines.slice(10)].join("\n");
  const bytes = new TextEncoder().encode(mixed);

  it("every line read in full: the same stream and the same skipped lines, in the same order", async () => {
    const exact = byReadLine(bytes);
    expect(await byContext("every-line", bytes, true)).toEqual({ stream: exact.stream, skipped: exact.skipped });
    expect(exact.skipped).toEqual({ "not JSON": 2, "not a JSON object": 1, "no type or step_id": 2, "duplicate step_id": 1, "not a valid step": 1 });
  });

  it("read as the context reads them: the same, but for a line taken by its first bytes that its schema refuses", async () => {
    const exact = byReadLine(bytes);
    // The thought whose content is a number begins as a step does and is never shown: it stays in the stream, where it stands.
    const at = exact.stream.indexOf(id(lines[9])) + 1;
    const stream = [...exact.stream.slice(0, at), "0b0b0b0b-0000-4000-8000-000000000001", ...exact.stream.slice(at)];
    const { "not a valid step": _one, ...others } = exact.skipped;
    expect(await byContext("first-bytes", bytes)).toEqual({ stream, skipped: others });
  });
});

describe("the command, against the same file read as a .tar.gz (every line read in full)", () => {
  const lines = life(400);
  /** `reverie context` of the lines as a trajectory.jsonl and as a .tar.gz of it: their stdout, stderr and code. */
  async function both(name: string, text: string, ...args: string[]) {
    const file = write(`${name}/trajectory.jsonl`, text);
    const tarGz = write(`${name}.tar.gz`, new Uint8Array(await (await pack([{ path: "t/trajectory.jsonl", data: text }], "tar.gz")).arrayBuffer()));
    const onDisk = await run("context", file, ...args);
    const archived = await run("context", tarGz, ...args);
    return { onDisk, archived: { ...archived, err: archived.err.replaceAll("t/trajectory.jsonl", "trajectory.jsonl") } };
  }

  it("a clean life: the same context, both ways", async () => {
    const { onDisk, archived } = await both("clean", `${lines.join("\n")}\n`, "--json");
    expect(onDisk).toEqual(archived);
    expect(onDisk.code).toBe(0);
  });

  it("a step that breaks its schema where the context shows it is read in full and skipped, as every line of the archive is", async () => {
    const broken = [...lines];
    broken[lines.length - 5] = `{"type":"thought","step_id":"0b0b0b0b-0000-4000-8000-00000000000a","ts":"2026-01-01T00:00:00.000Z","content":{"not":"text"}}`;
    const { onDisk, archived } = await both("broken-tail", broken.join("\n"));
    expect(onDisk).toEqual(archived);
    expect(onDisk.err).toBe("warning: skipped 1 malformed line of trajectory.jsonl (not a valid step: 1); the steps after it are read\n");
  });

  it("duplicates, lines that are not JSON and lines written in another key order, anywhere: the same context, both ways", async () => {
    const odd = [...lines];
    odd.splice(30, 0, lines[12] ?? "", "not json", `{"step_id":"0b0b0b0b-0000-4000-8000-00000000000b","type":"thought","ts":"2026-01-01T00:00:00.000Z","content":"reordered"}`);
    odd.splice(390, 0, lines[200] ?? "", "\r", "[]");
    const { onDisk, archived } = await both("odd", odd.join("\r\n"), "--json");
    expect(onDisk).toEqual(archived);
    expect(onDisk.err).toBe("warning: skipped 4 malformed lines of trajectory.jsonl (duplicate step_id: 2, not JSON: 1, not a JSON object: 1); the steps after them are read\n");
  });

  it("a step never shown that begins as a step does but breaks its schema stays in the stream: the one difference from reading every line", async () => {
    const broken = [...lines];
    broken[20] = `{"type":"thought","step_id":"0b0b0b0b-0000-4000-8000-00000000000c","ts":"2026-01-01T00:00:00.000Z","content":7}`;
    const { onDisk, archived } = await both("broken-middle", broken.join("\n"));
    expect(archived.err).toBe("warning: skipped 1 malformed line of trajectory.jsonl (not a valid step: 1); the steps after it are read\n");
    expect(onDisk.err).toBe("");
    // The archive's stream is a step shorter: the block boundaries before the tail fall a step apart.
    expect(onDisk.out).not.toBe(archived.out);
  });
});
