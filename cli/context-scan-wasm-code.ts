// The WebAssembly scan of cli/context-scan-wasm.ts, written with
// cli/wasm-emit.ts: one function, `scan`, over a memory the caller lays out
// (see its parameters' names), and the module that holds it. Assembled under
// the sources when first used (cli/context-scan-wasm-module.ts); the command
// line's bundle holds the module's bytes, assembled when it is built
// (bin/cli-bundle.mjs).
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

/** The module: (import "m" "m" (memory 1)) and (export "scan" (func ...)). */
export function assemble(): Uint8Array<ArrayBuffer> {
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
