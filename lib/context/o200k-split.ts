// o200k's pre-tokenizer: where gpt-tokenizer's split regex
// (O200K_TOKEN_SPLIT_REGEX) cuts a text into pieces, found without building
// that regex. Its Unicode property classes cost some 15 ms at a cold start (V8
// asks ICU for every letter and digit, then compiles it twice as it tiers up),
// more than counting a whole context with it. The same alternatives over ASCII
// classes compile in a fraction of a millisecond and run as fast. A text past
// ASCII is cut on a stand-in of it: each code point past ASCII replaced by an
// ASCII character of the same classes (a letter of the same case, a digit,
// white space, punctuation), which the regex cuts at the same places. A code
// point no ASCII character stands in for (a letter that is both cases to the
// regex, as CJK's are, a mark, anything past U+FFFF) sends its text to a scan
// that follows the regex's alternatives one code point at a time.
// test/unit/context/o200k-split.test.ts holds all three to the regex, piece
// for piece.
//
// The regex's alternatives, tried in order at each position (C is a
// contraction, 's 't 're 've 'm 'll 'd in either case):
//   1. [^\r\n\p{L}\p{N}]? [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]* [\p{Ll}\p{Lm}\p{Lo}\p{M}]+ C?
//   2. [^\r\n\p{L}\p{N}]? [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+ [\p{Ll}\p{Lm}\p{Lo}\p{M}]* C?
//   3. \p{N}{1,3}
//   4. " "? [^\s\p{L}\p{N}]+ [\r\n/]*
//   5. \s*[\r\n]+      6. \s+(?!\S)      7. \s+

const CONTRACTION = "(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?";
/** The split regex over ASCII: \p{L} is A-Z and a-z (Lu and Ll), \p{N} 0-9; nothing in ASCII is Lt, Lm, Lo or M. */
const ASCII_SPLIT = new RegExp(
  `[^\\r\\nA-Za-z0-9]?[A-Z]*[a-z]+${CONTRACTION}|[^\\r\\nA-Za-z0-9]?[A-Z]+[a-z]*${CONTRACTION}|[0-9]{1,3}| ?[^\\sA-Za-z0-9]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+`,
  "g",
);
const PAST_ASCII = /[\u0080-\uffff]/;
const PAST_ASCII_ALL = /[\u0080-\uffff]/g;

/** A code point's classes as bits: upper (the first run of 1 and 2), lower (their second run), letter, number, white space. */
const U = 1;
const W = 2;
const L = 4;
const N = 8;
const S = 16;

/** The ASCII character that stands in for each set of classes that one can: a letter of one case, a digit, white space that is not \r, \n or " ", punctuation. */
const STAND_IN: Record<number, string | undefined> = { [U | L]: "A", [W | L]: "a", [N]: "0", [S]: "\f", 0: "#" };

/** Code points past ASCII common in what the mind reads and writes, with their classes, so cutting them asks the regex engine nothing (the test checks each). */
export const KNOWN_CLASSES: ReadonlyMap<number, number> = new Map([
  ...[0x2026, 0x2192, 0x2190, 0x2014, 0x2013, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x00b7, 0x00d7, 0x00b0, 0x20ac, 0x00a9, 0x2713, 0x2717, 0x2264, 0x2265].map((cp): [number, number] => [cp, 0]),
  [0x00a0, S],
  [0x00e9, W | L],
  [0x00c9, U | L],
]);

/** One code point's classes, asked of the regex engine (Lu or Lt, Ll, Lm or Lo, M, N, \s: the groups in order). */
let classOf: RegExp | undefined;
const GROUP_BITS = [0, U | L, W | L, U | W | L, U | W, N, S];
const known = new Map<number, number>(KNOWN_CLASSES);

function classesOf(cp: number): number {
  let bits = known.get(cp);
  if (bits === undefined) {
    classOf ??= /^(?:([\p{Lu}\p{Lt}])|(\p{Ll})|([\p{Lm}\p{Lo}])|(\p{M})|(\p{N})|(\s))$/u;
    const m = classOf.exec(String.fromCodePoint(cp));
    bits = 0;
    if (m) for (let g = 1; g < GROUP_BITS.length; g++) if (m[g] !== undefined) bits = GROUP_BITS[g] ?? 0;
    known.set(cp, bits);
  }
  return bits;
}

/**
 * The pieces of `text`, in order, as the split regex cuts it. Cut by one
 * native match where it can be (ASCII, or a stand-in of the same length):
 * a call per piece was most of counting a cold context.
 */
export function o200kPieces(text: string): string[] {
  const cut = PAST_ASCII.test(text) ? standIn(text) : text;
  if (cut === undefined) {
    const pieces: string[] = [];
    for (let i = 0; i < text.length; ) {
      const end = pieceEnd(text, i);
      pieces.push(text.slice(i, end));
      i = end;
    }
    return pieces;
  }
  const pieces = cut.match(ASCII_SPLIT) ?? [];
  if (cut === text) return pieces;
  // The stand-in's pieces, as the text's own: a stand-in is one code unit for one.
  let at = 0;
  for (let k = 0; k < pieces.length; k++) {
    const len = pieces[k]?.length ?? 0;
    pieces[k] = text.slice(at, at + len);
    at += len;
  }
  return pieces;
}

