// The zip records (PKWARE APPNOTE): end of central directory, its ZIP64
// variant, and central directory file headers. Pure decoding of bytes already
// read; zip-read decides what to read.

export const SIG_LOCAL = 0x04034b50;
export const SIG_CENTRAL = 0x02014b50;
export const SIG_EOCD = 0x06054b50;
export const SIG_ZIP64_EOCD = 0x06064b50;
export const SIG_ZIP64_LOCATOR = 0x07064b50;
export const EOCD_SIZE = 22;
export const ZIP64_EOCD_SIZE = 56;
export const ZIP64_LOCATOR_SIZE = 20;
export const LOCAL_HEADER_SIZE = 30;
export const CENTRAL_HEADER_SIZE = 46;
/** The EOCD's comment is at most 65535 bytes, so the record lies within this much of the end. */
export const EOCD_SEARCH = 0xffff + EOCD_SIZE;
export const MAX16 = 0xffff;
export const MAX32 = 0xffffffff;
export const FLAG_ENCRYPTED = 0x0001;
export const FLAG_UTF8 = 0x0800;
export const ZIP64_EXTRA = 0x0001;

export interface EndRecord {
  /** Where the EOCD record starts in the file. */
  at: number;
  disk: number;
  cdDisk: number;
  entries: number;
  cdSize: number;
  cdOffset: number;
}

export interface CentralRecord {
  name: string;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  /** A directory or symbolic link, which carries no file content. */
  special: boolean;
}

export const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** 64-bit little-endian as a number; zip sizes never reach 2^53 in practice. */
export function u64(dv: DataView, at: number): number {
  return dv.getUint32(at, true) + dv.getUint32(at + 4, true) * 2 ** 32;
}

/** Finds the last EOCD record in the file's tail whose comment length fits. */
export function findEnd(tail: Uint8Array, tailStart: number): EndRecord | null {
  const dv = view(tail);
  for (let i = tail.length - EOCD_SIZE; i >= 0; i--) {
    if (dv.getUint32(i, true) !== SIG_EOCD) continue;
    if (i + EOCD_SIZE + dv.getUint16(i + 20, true) > tail.length) continue;
    return {
      at: tailStart + i,
      disk: dv.getUint16(i + 4, true),
      cdDisk: dv.getUint16(i + 6, true),
      entries: dv.getUint16(i + 10, true),
      cdSize: dv.getUint32(i + 12, true),
      cdOffset: dv.getUint32(i + 16, true),
    };
  }
  return null;
}

/** Reads the ZIP64 locator (20 bytes just before the EOCD): where the ZIP64 EOCD is. */
export function zip64EndOffset(locator: Uint8Array): number | null {
  const dv = view(locator);
  if (locator.length < ZIP64_LOCATOR_SIZE || dv.getUint32(0, true) !== SIG_ZIP64_LOCATOR) return null;
  return u64(dv, 8);
}

export function applyZip64End(end: EndRecord, record: Uint8Array): EndRecord | null {
  const dv = view(record);
  if (record.length < ZIP64_EOCD_SIZE || dv.getUint32(0, true) !== SIG_ZIP64_EOCD) return null;
  return { ...end, disk: dv.getUint32(16, true), cdDisk: dv.getUint32(20, true), entries: u64(dv, 32), cdSize: u64(dv, 40), cdOffset: u64(dv, 48) };
}

/**
 * Parses central headers until the directory's bytes end (or a record of another
 * kind, such as a digital signature, begins); null when a header is cut short.
 */
