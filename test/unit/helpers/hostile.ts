// Archives no honest writer makes, for the hostile-file tests and bench/import:
// names as given (`../x`, `/abs`), sizes of gigabytes from kilobytes (a run of
// bytes repeated is gzipped once and its member written again and again: gzip
// readers join members), and zips patched after writing (a CRC, a name).
import { gzipSync } from "node:zlib";
import { BLOCK, encodeTarHeader, paddingAfter } from "../../../lib/archive/tar-header";

/** `bytes`, `times` times over. */
export interface Run {
  bytes: Uint8Array;
  times?: number;
}

export interface RawFile {
  /** Written as given, unchecked. */
  name: string;
  runs: Run[];
}

const enc = new TextEncoder();

export const runsSize = (runs: readonly Run[]) => runs.reduce((n, r) => n + r.bytes.length * (r.times ?? 1), 0);

/** A ustar header for `name` (at most 100 bytes) and `size`. */
function header(name: string, size: number): Uint8Array {
  const bytes = enc.encode(name);
  if (bytes.length > 100) throw new Error(`name over 100 bytes: ${name}`);
  return encodeTarHeader({ name: bytes, size, mtime: new Date(0), type: "0" });
}

/** A tar's runs in order: each file's header, its runs, its padding; then the end-of-archive marker. */
export function tarRuns(files: readonly RawFile[]): Run[] {
  const out: Run[] = [];
  for (const f of files) {
    const size = runsSize(f.runs);
    out.push({ bytes: header(f.name, size) }, ...f.runs, { bytes: new Uint8Array(paddingAfter(size)) });
  }
  out.push({ bytes: new Uint8Array(BLOCK * 2) });
  return out;
}

/** A plain tar's bytes, in pieces (a repeated run repeats its piece). */
export function* tarPieces(files: readonly RawFile[]): Generator<Uint8Array> {
  for (const run of tarRuns(files)) for (let i = 0; i < (run.times ?? 1); i++) yield run.bytes;
}

/** The same tar gzipped as one member per run: a run repeated a million times costs one compression. */
export function* tarGzPieces(files: readonly RawFile[]): Generator<Uint8Array> {
  for (const run of tarRuns(files)) {
    if (run.bytes.length === 0) continue;
    const member = gzipSync(run.bytes, { level: 9 });
    for (let i = 0; i < (run.times ?? 1); i++) yield member;
  }
}

export const tarBlob = (files: readonly RawFile[]) => new Blob([...tarPieces(files)] as BlobPart[]);
export const tarGzBlob = (files: readonly RawFile[]) => new Blob([...tarGzPieces(files)] as BlobPart[]);

/** Central directory records of a zip without a comment: where each starts. */
export function centralRecords(zip: Uint8Array): number[] {
  const dv = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const eocd = zip.length - 22;
  if (dv.getUint32(eocd, true) !== 0x06054b50) throw new Error("no plain EOCD at the end");
  const out: number[] = [];
  for (let at = dv.getUint32(eocd + 16, true); dv.getUint32(at, true) === 0x02014b50; ) {
    out.push(at);
    at += 46 + dv.getUint16(at + 28, true) + dv.getUint16(at + 30, true) + dv.getUint16(at + 32, true);
  }
  return out;
}

/** The zip with the stated CRC of its `index`th entry changed: its data no longer matches. */
export function withWrongCrc(zip: Uint8Array, index: number): Uint8Array<ArrayBuffer> {
  const out = zip.slice();
  const at = centralRecords(out)[index];
  if (at === undefined) throw new Error(`no entry ${index}`);
  out[at + 16]! ^= 0x5a;
  return out;
}

/** Every occurrence of `from` replaced by `to` (the same length in bytes): renames entries a writer would refuse. */
export function replaceBytes(data: Uint8Array, from: string, to: string): Uint8Array<ArrayBuffer> {
  const a = enc.encode(from);
  const b = enc.encode(to);
  if (a.length !== b.length) throw new Error("replaceBytes keeps lengths");
  const out = data.slice();
  for (let at = out.indexOf(a[0]!); at >= 0 && at + a.length <= out.length; at = out.indexOf(a[0]!, at + 1)) {
    if (a.every((byte, i) => out[at + i] === byte)) out.set(b, at);
  }
  return out;
}
