// o200k's ranks as one flat table that loads in a millisecond, for counting
// where a cold start matters (the command line). gpt-tokenizer builds a Map of
// its 200,000 token strings on load: about 250 ms of a start (reading and
// parsing 2 MB, then the Map), before the first count. Here the same ranks are
// a hash table over the tokens' UTF-8 bytes, made once from gpt-tokenizer's own
// ranks (buildBpeTable, when the CLI is bundled) and read as typed arrays.
//
// Counting follows gpt-tokenizer's countNative for text with no special
// tokens: the same pieces (o200k-split.ts cuts where its split regex does), a
// whole piece that is a token counts one, any other piece is merged pair by
// pair exactly as its bytePairMerge does (lowest rank first, leftmost on a
// tie). test/unit/context/bpe-table.test.ts compares the two on a corpus of
// text, code, scripts and broken surrogates.
//
// Including where the library is not tiktoken: it looks up a valid UTF-8 byte
// sequence by its decoded string, and TextDecoder drops a leading U+FEFF (BOM).
// So the nine o200k tokens that begin with one are never found, and a merge
// candidate that begins with one is looked up without it. The mind counts
// with the library; the command line must cut where the mind cuts.
//
// Typed arrays are read with `?? 0` where an index cannot be past the end:
// the optimizing compiler drops the check, and no cast claims what it cannot see.
import { o200kPieces } from "./o200k-split";

export interface BpeTable {
  /** Token r's bytes are bytes[starts[r]] up to bytes[starts[r + 1]]; a rank with no token has none. */
  starts: Uint32Array;
  bytes: Uint8Array;
  /** Open addressing by FNV-1a of a token's bytes: rank + 1, 0 for an empty slot. */
  slots: Int32Array;
  mask: number;
}

/** "o2bt" read as a little-endian word: a file that is not a table says so. */
const MAGIC = 0x74623275;
const VERSION = 1;
const HEADER_WORDS = 5;

function fnv1a(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ (b[i] ?? 0), 0x01000193);
  return h >>> 0;
}

/** The rank of bytes[from, to) as one token, or -1. */
function rankOf(t: BpeTable, b: Uint8Array, from: number, to: number): number {
  const len = to - from;
  for (let i = fnv1a(b, from, to) & t.mask; ; i = (i + 1) & t.mask) {
    // A slot holds rank + 1; 0 is empty (every slot index is within the table: i is masked).
    const r = (t.slots[i] ?? 0) - 1;
    if (r < 0) return -1;
    const s = t.starts[r] ?? 0;
    if ((t.starts[r + 1] ?? 0) - s !== len) continue;
    let j = 0;
    while (j < len && t.bytes[s + j] === b[from + j]) j++;
    if (j === len) return r;
  }
}

/**
 * The table of a rank list as gpt-tokenizer holds it (index = rank; a string,
 * or the bytes of a token that is not valid UTF-8; holes for unused ranks),
 * serialized: a header, then starts, slots and bytes, each 4-byte aligned.
 */
export function buildBpeTable(ranks: readonly (string | readonly number[] | undefined)[]): Uint8Array {
  const encoder = new TextEncoder();
  const tokens = Array.from(ranks, (v) => (v === undefined ? new Uint8Array(0) : typeof v === "string" ? encoder.encode(v) : Uint8Array.from(v)));
  const n = tokens.length;
  const bytesLen = tokens.reduce((a, t) => a + t.length, 0);
  let bits = 1;
  while (1 << bits < n * 2) bits++; // a load under one half: short probes
  const size = 1 << bits;
  const out = new Uint8Array(4 * (HEADER_WORDS + n + 1 + size) + Math.ceil(bytesLen / 4) * 4);
  const head = new Uint32Array(out.buffer, 0, HEADER_WORDS);
  head.set([MAGIC, VERSION, n, bits, bytesLen]);
  const table = viewTable(out);
  let at = 0;
  tokens.forEach((t, r) => {
    table.starts[r] = at;
    table.bytes.set(t, at);
    at += t.length;
  });
  table.starts[n] = at;
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  tokens.forEach((t, r) => {
    // A token the library holds as bytes though they are valid UTF-8 (those with a leading BOM) it never finds: nor do we.
    if (!t.length || (typeof ranks[r] !== "string" && validUtf8(strict, t))) return;
    if (rankOf(table, t, 0, t.length) !== -1) throw new Error(`rank ${r} has the same bytes as an earlier one`);
    let i = fnv1a(t, 0, t.length) & table.mask;
    while (table.slots[i] !== 0) i = (i + 1) & table.mask;
    table.slots[i] = r + 1;
  });
  return out;
}

