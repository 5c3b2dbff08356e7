// The lines after a trajectory.jsonl's header taken by the WebAssembly scan
// (cli/context-scan-wasm.ts) against the general scan of cli/context-scan.ts
// (made to read every line itself by a `full` set that names no line): the
// same lines, stream, ids, kept and skipped lines, on random files of lines
// as every writer writes them; and a file with any other line is left to
// the general scan.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scan, streamSource, type Scanned } from "@/cli/context-scan";
import { readForScan, takeRegularLines } from "@/cli/context-scan-wasm";

/** A seeded generator, so a failure can be run again. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

/** What a scan made of the lines, in plain values. */
const plain = (s: Scanned) => ({ from: s.lines.from, to: s.lines.to, stream: Array.from(s.stream), streamIds: s.streamIds, kept: s.kept, skipped: s.skipped, name: s.name });
/** zod's answer for the header (line 0), as the reader has it after asking: a trajectory's header is one the compiled checks leave to zod. */
const ANSWERS = new Map([[0, { valid: true }]]);
/** The general scan: a `full` set (of no line) turns both quicker paths off. */
const general = (bytes: Buffer) => plain(scan(bytes, new Set([-1]), ANSWERS));
const quick = (bytes: Buffer) => plain(scan(bytes, new Set(), ANSWERS));

/** Content that ends past ASCII, or with what JSON escapes. */
const TAILS = ["", "é", "é\n", 'é\n"', "\\"];

/** Ids and kinds of every length and every character of the class, duplicates among them. */
function regularLife(r: () => number, n: number): { text: string; headerId: string } {
  const chars = " !#$%&'()*+,-./0123456789:;<=>?@ABCXYZ[]^_`abcxyz{|}~";
  const word = (len: number) => Array.from({ length: len }, () => chars[Math.floor(r() * chars.length)]).join("");
  const kinds = ["thought", "wake", "config", "trajectory", "shellm-run", "monolith-wake", "message", "wakes", "confi", "a", "shellm-ruN", word(1 + Math.floor(r() * 20))];
  const ids: string[] = [];
  const headerId = r() < 0.5 ? "0b0b0b0b-0000-4000-8000-000000000000" : word(1 + Math.floor(r() * 40));
  const lines = [JSON.stringify({ type: "trajectory", step_id: headerId, ts: "2026-01-01T00:00:00.000Z", name: "mind" })];
  for (let i = 0; i < n; i++) {
    const again = ids.length && r() < 0.05;
    const id = again ? (ids[Math.floor(r() * ids.length)] ?? "") : word(1 + Math.floor(r() * 60));
    ids.push(id);
    const kind = kinds[Math.floor(r() * kinds.length)] ?? "thought";
    // The rest of the line, of any length (its bytes past ASCII too), so a line's end falls anywhere in a 16-byte chunk.
    const content = word(Math.floor(r() * 40)) + (TAILS[Math.floor(r() * TAILS.length)] ?? "");
    lines.push(`{"type":${JSON.stringify(kind)},"step_id":${JSON.stringify(id)},"content":${JSON.stringify(content)}}`);
  }
  return { text: lines.join("\n") + (r() < 0.5 ? "\n" : ""), headerId };
}

describe("the WebAssembly scan of the lines as every writer writes them", () => {
  it("takes what the general scan takes: lines, stream, ids, duplicates, kept", () => {
    const r = rng(37);
    for (let k = 0; k < 60; k++) {
      const { text, headerId } = regularLife(r, Math.floor(r() * 300));
      const bytes = Buffer.from(text);
      const nl = bytes.indexOf(10);
      expect(takeRegularLines(bytes, nl, nl + 1, headerId)).toBeDefined();
      // The scan took the file by the function (the ids' text is its own).
      expect(scan(bytes, new Set(), ANSWERS).idText).toBeDefined();
      expect(quick(bytes)).toEqual(general(bytes));
    }
  });

  it("takes every line after the header of such a file, and counts its duplicates", () => {
    const { text, headerId } = regularLife(rng(38), 500);
    const bytes = Buffer.from(text);
    const nl = bytes.indexOf(10);
    const taken = takeRegularLines(bytes, nl, nl + 1, headerId);
    const exact = general(bytes);
    expect(taken && { count: taken.count, stream: Array.from(taken.stream), streamIds: taken.streamIds }).toEqual({ count: exact.from.length, stream: exact.stream, streamIds: exact.streamIds });
    expect(taken?.duplicates).toBe(exact.skipped["duplicate step_id"] ?? 0);
    expect(taken?.duplicates).toBeGreaterThan(0);
  });

  it("leaves a file with any other line to the general scan, which reads it as before", () => {
    const r = rng(39);
    const { text, headerId } = regularLife(r, 50);
    const lines = text.trimEnd().split("\n");
    const others = [
      "",
      "  ",
      `${lines[3]}\r`,
      ` ${lines[3]}`,
      `${lines[3]} `,
      '{"step_id":"x","type":"thought"}',
      '{"type":"thought","step_id":"a\\"b"}',
      '{"type":"thought","step_id":""}',
      '{"type":"","step_id":"x"}',
      '{"type":"thought","step_id":"é"}',
      "not json",
      `{"type":"thought","step_id":${JSON.stringify(headerId)}}`,
    ];
    for (const other of others) {
      const odd = [...lines.slice(0, 20), other, ...lines.slice(20)].join("\n");
      const bytes = Buffer.from(odd);
      const nl = bytes.indexOf(10);
      expect([other, takeRegularLines(bytes, nl, nl + 1, headerId)]).toEqual([other, undefined]);
      expect(quick(bytes)).toEqual(general(bytes));
    }
  });

  it("reads a file straight into its memory, and scans it there as often as it is asked", () => {
    const dir = mkdtempSync(join(tmpdir(), "reverie-scan-wasm-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const { text, headerId } = regularLife(rng(40), 300);
    const path = join(dir, "trajectory.jsonl");
    writeFileSync(path, text);
    const bytes = readForScan(path);
    expect(bytes.equals(Buffer.from(text))).toBe(true);
    const nl = bytes.indexOf(10);
    const first = takeRegularLines(bytes, nl, nl + 1, headerId);
    // Again, on the same memory (its table emptied first): the same.
    expect(takeRegularLines(bytes, nl, nl + 1, headerId)).toEqual(first);
    expect(first && Array.from(first.stream)).toEqual(general(Buffer.from(text)).stream);
  });

  it("gives the stream's ids of a range as one text, each after a newline, as the ids joined would be", () => {
    const r = rng(42);
    for (let k = 0; k < 20; k++) {
      const { text } = regularLife(r, 1 + Math.floor(r() * 300));
      const src = streamSource(scan(Buffer.from(text), new Set(), ANSWERS));
      for (let q = 0; q < 20 && src.length; q++) {
        const from = Math.floor(r() * src.length);
        const to = from + 1 + Math.floor(r() * (src.length - from));
        expect(src.idLines?.(from, to)).toBe(`\n${src.ids(from, to).join("\n")}\n`);
      }
      expect(src.idLines?.(0, 0)).toBeUndefined();
    }
    // The general scan has no such text: the ids are joined by whoever asks.
    expect(streamSource(scan(Buffer.from(regularLife(r, 10).text), new Set([-1]), ANSWERS)).idLines?.(0, 1)).toBeUndefined();
  });
});
