// The lines of a trajectory.jsonl as every writer writes them, cut and taken
// by one small WebAssembly function instead of a JavaScript loop. For a
// 10,000-step life that loop ran mostly before the optimizing compiler was
// done with it, where every property read and call per line is work for the
// engine, and its ids (a string each) and the set that told duplicates kept
// the collector busy. Here the bytes are scanned where they lie, duplicates
// are found in a table of their own, and the stream's ids come out as one
// text, split once.
//
// It takes a file only when every line after the header is such a line:
// `{"type":"<kind>","step_id":"<id>"` (both printable ASCII, no quote or
// backslash: cli/context-scan.ts's FIRST_BYTES) from the line's first byte,
// and `}` just before its "\n". Such lines are what the general scan takes by
// their first bytes, with the same line numbers, the same duplicates skipped
// and the same kinds kept. Anything else (a blank line, a "\r", another key
// order, a line over the limit, more lines than the table holds, the
// header's id again) stops it, and the general scan reads the file.
//
// The function is cli/context-scan-wasm-code.ts's (some 1,400 bytes),
// compiled by the engine's baseline compiler at each start.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { scanModuleBytes } from "./context-scan-wasm-module";

let compiled: WebAssembly.Module | undefined;

/** What the function made of the lines after the header, numbered from 1 (the header is line 0). */
export interface Taken {
  /** Every line's first byte and end, the header's included. */
  starts: Int32Array<ArrayBuffer>;
  ends: Int32Array<ArrayBuffer>;
  count: number;
  kept: number;
  duplicates: number;
  /** By stream position, the line. */
  stream: Int32Array<ArrayBuffer>;
  streamIds: string[];
  /** The ids as one text, a "\n" before each and after the last; id p begins at at[p] - base in it. */
  idText: { text: string; at: Int32Array; base: number };
}

/** Files past this are left to the general scan (its memory, some three times the file, stays well within 4 GB). */
const MAX_FILE = 256 * 1024 * 1024;

