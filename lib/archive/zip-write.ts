// Writes a zip in memory (the result is a Blob): each entry deflated with
// fflate, or stored when deflate does not make it smaller, with its sizes and
// CRC in the local header (no data descriptors) and names flagged UTF-8.
// ZIP64 records are added only when sizes, offsets or the entry count need them.
import { deflateSync } from "fflate";
import { crc32 } from "./crc32";
import { prepare } from "./out-entry";
import type { OutEntry } from "./types";
import {
  CENTRAL_HEADER_SIZE,
  dosDateTime,
  EOCD_SIZE,
  FLAG_UTF8,
  LOCAL_HEADER_SIZE,
  MAX16,
  MAX32,
  SIG_CENTRAL,
  SIG_EOCD,
  SIG_LOCAL,
  SIG_ZIP64_EOCD,
  SIG_ZIP64_LOCATOR,
  view,
  ZIP64_EOCD_SIZE,
  ZIP64_EXTRA,
  ZIP64_LOCATOR_SIZE,
} from "./zip-format";

export interface ZipWriteOptions {
  /** Write ZIP64 fields even when nothing needs them, as some tools always do (lets tests reach that path). */
  forceZip64?: boolean;
}

interface Written {
  name: Uint8Array<ArrayBuffer>;
  crc: number;
  method: 0 | 8;
  time: number;
  date: number;
  size: number;
  compressedSize: number;
  offset: number;
}

/** Unix "made by" (3) and spec 4.5, so unzip gives files mode 0644. */
const MADE_BY = (3 << 8) | 45;
const FILE_MODE = 0o100644 << 16;

export async function buildZip(entries: AsyncIterable<OutEntry> | Iterable<OutEntry>, opts: ZipWriteOptions = {}): Promise<Blob> {
  const force = opts.forceZip64 ?? false;
  const parts: Uint8Array<ArrayBuffer>[] = [];
  const central: Uint8Array<ArrayBuffer>[] = [];
  const now = new Date();
  let offset = 0;
  for await (const entry of entries) {
    const { name, data, mtime } = prepare(entry, now);
    const deflated = deflateSync(data, { level: 6 });
    const stored = deflated.length >= data.length;
    const body = stored ? data : deflated;
    const w: Written = { name, crc: crc32(data), method: stored ? 0 : 8, ...dosDateTime(mtime), size: data.length, compressedSize: body.length, offset };
    const local = localHeader(w, force);
    parts.push(local, body);
    central.push(centralHeader(w, force));
    offset += local.length + body.length;
  }
  const cdSize = central.reduce((sum, part) => sum + part.length, 0);
  return new Blob([...parts, ...central, ...endRecords(central.length, cdSize, offset, force)]);
}

function localHeader(w: Written, force: boolean): Uint8Array<ArrayBuffer> {
  const zip64 = force || w.size >= MAX32 || w.compressedSize >= MAX32;
  // In a local header the ZIP64 field must hold both sizes.
  const extra = zip64 ? zip64Extra([w.size, w.compressedSize]) : new Uint8Array(0);
  const out = new Uint8Array(LOCAL_HEADER_SIZE + w.name.length + extra.length);
  const dv = view(out);
  dv.setUint32(0, SIG_LOCAL, true);
  dv.setUint16(4, zip64 ? 45 : 20, true);
  dv.setUint16(6, FLAG_UTF8, true);
  dv.setUint16(8, w.method, true);
  dv.setUint16(10, w.time, true);
  dv.setUint16(12, w.date, true);
  dv.setUint32(14, w.crc, true);
  dv.setUint32(18, zip64 ? MAX32 : w.compressedSize, true);
  dv.setUint32(22, zip64 ? MAX32 : w.size, true);
  dv.setUint16(26, w.name.length, true);
  dv.setUint16(28, extra.length, true);
  out.set(w.name, LOCAL_HEADER_SIZE);
  out.set(extra, LOCAL_HEADER_SIZE + w.name.length);
  return out;
}

function centralHeader(w: Written, force: boolean): Uint8Array<ArrayBuffer> {
  // Each saturated field moves to the ZIP64 extra field, in this order.
  const big = (n: number) => force || n >= MAX32;
  const wide = [w.size, w.compressedSize, w.offset].filter(big);
  const extra = wide.length > 0 ? zip64Extra(wide) : new Uint8Array(0);
  const out = new Uint8Array(CENTRAL_HEADER_SIZE + w.name.length + extra.length);
  const dv = view(out);
  dv.setUint32(0, SIG_CENTRAL, true);
  dv.setUint16(4, MADE_BY, true);
  dv.setUint16(6, wide.length > 0 ? 45 : 20, true);
  dv.setUint16(8, FLAG_UTF8, true);
  dv.setUint16(10, w.method, true);
  dv.setUint16(12, w.time, true);
  dv.setUint16(14, w.date, true);
  dv.setUint32(16, w.crc, true);
  dv.setUint32(20, big(w.compressedSize) ? MAX32 : w.compressedSize, true);
  dv.setUint32(24, big(w.size) ? MAX32 : w.size, true);
  dv.setUint16(28, w.name.length, true);
  dv.setUint16(30, extra.length, true);
  dv.setUint32(38, FILE_MODE >>> 0, true);
  dv.setUint32(42, big(w.offset) ? MAX32 : w.offset, true);
  out.set(w.name, CENTRAL_HEADER_SIZE);
  out.set(extra, CENTRAL_HEADER_SIZE + w.name.length);
  return out;
}

function endRecords(count: number, cdSize: number, cdOffset: number, force: boolean): Uint8Array<ArrayBuffer>[] {
  const zip64 = force || count >= MAX16 || cdSize >= MAX32 || cdOffset >= MAX32;
  const records: Uint8Array<ArrayBuffer>[] = [];
  if (zip64) {
    const record = new Uint8Array(ZIP64_EOCD_SIZE);
    const dv = view(record);
    dv.setUint32(0, SIG_ZIP64_EOCD, true);
    setU64(dv, 4, ZIP64_EOCD_SIZE - 12);
    dv.setUint16(12, MADE_BY, true);
    dv.setUint16(14, 45, true);
    setU64(dv, 24, count);
    setU64(dv, 32, count);
    setU64(dv, 40, cdSize);
    setU64(dv, 48, cdOffset);
    const locator = new Uint8Array(ZIP64_LOCATOR_SIZE);
    const lv = view(locator);
    lv.setUint32(0, SIG_ZIP64_LOCATOR, true);
    setU64(lv, 8, cdOffset + cdSize);
    lv.setUint32(16, 1, true);
    records.push(record, locator);
  }
  const end = new Uint8Array(EOCD_SIZE);
  const dv = view(end);
  dv.setUint32(0, SIG_EOCD, true);
  dv.setUint16(8, zip64 ? MAX16 : count, true);
  dv.setUint16(10, zip64 ? MAX16 : count, true);
  dv.setUint32(12, zip64 ? MAX32 : cdSize, true);
  dv.setUint32(16, zip64 ? MAX32 : cdOffset, true);
  records.push(end);
  return records;
}

function zip64Extra(values: number[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(4 + 8 * values.length);
  const dv = view(out);
  dv.setUint16(0, ZIP64_EXTRA, true);
  dv.setUint16(2, 8 * values.length, true);
  values.forEach((value, i) => setU64(dv, 4 + 8 * i, value));
  return out;
}

function setU64(dv: DataView, at: number, value: number): void {
  dv.setUint32(at, value % 2 ** 32, true);
  dv.setUint32(at + 4, Math.floor(value / 2 ** 32), true);
}
