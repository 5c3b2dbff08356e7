// o200k's pre-tokenizer, the split regex gpt-tokenizer counts with
// (O200K_TOKEN_SPLIT_REGEX), as a scan over code points. The regex has
// Unicode property classes: building it costs some 15 ms at a cold start (V8
// asks ICU for every letter and digit, then compiles it twice as it tiers
// up), more than counting a whole context with it. This scan asks the same
// classes of one code point at a time, and only of code points past ASCII,
// whose classes it keeps. It cuts text where the regex does, piece for piece:
// test/unit/context/o200k-split.test.ts holds the two to the same pieces.
//
// The regex's alternatives, tried in order at each position (C is a
// contraction, 's 't 're 've 'm 'll 'd in either case):
//   1. [^\r\n\p{L}\p{N}]? [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]* [\p{Ll}\p{Lm}\p{Lo}\p{M}]+ C?
//   2. [^\r\n\p{L}\p{N}]? [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+ [\p{Ll}\p{Lm}\p{Lo}\p{M}]* C?
//   3. \p{N}{1,3}
//   4. " "? [^\s\p{L}\p{N}]+ [\r\n/]*
//   5. \s*[\r\n]+      6. \s+(?!\S)      7. \s+

/** A code point's classes as bits: upper (U, the class of 2's first run), lower (W), letter, number, space (\s). */
const U = 1;
const W = 2;
const L = 4;
const N = 8;
const S = 16;

const LF = 10;
const CR = 13;
const SPACE = 32;
const SLASH = 47;
const APOSTROPHE = 39;

/** ASCII's classes, written out: A-Z upper letters, a-z lower, 0-9 numbers, \t \n \v \f \r and space. */
const ASCII = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 65 && c <= 90) ASCII[c] = U | L;
  else if (c >= 97 && c <= 122) ASCII[c] = W | L;
  else if (c >= 48 && c <= 57) ASCII[c] = N;
  else if ((c >= 9 && c <= 13) || c === SPACE) ASCII[c] = S;
}

/** One code point's classes, asked of the regex engine (Lu/Lt, Ll, Lm/Lo, M, N, \s: the groups in order). */
let classOf: RegExp | undefined;
const GROUP_BITS = [0, U | L, W | L, U | W | L, U | W, N, S];
const known = new Map<number, number>();

function nonAscii(cp: number): number {
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

/** The classes of the code point at i (0 past the end). */
function bitsAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 128) return ASCII[c] ?? 0;
  if (Number.isNaN(c)) return 0;
  return nonAscii(codePointAt(text, i));
}

/** The code point at i; a lone surrogate is one of its own (as the regex's /u reads it). */
function codePointAt(text: string, i: number): number {
  return text.codePointAt(i) ?? 0;
}

/** The index after the code point at i. */
const after = (text: string, i: number) => (codePointAt(text, i) > 0xffff ? i + 2 : i + 1);

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
  // Given back to lower+, the last code point that can be one: it alone, as the one after it is upper only (or not a letter).
  if (lastBoth >= 0) return contraction(text, after(text, lastBoth));
  return -1;
}

/** Alternative 2 from j: upper+, lower*, a contraction; -1 if it does not match. */
function upperRun(text: string, j: number): number {
  if (j >= text.length || !(bitsAt(text, j) & U)) return -1;
  return contraction(text, runOf(text, runOf(text, j, U), W));
}

/** The end of the piece that starts at i (i < text.length): where the regex's match at i ends. */
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
  // 4: a space, then anything that is not a letter, a number or white space, then \r \n and /.
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