/** The characters a line as every writer writes it may have in its id (FIRST_BYTES's class). */
const PLAIN = /^[ !#-[\]-~]+$/;

/** Where the scan keeps what, for a file of n bytes: the file, zeros (the seek reads up to 63 bytes past it), the arrays, the ids' text, the table, the results. */
function layoutFor(n: number) {
  // A table at most half full, for a line every 64 bytes (a step is longer): a file of shorter lines is left to the general scan.
  let slots = 2048;
  while (slots < n / 32) slots *= 2;
  const cap = slots / 2;
  const align = (x: number) => Math.ceil(x / 16) * 16;
  const starts = align(n + 64);
  const ends = starts + 4 * cap;
  const idStarts = ends + 4 * cap;
  const idEnds = idStarts + 4 * cap;
  const stream = idEnds + 4 * cap;
  const textAt = stream + 4 * cap;
  // The ids' text: a "\n", then each id followed by one.
  const out = textAt + 4 * cap;
  const table = align(out + 1 + n + cap);
  const results = table + 4 * slots;
  return { n, slots, cap, starts, ends, idStarts, idEnds, stream, textAt, out, table, results, pages: Math.ceil((results + 64) / 65536) };
}
type Layout = ReturnType<typeof layoutFor>;

/** Memories a file was read into (readForScan), by their buffer: the scan uses them as they are. */
const prepared = new WeakMap<ArrayBufferLike, { memory: WebAssembly.Memory; layout: Layout; used: boolean }>();

function memoryFor(layout: Layout): WebAssembly.Memory | undefined {
  if (typeof WebAssembly === "undefined" || layout.n > MAX_FILE) return undefined;
  try {
    return new WebAssembly.Memory({ initial: layout.pages });
  } catch {
    // No memory that large: the general scan, on bytes read as usual.
    return undefined;
  }
}

/**
 * A file's bytes, read straight into a memory laid out for the scan (one
 * copy of a few megabytes fewer, each page of it new to the process), or
 * read as usual where there is none to be had.
 */
export function readForScan(path: string): Buffer {
  const fd = openSync(path, "r");
  try {
    const n = fstatSync(fd).size;
    const layout = layoutFor(n);
    const memory = memoryFor(layout);
    if (!memory) return readFileSync(fd);
    const bytes = Buffer.from(memory.buffer, 0, n);
    let got = 0;
    for (let k = -1; got < n && k !== 0; got += k) k = readSync(fd, bytes, got, n - got, got);
    if (got < n) return bytes.subarray(0, got);
    prepared.set(memory.buffer, { memory, layout, used: false });
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/**
 * The lines of `bytes` from `from` on (line 1 on; the header, line 0, is
 * [0, headerEnd) with the id `headerId`), when every one is as every writer
 * writes it; undefined when one is not (the general scan reads the file).
 */
export function takeRegularLines(bytes: Uint8Array, headerEnd: number, from: number, headerId: string): Taken | undefined {
  let ready = prepared.get(bytes.buffer);
  if (!ready || bytes.byteOffset !== 0 || bytes.length !== ready.layout.n) {
    const layout = layoutFor(bytes.length);
    const memory = memoryFor(layout);
    if (!memory) return undefined;
    new Uint8Array(memory.buffer).set(bytes);
    ready = { memory, layout, used: false };
  }
  const { memory, layout: at } = ready;
  const words = new Int32Array(memory.buffer);
  // A second scan of the same memory (after zod's answers for the header) starts from an empty table.
  if (ready.used) words.fill(0, at.table / 4, at.table / 4 + at.slots);
  ready.used = true;
  let scan: (...args: number[]) => number;
  try {
    compiled ??= new WebAssembly.Module(scanModuleBytes());
    ({ scan } = new WebAssembly.Instance(compiled, { m: { m: memory } }).exports as { scan: typeof scan });
  } catch {
    // An engine without the vector instructions: the general scan.
    return undefined;
  }
  words[at.starts / 4] = 0;
  words[at.ends / 4] = headerEnd;
  new Uint8Array(memory.buffer)[at.out] = 0x0a;
  if (scan(at.n, from, 1, at.cap, at.starts, at.ends, at.idStarts, at.idEnds, at.stream, at.textAt, at.out + 1, at.table, at.slots - 1, at.results) !== 0) return undefined;
  const [count = 0, kept = 0, duplicates = 0, sc = 0, textLength = 0] = words.subarray(at.results / 4, at.results / 4 + 5);
  // A line after the header with its id was a duplicate: such a file is left to the general scan.
  if (PLAIN.test(headerId) && inTable(memory, at, headerId)) return undefined;
  return {
    starts: words.slice(at.starts / 4, at.starts / 4 + count),
    ends: words.slice(at.ends / 4, at.ends / 4 + count),
    count,
    kept,
    duplicates,
    stream: words.slice(at.stream / 4, at.stream / 4 + sc),
    // The ids' text, each id followed by a "\n": split once (the last "\n" left off).
    ...idsOf(Buffer.from(memory.buffer, at.out, textLength + 1).toString("latin1"), words.subarray(at.textAt / 4, at.textAt / 4 + sc), at.out),
  };
}

/** The stream's ids, split from their text once, and the text with where each id begins in it (for idLines). */
function idsOf(text: string, textAt: Int32Array, base: number): Pick<Taken, "streamIds" | "idText"> {
  return { streamIds: textAt.length ? text.slice(1, -1).split("\n") : [], idText: { text, at: textAt.slice(), base } };
}

/** Whether a line's id in the table is `id` (plain ASCII): looked up as the function looks its ids up. */
function inTable(memory: WebAssembly.Memory, at: Layout, id: string): boolean {
  const heap = new Uint8Array(memory.buffer);
  const words = new Int32Array(memory.buffer);
  const prime = 0x100000001b3n;
  let x = 0xcbf29ce484222325n;
  let k = 0;
  for (; k + 8 <= id.length; k += 8) {
    let word = 0n;
    for (let j = 7; j >= 0; j--) word = (word << 8n) | BigInt(id.charCodeAt(k + j));
    x = BigInt.asUintN(64, (x ^ word) * prime);
  }
  for (; k < id.length; k++) x = BigInt.asUintN(64, (x ^ BigInt(id.charCodeAt(k))) * prime);
  for (let slot = Number(BigInt.asUintN(32, x ^ (x >> 32n))) & (at.slots - 1); ; slot = (slot + 1) & (at.slots - 1)) {
    const line = (words[at.table / 4 + slot] ?? 0) - 1;
    if (line < 0) return false;
    const from = words[at.idStarts / 4 + line] ?? 0;
    if ((words[at.idEnds / 4 + line] ?? 0) - from !== id.length) continue;
    let j = 0;
    while (j < id.length && heap[from + j] === id.charCodeAt(j)) j++;
    if (j === id.length) return true;
  }
}