export function parseCentral(cd: Uint8Array): CentralRecord[] | null {
  const dv = view(cd);
  const records: CentralRecord[] = [];
  let at = 0;
  while (at + 4 <= cd.length && dv.getUint32(at, true) === SIG_CENTRAL) {
    if (at + CENTRAL_HEADER_SIZE > cd.length) return null;
    const madeBy = dv.getUint16(at + 4, true) >> 8;
    const flags = dv.getUint16(at + 8, true);
    const nameLength = dv.getUint16(at + 28, true);
    const extraLength = dv.getUint16(at + 30, true);
    const commentLength = dv.getUint16(at + 32, true);
    const external = dv.getUint32(at + 38, true);
    const end = at + CENTRAL_HEADER_SIZE + nameLength + extraLength + commentLength;
    if (end > cd.length) return null;
    const nameBytes = cd.subarray(at + CENTRAL_HEADER_SIZE, at + CENTRAL_HEADER_SIZE + nameLength);
    const extra = cd.subarray(at + CENTRAL_HEADER_SIZE + nameLength, at + CENTRAL_HEADER_SIZE + nameLength + extraLength);
    const sizes = zip64Sizes(extra, {
      size: dv.getUint32(at + 24, true),
      compressedSize: dv.getUint32(at + 20, true),
      localOffset: dv.getUint32(at + 42, true),
    });
    const unixType = madeBy === 3 ? (external >>> 16) & 0o170000 : 0;
    const name = decodeName(nameBytes, flags);
    records.push({
      name,
      flags,
      method: dv.getUint16(at + 10, true),
      crc: dv.getUint32(at + 16, true),
      ...sizes,
      // Only folders and symbolic links matter in a zip; other Unix types (zip reading a pipe
      // records a character device) still hold file data and unzip extracts them as files.
      special: name.endsWith("/") || (external & 0x10) !== 0 || unixType === 0o040000 || unixType === 0o120000,
    });
    at = end;
  }
  return records;
}

/** Replaces saturated 32-bit fields with the ZIP64 extra field's values, which come in this order. */
function zip64Sizes(extra: Uint8Array, fields: { size: number; compressedSize: number; localOffset: number }) {
  const dv = view(extra);
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = dv.getUint16(at, true);
    const length = dv.getUint16(at + 2, true);
    if (id === ZIP64_EXTRA) {
      let p = at + 4;
      const end = Math.min(at + 4 + length, extra.length);
      for (const key of ["size", "compressedSize", "localOffset"] as const) {
        if (fields[key] !== MAX32 || p + 8 > end) continue;
        fields[key] = u64(dv, p);
        p += 8;
      }
      break;
    }
    at += 4 + length;
  }
  return fields;
}

// Names without the UTF-8 flag are IBM code page 437 by the spec, but many tools
// (macOS, 7-Zip on Linux) write UTF-8 and leave the flag unset: try UTF-8 first.
const CP437_HIGH =
  "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0";
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function decodeName(bytes: Uint8Array, flags: number): string {
  if (flags & FLAG_UTF8) return new TextDecoder("utf-8").decode(bytes);
  try {
    return strictUtf8.decode(bytes);
  } catch {
    let name = "";
    for (const b of bytes) name += b < 0x80 ? String.fromCharCode(b) : CP437_HIGH[b - 0x80];
    return name;
  }
}

const METHOD_NAMES: Record<number, string> = { 1: "Shrink", 6: "Implode", 9: "Deflate64", 12: "BZIP2", 14: "LZMA", 93: "Zstandard", 95: "XZ", 98: "PPMd", 99: "AES encryption" };

export function methodName(method: number): string {
  return METHOD_NAMES[method] ? `${METHOD_NAMES[method]} (method ${method})` : `method ${method}`;
}

/** MS-DOS date and time, local time, two-second resolution, years 1980 to 2107 only. */
export function dosDateTime(when: Date): { time: number; date: number } {
  const year = when.getFullYear();
  if (year < 1980) return { time: 0, date: (1 << 5) | 1 };
  if (year > 2107) return { time: (23 << 11) | (59 << 5) | 29, date: (127 << 9) | (12 << 5) | 31 };
  return {
    time: (when.getHours() << 11) | (when.getMinutes() << 5) | (when.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((when.getMonth() + 1) << 5) | when.getDate(),
  };
}