function viewTable(buf: Uint8Array): BpeTable {
  if (buf.byteLength < 4 * HEADER_WORDS) throw new Error("the token table is cut short");
  const words = new Uint32Array(buf.buffer, buf.byteOffset, HEADER_WORDS);
  const [magic, version, n = 0, bits = 0, bytesLen = 0] = Array.from(words);
  if (magic !== MAGIC || version !== VERSION) throw new Error("not a token table of this version");
  const size = 2 ** bits;
  const startsAt = buf.byteOffset + 4 * HEADER_WORDS;
  const slotsAt = startsAt + 4 * (n + 1);
  const bytesAt = slotsAt + 4 * size;
  if (bytesAt - buf.byteOffset + bytesLen > buf.byteLength) throw new Error("the token table is cut short");
  return {
    starts: new Uint32Array(buf.buffer, startsAt, n + 1),
    slots: new Int32Array(buf.buffer, slotsAt, size),
    bytes: new Uint8Array(buf.buffer, bytesAt, bytesLen),
    mask: size - 1,
  };
}

/** A table as buildBpeTable wrote it (copied first when its bytes are not 4-byte aligned, as a pooled Buffer may be). */
export function readBpeTable(buf: Uint8Array): BpeTable {
  return viewTable(buf.byteOffset % 4 === 0 ? buf : buf.slice());
}

function validUtf8(strict: TextDecoder, b: Uint8Array): boolean {
  try {
    strict.decode(b);
    return true;
  } catch {
    return false;
  }
}

const BOM = [0xef, 0xbb, 0xbf];

/** A merge candidate's rank as the library finds it: valid UTF-8 by its decoded string, which has lost a leading BOM. */
function pairRank(t: BpeTable, strict: TextDecoder, b: Uint8Array, from: number, to: number): number {
  const bom = to - from >= 3 && b[from] === BOM[0] && b[from + 1] === BOM[1] && b[from + 2] === BOM[2];
  if (bom && validUtf8(strict, b.subarray(from, to))) return to - from === 3 ? -1 : rankOf(t, b, from + 3, to);
  return rankOf(t, b, from, to);
}

/** How many tokens a piece that is not one token merges into: gpt-tokenizer's bytePairMerge, counting. */
function mergeCount(t: BpeTable, strict: TextDecoder, piece: Uint8Array, len: number): number {
  // The parts left, as a list over the piece's bytes: part k starts at starts[k]; ranks[k] is the rank of part k
  // merged with the next one (Infinity: they do not merge). Removing a part shifts the ones after it, as the library does.
  const starts = new Int32Array(len + 1);
  const ranks = new Float64Array(len + 1);
  let parts = len + 1;
  const rank = (k: number) => {
    if (k + 2 >= parts) return Infinity;
    const r = pairRank(t, strict, piece, starts[k] ?? 0, starts[k + 2] ?? 0);
    return r === -1 ? Infinity : r;
  };
  for (let i = 0; i <= len; i++) starts[i] = i;
  for (let i = 0; i <= len; i++) ranks[i] = i < len - 1 ? rank(i) : Infinity;
  while (parts > 1) {
    let lowest = Infinity;
    let at = -1;
    for (let i = 0; i < parts - 1; i++) {
      const r = ranks[i] ?? Infinity;
      if (r < lowest) {
        lowest = r;
        at = i;
      }
    }
    if (at === -1) break;
    starts.copyWithin(at + 1, at + 2, parts);
    ranks.copyWithin(at, at + 1, parts);
    parts--;
    ranks[at] = rank(at);
    if (at > 0) ranks[at - 1] = rank(at - 1);
  }
  return parts - 1;
}

/** Pieces remembered: text repeats its words, and a Map hit on a string is cheaper than its bytes' hash. */
const PIECES = 50_000;

export class TableCounter {
  private scratch = new Uint8Array(1024);
  private readonly encoder = new TextEncoder();
  private readonly strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  private readonly pieces = new Map<string, number>();

  constructor(private readonly table: BpeTable) {}

  /** o200k tokens in `text`, special tokens' text counted as the text it is. */
  count(text: string): number {
    let n = 0;
    const pieces = o200kPieces(text);
    for (let k = 0; k < pieces.length; k++) {
      const piece = pieces[k] ?? "";
      // Every ASCII character is a token of its own.
      if (piece.length === 1 && piece.charCodeAt(0) < 128) n++;
      else n += this.pieces.get(piece) ?? this.countPiece(piece);
    }
    return n;
  }

  private countPiece(piece: string): number {
    if (this.scratch.length < piece.length * 3) this.scratch = new Uint8Array(piece.length * 3);
    const { written } = this.encoder.encodeInto(piece, this.scratch);
    const n = rankOf(this.table, this.scratch, 0, written) !== -1 ? 1 : mergeCount(this.table, this.strict, this.scratch, written);
    if (this.pieces.size >= PIECES) this.pieces.clear();
    this.pieces.set(piece, n);
    return n;
  }
}