/** `text` with each code point past ASCII replaced by its stand-in (one code unit for one), or undefined when one has none. */
function standIn(text: string): string | undefined {
  let whole = true;
  const cut = text.replace(PAST_ASCII_ALL, (ch: string, at: number) => {
    const c = ch.charCodeAt(0);
    // A surrogate pair is one code point in two code units: no one character stands in for it. A lone one is punctuation to the regex.
    const paired = (c >= 0xd800 && c <= 0xdbff && isLow(text.charCodeAt(at + 1))) || (isLow(c) && isHigh(text.charCodeAt(at - 1)));
    const s = paired ? undefined : c >= 0xd800 && c <= 0xdfff ? "#" : STAND_IN[classesOf(c)];
    if (s === undefined) whole = false;
    return s ?? ch;
  });
  return whole ? cut : undefined;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

const LF = 10;
const CR = 13;
const SPACE = 32;
const SLASH = 47;
const APOSTROPHE = 39;

/** The classes of the code point at i (0 past the end). */
function bitsAt(text: string, i: number): number {
  const c = text.codePointAt(i);
  if (c === undefined) return 0;
  if (c >= 128) return classesOf(c);
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) return c <= 90 ? U | L : W | L;
  if (c >= 48 && c <= 57) return N;
  return (c >= 9 && c <= 13) || c === SPACE ? S : 0;
}

/** The index after the code point at i; a lone surrogate is one of its own, as the regex's /u reads it. */
const after = (text: string, i: number) => ((text.codePointAt(i) ?? 0) > 0xffff ? i + 2 : i + 1);

/** Where a run of code points with any of `bits` that starts at i ends. */
function runOf(text: string, i: number, bits: number): number {
  while (i < text.length && bitsAt(text, i) & bits) i = after(text, i);
  return i;
}

/** After a contraction at i ('s 't 're 've 'm 'll 'd, either case), or i. */
function contraction(text: string, i: number): number {
  if (text.charCodeAt(i) !== APOSTROPHE) return i;
  const a = text.charCodeAt(i + 1) | 0x20;
  if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return i + 2; // s t m d
  const b = text.charCodeAt(i + 2) | 0x20;
  if ((a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) || (a === 0x72 && b === 0x65)) return i + 3; // ll ve re
  return i;
}

/** Alternative 1 from j (after its optional first code point): upper*, then lower+, then a contraction; -1 if it does not match. */
function upperThenLower(text: string, j: number): number {
  // The upper run, and the start of its last code point that is lower too (Lm, Lo, M): where lower+ begins when the run is not followed by a lower one.
  let k = j;
  let lastBoth = -1;
  while (k < text.length) {
    const bits = bitsAt(text, k);
    if (!(bits & U)) break;
    if (bits & W) lastBoth = k;
    k = after(text, k);
  }
  if (k < text.length && bitsAt(text, k) & W) return contraction(text, runOf(text, k, W));
  // Given back to lower+ (the regex backtracks), that last code point alone: the one after it is upper only, or not a letter.
  if (lastBoth >= 0) return contraction(text, after(text, lastBoth));
  return -1;
}

/** Alternative 2 from j: upper+, lower*, a contraction; -1 if it does not match. */
function upperRun(text: string, j: number): number {
  if (j >= text.length || !(bitsAt(text, j) & U)) return -1;
  return contraction(text, runOf(text, runOf(text, j, U), W));
}

/** The end of the piece that starts at i (i < text.length): where the regex's match at i ends, for any text. */
export function pieceEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  const bits = bitsAt(text, i);
  const next = after(text, i);
  // The optional first code point of 1 and 2: not a letter, a number, \r or \n.
  const lead = !(bits & (L | N)) && c !== CR && c !== LF;
  let end = lead ? upperThenLower(text, next) : -1;
  if (end < 0) end = upperThenLower(text, i);
  if (end < 0 && lead) end = upperRun(text, next);
  if (end < 0) end = upperRun(text, i);
  if (end >= 0) return end;
  if (bits & N) {
    end = next;
    for (let n = 1; n < 3 && end < text.length && bitsAt(text, end) & N; n++) end = after(text, end);
    return end;
  }
  // 4: a space, then what is not a letter, a number or white space, then \r \n and /.
  const from = c === SPACE && next < text.length && !(bitsAt(text, next) & (S | L | N)) ? next : !(bits & (S | L | N)) ? i : -1;
  if (from >= 0) {
    end = from;
    while (end < text.length && !(bitsAt(text, end) & (S | L | N))) end = after(text, end);
    while (end < text.length) {
      const d = text.charCodeAt(end);
      if (d !== CR && d !== LF && d !== SLASH) break;
      end++;
    }
    return end;
  }
  // 5–7: white space (every code point left here is). Up to its last \r or \n; else all of it at the end of the text,
  // else all but its last code point (which starts the next piece), or the one code point alone.
  end = runOf(text, i, S);
  for (let k = end - 1; k >= i; k--) {
    const d = text.charCodeAt(k);
    if (d === CR || d === LF) return k + 1;
  }
  if (end === text.length || end - i === 1) return end;
  // \s holds no code point past U+FFFF: each is one code unit.
  return end - 1;
}
