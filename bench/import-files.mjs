/* global TextEncoder */
// The hostile files bench/import.bench.mjs reads, written to disk as they are
// made (never whole in memory): one enormous line among valid ones, as a
// .tar.gz and as a plain trajectory.jsonl, and decompression bombs of valid
// lines as .zip and .tar.gz. Sizes of gigabytes from megabytes: a run of
// bytes repeated is compressed once and written again and again (a gzip
// member per run; for the zip, deflate blocks ended by a sync flush, which
// join into one stream).
import "../bin/text-imports.mjs"; // first: lib/mind's default texts are .md files, which Node under tsx cannot import alone
import { closeSync, openSync, writeSync } from "node:fs";
import { constants, deflateRawSync } from "node:zlib";
import { tsImport } from "tsx/esm/api";

const { tarGzPieces } = await tsImport("../test/unit/helpers/hostile.ts", import.meta.url);
const { crc32 } = await tsImport("../lib/archive/crc32.ts", import.meta.url);

export const MiB = 1024 * 1024;
const enc = new TextEncoder();
const TS = "2025-01-01T00:00:00.000Z";
const uuid = (n) => `b0b0b0b0-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

/** `count` valid steps, ids from `from`: thoughts, after a trajectory line when they start the file (`from` 1). */
export function validLines(count, from = 1) {
  const lines = [];
  for (let i = 0; i < count; i++) {
    const step_id = uuid(from + i);
    lines.push(JSON.stringify(from + i === 1 ? { type: "trajectory", step_id, ts: TS, name: "hostile" } : { type: "thought", step_id, ts: TS, content: `valid line ${from + i}` }));
  }
  return lines.map((l) => `${l}\n`).join("");
}

/** One line of `bytes` bytes (a thought whose content is "x" over and over), as runs. */
function longLineRuns(bytes) {
  const head = enc.encode(`{"type":"thought","step_id":"${uuid(999_999)}","ts":"${TS}","content":"`);
  const tail = enc.encode('"}\n');
  const body = bytes - head.length - tail.length;
  const runs = [{ bytes: head }, { bytes: new Uint8Array(MiB).fill(0x78), times: Math.floor(body / MiB) }];
  if (body % MiB) runs.push({ bytes: new Uint8Array(body % MiB).fill(0x78) });
  runs.push({ bytes: tail });
  return runs;
}

function writePieces(path, pieces) {
  const fd = openSync(path, "w");
  let size = 0;
  try {
    for (const piece of pieces) size += writeSync(fd, piece);
  } finally {
    closeSync(fd);
  }
  return size;
}

/** A .tar.gz whose trajectory.jsonl is `before` valid lines, one line of `lineBytes`, then `after` more. */
export function writeLongLineTarGz(path, lineBytes, before = 4, after = 3) {
  const runs = [{ bytes: enc.encode(validLines(before)) }, ...longLineRuns(lineBytes), { bytes: enc.encode(validLines(after, 100)) }];
  return { size: writePieces(path, tarGzPieces([{ name: "b0b0b0b0-hostile/trajectory.jsonl", runs }])), inflated: runs.reduce((n, r) => n + r.bytes.length * (r.times ?? 1), 0), valid: before + after };
}

/** The same lines as a plain trajectory.jsonl. */
export function writeLongLineJsonl(path, lineBytes, before = 4, after = 3) {
  const runs = [{ bytes: enc.encode(validLines(before)) }, ...longLineRuns(lineBytes), { bytes: enc.encode(validLines(after, 100)) }];
  const pieces = function* () {
    for (const run of runs) for (let i = 0; i < (run.times ?? 1); i++) yield run.bytes;
  };
  const size = writePieces(path, pieces());
  return { size, inflated: size, valid: before + after };
}

