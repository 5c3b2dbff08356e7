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
// The function is assembled here (cli/wasm-emit.ts; some 1,300 bytes) and
// compiled by the engine's baseline compiler at each start.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { OUT_OF_STREAM } from "../lib/context/stream";
import { MAX_LINE_BYTES } from "../lib/import/lines";
import { Emit, I32, I64, name, op, section, uleb, V128_TYPE, vec } from "./wasm-emit";

// The parameters, then the locals (all i32, but x, an i64), by name.
const NAMES = [
  ...["n", "at", "line", "cap", "starts", "ends", "idStarts", "idEnds", "stream", "textAt", "out", "table", "mask", "results"],
  ...["nl", "i", "typeEnd", "idS", "idE", "h", "slot", "v", "kept", "dups", "sc", "op", "c", "k", "code"],
  "x",
  "v128",
] as const;
type Local = (typeof NAMES)[number];
const PARAMS = 14;
const I32_LOCALS = 15;

/**
 * The end of a run of FIRST_BYTES's class (printable ASCII but `"` and `\`)
 * from `i`, in `into`: sixteen bytes at a time, the first that is below a
 * space, past `~`, a quote or a backslash (a "\n" is one: the run ends
 * within its line, and reads at most fifteen bytes past it).
 */
function classRun(e: Emit<Local>, into: Local, label: string): void {
  e.block(`${label}-end`, () =>
    e.loop(`${label}-next`, () => {
      e.get("i").vec(vec.load).set("v128");
      e.get("v128").bytes16(0x20).vec(vec.ltU);
      e.get("v128").bytes16(0x7e).vec(vec.gtU, vec.or);
      e.get("v128").bytes16(0x22).vec(vec.eq, vec.or);
      e.get("v128").bytes16(0x5c).vec(vec.eq, vec.or, vec.bitmask).set("c");
      e.block(`${label}-more`, () => {
        e.get("c").op(op.eqz).brIf(`${label}-more`);
        e.get("i").get("c").op(op.ctz, op.add).set("i").br(`${label}-end`);
      });
      e.inc("i", 16).br(`${label}-next`);
    }),
  );
  e.get("i").set(into);
}

/** The scan (see the parameters' names; the results are written at `results`): 0 when every line from `at` was taken, 1 when one was not. */
function scanCode(): number[] {
  const e = new Emit<Local>(NAMES);
  e.get("out").set("op");
  e.block("done", () => {
    e.block("irregular", () =>
      e.loop("lines", () => {
        e.get("at").get("n").op(op.geU).brIf("done");
        e.get("line").get("cap").op(op.geU).brIf("irregular");
        // The line's end: sixty-four bytes at a time while none is a "\n", then sixteen to the first (past the file are zeros, no "\n").
        e.get("at").set("i");
        e.block("found", () => {
          e.block("near", () =>
            e.loop("skip", () => {
              e.get("i").get("n").op(op.geU).brIf("found");
              for (let k = 0; k < 4; k++) {
                e.get("i").vecLoad(16 * k).bytes16(0x0a).vec(vec.eq);
                if (k) e.vec(vec.or);
              }
              e.vec(vec.anyTrue).brIf("near");
              e.inc("i", 64).br("skip");
            }),
          );
          e.loop("step", () => {
            e.get("i").vecLoad(0).bytes16(0x0a).vec(vec.eq, vec.bitmask).set("c");
            e.block("none", () => {
              e.get("c").op(op.eqz).brIf("none");
              e.get("i").get("c").op(op.ctz, op.add).set("i").br("found");
            });
            e.inc("i", 16).br("step");
          });
        });
        // At most the end of the bytes (the last sixty-four may pass it).
        e.get("n").get("i").get("i").get("n").op(op.gtU, op.select).set("nl");
        e.get("nl").get("at").op(op.sub).i32(MAX_LINE_BYTES).op(op.gtU).brIf("irregular");
        // A blank line's byte before its "\n" is the "\n" before it, a "\r\n" line's is "\r": neither is `}`.
        e.get("nl").i32(1).op(op.sub).load8().i32(0x7d).op(op.ne).brIf("irregular");
        e.literal("at", 0, '{"type":"', "irregular");
        e.get("at").i32(9).op(op.add).set("i");
        classRun(e, "typeEnd", "kind");
        e.get("typeEnd").get("at").i32(9).op(op.add, op.eq).brIf("irregular");
        // The runs stop at a "\n" (not of their class): all that matches lies within the line.
        e.literal("typeEnd", 0, '","step_id":"', "irregular");
        e.get("typeEnd").i32(13).op(op.add).set("idS");
        e.get("idS").set("i");
        classRun(e, "idE", "id");
        e.get("idE").get("idS").op(op.eq).brIf("irregular");
        e.get("idE").load8().i32(0x22).op(op.ne).brIf("irregular");
        e.element("starts", "line").get("at").store32();
        e.element("ends", "line").get("nl").store32();
        e.element("idStarts", "line").get("idS").store32();
        e.element("idEnds", "line").get("idE").store32();
        hash(e);
        place(e);
        e.inc("line");
        e.get("nl").i32(1).op(op.add).set("at");
        e.br("lines");
      }),
    );
    e.i32(1).set("code");
  });
  // The results: lines, kept, duplicates, the stream's length, the ids' text's length.
  const result = (k: number, value: () => void) => {
    e.get("results").i32(4 * k).op(op.add);
    value();
    e.store32();
  };
  result(0, () => e.get("line"));
  result(1, () => e.get("kept"));
  result(2, () => e.get("dups"));
  result(3, () => e.get("sc"));
  result(4, () => e.get("op").get("out").op(op.sub));
  e.get("code");
  return e.code;
}

