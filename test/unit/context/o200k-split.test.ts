// lib/context/o200k-split.ts cuts text where gpt-tokenizer's split regex does,
// without building that regex: over ASCII classes, on a stand-in for text past
// ASCII, or by its scan of code points. All three are held here to the regex
// itself, piece for piece, on seeded random text: ASCII heavy with every
// class and special character the regex names, code points from all planes,
// lone surrogates, marks, letters that are both cases to the regex.
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import { describe, expect, it } from "vitest";
import { KNOWN_CLASSES, o200kPieces, pieceEnd } from "@/lib/context/o200k-split";

const regexPieces = (t: string) => [...t.matchAll(O200K_TOKEN_SPLIT_REGEX)].map((m) => [m.index, m.index + m[0].length]);
function cutPieces(t: string) {
  const out: number[][] = [];
  let at = 0;
  for (const piece of o200kPieces(t)) out.push([at, (at += piece.length)]);
  return out;
}
function scanPieces(t: string) {
  const out: number[][] = [];
  for (let i = 0; i < t.length; ) {
    const end = pieceEnd(t, i);
    out.push([i, end]);
    i = end;
  }
  return out;
}

/** A seeded generator, so a failure can be run again. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

/** What the regex treats apart: cases, digits, white space (\r \n and the rest), / and ', contraction letters, and past ASCII one of each class. */
const ALPHABET = [
  ..."aZbYcz09 7  \t\n\r\n\v\f.,;:!?'\"/\\-_()[]{}#sStTdDmMlLvVeErR",
  "'s", "'ll", "'Re", "'VE", "É", "é", "ǅ", "ʰ", "あ", "日", "\u0301", "\u0308", "٣", "Ⅻ", "²", "¼",
  "\u00a0", "\u2028", "\u3000", "\ufeff", "\u200b", "\u1680", "\u0085", "\u001f", "\u007f",
  "…", "→", "—", "“", "😀", "𝐀", "\ud800", "\udc00", "ß", "İ", "ﬁ", "Ω", "ж", "Ж",
];

function texts(seed: number, count: number): string[] {
  const r = rng(seed);
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    let t = "";
    const len = 1 + Math.floor(r() * 16);
    for (let k = 0; k < len; k++) {
      if (n % 2) t += ALPHABET[Math.floor(r() * ALPHABET.length)];
      else {
        const p = r();
        const cp = p < 0.6 ? Math.floor(r() * 128) : p < 0.75 ? Math.floor(r() * 0x3000) : p < 0.9 ? Math.floor(r() * 0x10000) : Math.floor(r() * 0x110000);
        t += cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp);
      }
    }
    out.push(t);
  }
  return out;
}

describe("o200k's pieces without its regex", () => {
  const corpus = texts(36, 40_000);

  it("o200kPieces cuts where the regex does (ASCII, stand-ins, or the scan)", () => {
    const wrong = corpus.filter((t) => JSON.stringify(cutPieces(t)) !== JSON.stringify(regexPieces(t)));
    expect(wrong.map((t) => [t, regexPieces(t), cutPieces(t)]).slice(0, 5)).toEqual([]);
  });

  it("the scan alone cuts where the regex does, whatever the code points", () => {
    const wrong = corpus.filter((t) => JSON.stringify(scanPieces(t)) !== JSON.stringify(regexPieces(t)));
    expect(wrong.map((t) => [t, regexPieces(t), scanPieces(t)]).slice(0, 5)).toEqual([]);
  });

  it("longer text: prose, code, logs, and a summary note, as the context holds them", () => {
    const long = [
      "[My summary of 1000 steps, 8c31b014…2f89ea35 (tier 2); it cites 8c31b014, dd0a1b2c.]\nI kept the tide-table parser going → fixed.",
      "```bash\ngrep -rn \"tide\" . | head -400\n```\n\n[stdout]\nsrc/parse.js:12: const rows = [];\r\n  2022-03-12,parser,17,90.0\n",
      "It's done; they're here, we'll see — I'd've said “no”. HTTPServer XMLHttpRequest iPhone's McDonald's  \n\n\n  ",
      "Съешь же ещё этих мягких французских булок. 日本語のテキスト。 café naïve",
    ];
    for (const t of long) {
      expect(cutPieces(t)).toEqual(regexPieces(t));
      expect(scanPieces(t)).toEqual(regexPieces(t));
    }
  });

  it("the classes written out for common code points are the regex engine's", () => {
    const classes = (cp: number) => {
      const ch = String.fromCodePoint(cp);
      return (/[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]/u.test(ch) ? 1 : 0) | (/[\p{Ll}\p{Lm}\p{Lo}\p{M}]/u.test(ch) ? 2 : 0) | (/\p{L}/u.test(ch) ? 4 : 0) | (/\p{N}/u.test(ch) ? 8 : 0) | (/\s/u.test(ch) ? 16 : 0);
    };
    for (const [cp, bits] of KNOWN_CLASSES) expect([cp.toString(16), bits]).toEqual([cp.toString(16), classes(cp)]);
  });
});