/** 1 MiB of valid steps with long contents (64 of 16 KiB): ratio enough for a bomb, every line a valid step. */
function bombUnit() {
  const lines = [];
  for (let i = 0; i < 64; i++) {
    const head = `{"type":"thought","step_id":"${uuid(i + 1)}","ts":"${TS}","content":"`;
    lines.push(`${head}${"ab".repeat((16 * 1024 - head.length - 3) >> 1)}${head.length % 2 ? "" : "a"}"}\n`);
  }
  const unit = enc.encode(lines.join(""));
  if (unit.length !== MiB) throw new Error(`bomb unit of ${unit.length} bytes`);
  return unit;
}

/** A .tar.gz of one trajectory.jsonl: `mebibytes` of valid lines, the same megabyte over and over. */
export function writeBombTarGz(path, mebibytes) {
  const unit = bombUnit();
  return { size: writePieces(path, tarGzPieces([{ name: "bomb/trajectory.jsonl", runs: [{ bytes: unit, times: mebibytes }] }])), inflated: unit.length * mebibytes };
}

/**
 * A zip of one deflated trajectory.jsonl: `mebibytes` of valid lines. Its
 * CRC is true: the CRC of the unit repeated, folded by crc32Combine rather
 * than computed over gigabytes.
 */
export function writeBombZip(path, mebibytes) {
  const unit = bombUnit();
  const block = deflateRawSync(unit, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const last = deflateRawSync(new Uint8Array(0)); // an empty final block
  const size = unit.length * mebibytes;
  if (size > 0xffffffff) throw new Error("over 4 GiB: this writer has no ZIP64");
  const compressed = block.length * mebibytes + last.length;
  const unitCrc = crc32(unit);
  let crc = 0;
  for (let i = 0; i < mebibytes; i++) crc = crc32Combine(crc, unitCrc, unit.length);
  const name = enc.encode("bomb/trajectory.jsonl");
  const local = header(30, 0x04034b50, name, { crc, compressed, size });
  const central = header(46, 0x02014b50, name, { crc, compressed, size });
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, 1, true);
  end.setUint16(10, 1, true);
  end.setUint32(12, central.length, true);
  end.setUint32(16, local.length + compressed, true);
  const pieces = function* () {
    yield local;
    for (let i = 0; i < mebibytes; i++) yield block;
    yield last;
    yield central;
    yield new Uint8Array(end.buffer);
  };
  return { size: writePieces(path, pieces()), inflated: size };
}

/** A local (30 bytes) or central (46 bytes) header of a deflated, UTF-8-named entry at offset 0. */
function header(fixed, signature, name, { crc, compressed, size }) {
  const out = new Uint8Array(fixed + name.length);
  const dv = new DataView(out.buffer);
  const central = fixed === 46 ? 2 : 0; // the central header has "version made by" first
  dv.setUint32(0, signature, true);
  if (central) dv.setUint16(4, 20, true);
  dv.setUint16(4 + central, 20, true);
  dv.setUint16(6 + central, 0x0800, true);
  dv.setUint16(8 + central, 8, true);
  dv.setUint32(14 + central, crc, true);
  dv.setUint32(18 + central, compressed, true);
  dv.setUint32(22 + central, size, true);
  dv.setUint16(26 + central, name.length, true);
  out.set(name, fixed);
  return out;
}

// CRC-32 of two pieces joined, from their CRCs (zlib's crc32_combine): squaring a GF(2) matrix per bit of the second's length.
const times = (mat, vec) => {
  let sum = 0;
  for (let i = 0; vec; i++, vec >>>= 1) if (vec & 1) sum ^= mat[i];
  return sum >>> 0;
};
const square = (out, mat) => {
  for (let n = 0; n < 32; n++) out[n] = times(mat, mat[n]);
};

export function crc32Combine(crc1, crc2, len2) {
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = 0xedb88320;
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row >>> 0;
  square(even, odd);
  square(odd, even);
  let crc = crc1 >>> 0;
  for (let len = len2; len > 0; ) {
    square(even, odd);
    if (len % 2) crc = times(even, crc);
    len = Math.floor(len / 2);
    if (len === 0) break;
    square(odd, even);
    if (len % 2) crc = times(odd, crc);
    len = Math.floor(len / 2);
  }
  return (crc ^ crc2) >>> 0;
}