/** h: the id [idS, idE) hashed (FNV-1a over its eight-byte words, then its last bytes). */
function hash(e: Emit<Local>): void {
  const prime = 0x100000001b3n;
  e.i64(0xcbf29ce484222325n).set("x");
  e.get("idS").set("i");
  e.block("words-end", () =>
    e.loop("words", () => {
      e.get("i").i32(8).op(op.add).get("idE").op(op.gtU).brIf("words-end");
      e.get("x").get("i").load64().op(op.i64Xor).i64(prime).op(op.i64Mul).set("x");
      e.inc("i", 8).br("words");
    }),
  );
  e.block("bytes-end", () =>
    e.loop("bytes", () => {
      e.get("i").get("idE").op(op.geU).brIf("bytes-end");
      e.get("x").get("i").load8().op(op.i64ExtendU, op.i64Xor).i64(prime).op(op.i64Mul).set("x");
      e.inc("i").br("bytes");
    }),
  );
  e.get("x").get("x").i64(32n).op(op.i64ShrU, op.i64Xor, op.wrap).set("h");
}

/** The line's id into the table (open addressing; a slot holds a line + 1): new (the line is kept, and in the stream unless its kind is out of it), or a duplicate. */
function place(e: Emit<Local>): void {
  e.get("h").get("mask").op(op.and).set("slot");
  e.block("placed", () =>
    e.loop("probe", () => {
      e.element("table", "slot").load32().set("v");
      e.block("occupied", () => {
        e.get("v").brIf("occupied");
        e.element("table", "slot").get("line").i32(1).op(op.add).store32();
        e.inc("kept");
        e.block("out", () => {
          for (const kind of OUT_OF_STREAM) {
            e.block(`not-${kind}`, () => {
              e.get("typeEnd").get("at").op(op.sub).i32(9 + kind.length).op(op.ne).brIf(`not-${kind}`);
              e.literal("at", 9, kind, `not-${kind}`).br("out");
            });
          }
          e.element("stream", "sc").get("line").store32();
          e.element("textAt", "sc").get("op").store32();
          e.inc("sc");
          // The id, then a "\n", onto the ids' text (memory.copy).
          e.get("op").get("idS").get("idE").get("idS").op(op.sub).copy();
          e.get("op").get("idE").get("idS").op(op.sub, op.add).set("op");
          e.get("op").i32(0x0a).store8();
          e.inc("op");
        });
        e.br("placed");
      });
      // The line in the slot: the same id (this one is a duplicate, skipped) or another (the next slot).
      e.get("v").i32(1).op(op.sub).set("k");
      e.block("differ", () => {
        e.element("idEnds", "k").load32().element("idStarts", "k").load32().op(op.sub).get("idE").get("idS").op(op.sub, op.ne).brIf("differ");
        e.element("idStarts", "k").load32().set("c");
        e.get("idS").set("i");
        e.block("same", () =>
          e.loop("compare", () => {
            e.get("i").get("idE").op(op.geU).brIf("same");
            e.get("c").load8().get("i").load8().op(op.ne).brIf("differ");
            e.inc("c").inc("i").br("compare");
          }),
        );
        e.inc("dups").br("placed");
      });
      e.get("slot").i32(1).op(op.add).get("mask").op(op.and).set("slot");
      e.br("probe");
    }),
  );
}

function assemble(): Uint8Array<ArrayBuffer> {
  const m = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  // (func (param i32 × 13) (result i32))
  const type = [1, 0x60, PARAMS, ...new Array<number>(PARAMS).fill(I32), 1, I32];
  section(m, 1, type);
  // (import "m" "m" (memory 1)): the caller's, sized to the file.
  const imports = [1];
  name(imports, "m");
  name(imports, "m");
  imports.push(0x02, 0x00, 1);
  section(m, 2, imports);
  section(m, 3, [1, 0]);
  const exports = [1];
  name(exports, "scan");
  exports.push(0x00, 0);
  section(m, 7, exports);
  const body = [3, I32_LOCALS, I32, 1, I64, 1, V128_TYPE, ...scanCode(), 0x0b];
  const code = [1];
  uleb(code, body.length);
  for (const b of body) code.push(b);
  section(m, 10, code);
  return new Uint8Array(m);
}

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

/** Files past this are left to the general scan (its memory, some 2.5 times the file, stays well within 4 GB; and a string of one stops short of 2^29 characters). */
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
    compiled ??= new WebAssembly.Module(assemble());
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
