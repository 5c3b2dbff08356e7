// The 512-byte tar header (POSIX ustar, with the GNU and pax extensions that
// real archives use), decoded for the reader and encoded for the writer.

export const BLOCK = 512;

export interface TarHeader {
  /** ustar `prefix + "/" + name`, exactly as stored (may still be replaced by a long name). */
  name: string;
  size: number;
  /** The typeflag character; "\0" is an old-style regular file. */
  type: string;
}

const utf8 = new TextDecoder("utf-8");
const encoder = new TextEncoder();

export function isZeroBlock(block: Uint8Array): boolean {
  for (let i = 0; i < block.length; i++) if (block[i] !== 0) return false;
  return true;
}

export function paddingAfter(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

/** The header, or null when its checksum does not match (not a header, or damaged). */
export function decodeTarHeader(block: Uint8Array): TarHeader | null {
  const stored = readNumber(block, 148, 8);
  if (stored === null || !checksumMatches(block, stored)) return null;
  const size = readNumber(block, 124, 12);
  if (size === null) return null;
  const name = readString(block, 0, 100);
  // Only POSIX ustar ("ustar\0") has a prefix field; GNU's "ustar  " keeps other data there.
  const posix = readString(block, 257, 6) === "ustar";
  const prefix = posix ? readString(block, 345, 155) : "";
  return { name: prefix ? `${prefix}/${name}` : name, size, type: String.fromCharCode(block[156]!) };
}

/** Parses pax extended-header records: "<length> <key>=<value>\n", repeated. */
export function parsePax(data: Uint8Array): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const length = Number(utf8.decode(data.subarray(at, space)));
    if (!Number.isInteger(length) || length <= space - at || at + length > data.length) break;
    const record = utf8.decode(data.subarray(space + 1, at + length - 1));
    const eq = record.indexOf("=");
    if (eq > 0) records.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return records;
}

export function encodePax(records: [string, string][]): Uint8Array<ArrayBuffer> {
  let text = "";
  for (const [key, value] of records) {
    const body = ` ${key}=${value}\n`;
    const bodyLength = encoder.encode(body).length;
    // The length counts its own digits, so grow it until it is consistent.
    let length = bodyLength + 1;
    while (String(length).length + bodyLength !== length) length = String(length).length + bodyLength;
    text += `${length}${body}`;
  }
  return encoder.encode(text);
}

export interface HeaderFields {
  /** Raw bytes of the name field (≤ 100) and prefix field (≤ 155). */
  name: Uint8Array;
  prefix?: Uint8Array;
  size: number;
  mtime: Date;
  type: "0" | "x";
}

export function encodeTarHeader(fields: HeaderFields): Uint8Array<ArrayBuffer> {
  const block = new Uint8Array(BLOCK);
  block.set(fields.name.subarray(0, 100), 0);
  writeOctal(block, 100, 8, 0o644);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, fields.size);
  writeOctal(block, 136, 12, Math.max(0, Math.floor(fields.mtime.getTime() / 1000)));
  block[156] = fields.type.charCodeAt(0);
  block.set(encoder.encode("ustar\u000000"), 257);
  if (fields.prefix) block.set(fields.prefix.subarray(0, 155), 345);
  // The checksum is computed with its own field read as eight spaces.
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += block[i]!;
  writeOctal(block, 148, 7, sum);
  block[155] = 0x20;
  return block;
}

/** Largest size an 11-digit octal field holds (8 GiB - 1); bigger sizes go in a pax record. */
export const MAX_OCTAL_SIZE = 0o77777777777;

function readString(block: Uint8Array, at: number, length: number): string {
  const field = block.subarray(at, at + length);
  const end = field.indexOf(0);
  return utf8.decode(end < 0 ? field : field.subarray(0, end));
}

/** Octal digits, or GNU base-256 (high bit set) for values that do not fit. */
function readNumber(block: Uint8Array, at: number, length: number): number | null {
  const field = block.subarray(at, at + length);
  if (field[0]! & 0x80) {
    let value = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i]!;
    return Number.isSafeInteger(value) ? value : null;
  }
  const text = String.fromCharCode(...field).replace(/[\0 ]+$/g, "").replace(/^[\0 ]+/, "");
  if (text === "") return 0;
  return /^[0-7]+$/.test(text) ? parseInt(text, 8) : null;
}

function checksumMatches(block: Uint8Array, stored: number): boolean {
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const byte = i >= 148 && i < 156 ? 0x20 : block[i]!;
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  // Some old tars summed signed bytes; both are accepted, as GNU tar does.
  return stored === unsigned || stored === signed;
}

/** `length - 1` zero-padded octal digits then NUL. */
function writeOctal(block: Uint8Array, at: number, length: number, value: number): void {
  const digits = value.toString(8).padStart(length - 1, "0");
  for (let i = 0; i < length - 1; i++) block[at + i] = digits.charCodeAt(i);
  block[at + length - 1] = 0;
}
