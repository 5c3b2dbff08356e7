// The command line counts tokens from a flat table (lib/context/bpe-table.ts)
// instead of gpt-tokenizer's Map; the counts must be the library's, to the
// token, or `reverie context` would cut the context where the mind does not.
// Both are run on this repository's own sources, many scripts, and text made
// to break a tokenizer (lone surrogates, long runs, special tokens' text).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ranks from "gpt-tokenizer/bpeRanks/o200k_base";
import { beforeAll, describe, expect, it } from "vitest";
import { buildBpeTable, readBpeTable, TableCounter } from "../../../lib/context/bpe-table";
import { countO200k } from "../../../lib/context/count-o200k";
import { TokenCounter } from "../../../lib/context/tokens";

let built: Uint8Array;
let table: TableCounter;
beforeAll(() => {
  built = buildBpeTable(ranks);
  table = new TableCounter(readBpeTable(built));
});

/** A seeded generator, so a failure can be run again. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

const SCRIPTS = [
  "The quick brown fox jumps over the lazy dog. It's, they're, we'll, I'd've.",
  "Съешь же ещё этих мягких французских булок, да выпей чаю.",
  "日本語のテキストと漢字、カタカナ。中文也一样：你好，世界！",
  "한국어 문장입니다. العربية: مرحبا بالعالم. עברית: שלום עולם.",
  "हिन्दी में एक वाक्य। ภาษาไทยไม่มีช่องว่าง ελληνικά κείμενα",
  "emoji 👩‍👩‍👧‍👦 🏳️‍🌈 👍🏽 ❤️ 🇩🇪 and combining é é ñ ñ",
  "```ts\nconst x: Record<string, number[]> = { a: [1, 2, 3] };\n```\n\tindented\r\n  CRLF line\r\n",
  "$ ls -la /tmp && echo \"$HOME\" | grep -E '^/root' >/dev/null 2>&1; exit 0",
  "123456789012345678901234567890 3.14159 1e-9 0x7fffffff 1,234,567.89",
  "<|endoftext|> <|endofprompt|><|fim_prefix|> text around <|im_start|>user",
  "   many    spaces   \n\n\n\n blank lines \u00a0 nbsp \u2003 em space \u200b zwsp",
  "MixedCASEWordsLikeThisAndTHAT iPhone's McDonald's XMLHttpRequest",
  // U+FEFF, which the library reads differently from tiktoken (lib/context/bpe-table.ts says how)
  "\ufeff \ufeff\ufeff a\ufeffb \ufeffusing \ufeff\n\n \ufeff// \ufeff# \ufeffnamespace \ufeff출장안마",
];

function made(seed: number, count: number): string[] {
  const r = rng(seed);
  const out: string[] = [];
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)] as T;
  for (let i = 0; i < count; i++) {
    const kind = i % 6;
    let s = "";
    if (kind === 0) {
      // random code points from all planes, lone surrogates included
      for (let j = 0, n = 1 + Math.floor(r() * 40); j < n; j++) {
        const cp = r() < 0.6 ? 32 + Math.floor(r() * 95) : r() < 0.5 ? Math.floor(r() * 0x3000) : Math.floor(r() * 0x110000);
        s += cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp);
      }
    } else if (kind === 1) {
      // bytes decoded loosely: broken UTF-8 becomes U+FFFD
      const bytes = Uint8Array.from({ length: 1 + Math.floor(r() * 60) }, () => Math.floor(r() * 256));
      s = new TextDecoder().decode(bytes);
    } else if (kind === 2) {
      // long runs: one piece the merge has to work through
      s = pick(["a", "ab", "1", " ", "\n", "é", "日", "xyz", "=", "🙂", "\ufeff"]).repeat(1 + Math.floor(r() * 400));
    } else if (kind === 3) {
      s = Array.from({ length: 1 + Math.floor(r() * 6) }, () => pick(SCRIPTS)).join(pick([" ", "\n", "", "\t"]));
    } else if (kind === 4) {
      // a script's words shuffled with punctuation
      const words = pick(SCRIPTS).split(/\s+/);
      s = Array.from({ length: 1 + Math.floor(r() * 20) }, () => pick(words) + pick(["", "", ",", ".", "'s", "'LL", "\n", "  ", "-"])).join(" ");
    } else {
      s = String.fromCharCode(0xd800 + Math.floor(r() * 0x800)) + pick(SCRIPTS).slice(Math.floor(r() * 10)) + String.fromCharCode(0xdc00 + Math.floor(r() * 0x400));
    }
    out.push(s);
  }
  return out;
}

function sources(dir: string, into: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const at = join(dir, name);
    if (statSync(at).isDirectory()) sources(at, into);
    else if (/\.(ts|tsx|md)$/.test(name)) into.push(readFileSync(at, "utf8"));
  }
  return into;
}

describe("the command line's token table", () => {
  it("counts every script and made-up text as gpt-tokenizer does", () => {
    const texts = [...SCRIPTS, "", ...made(20261203, 3000)];
    const differ = texts.filter((t) => table.count(t) !== countO200k(t)).map((t) => ({ text: t.slice(0, 80), table: table.count(t), library: countO200k(t) }));
    expect(differ).toEqual([]);
  });

  it("counts this repository's sources as gpt-tokenizer does, whole files and line by line", () => {
    const files = [...sources("lib"), ...sources("cli"), readFileSync("README.md", "utf8")];
    expect(files.length).toBeGreaterThan(100);
    const texts = [...files, ...files.flatMap((f) => f.split("\n"))];
    const differ = texts.filter((t) => table.count(t) !== countO200k(t)).map((t) => t.slice(0, 80));
    expect(differ).toEqual([]);
    // Not a tautology: the counts are real, and differ from a character count.
    const whole = files.join("\n");
    expect(table.count(whole)).toBe(countO200k(whole));
    expect(table.count(whole)).toBeLessThan(whole.length / 2);
  });

  it("agrees with the library on every token's own text (one token each, but for the nine that begin with a BOM)", () => {
    const decoder = new TextDecoder();
    const tokens = ranks.filter((v): v is string => typeof v === "string");
    expect(tokens.length).toBeGreaterThan(190_000);
    const notOne = tokens.filter((t) => table.count(t) !== countO200k(t));
    expect(notOne).toEqual([]);
    // The tokens that are not valid UTF-8 are held too (a lossy decode of them is text like any other).
    const binary = ranks.filter((v): v is number[] => Array.isArray(v)).map((b) => decoder.decode(Uint8Array.from(b)));
    expect(binary.filter((t) => table.count(t) !== countO200k(t))).toEqual([]);
  });

  it("reads a table from an unaligned buffer, and refuses one that is not a table or is cut short", () => {
    const unaligned = new Uint8Array(built.length + 1).subarray(1);
    unaligned.set(built);
    expect(new TableCounter(readBpeTable(unaligned)).count("hello, world")).toBe(countO200k("hello, world"));
    expect(() => readBpeTable(new Uint8Array(64))).toThrow("not a token table of this version");
    expect(() => readBpeTable(built.slice(0, built.length - 100))).toThrow("the token table is cut short");
    expect(() => readBpeTable(new Uint8Array(8))).toThrow("the token table is cut short");
  });

  it("refuses ranks where two tokens have the same bytes", () => {
    expect(() => buildBpeTable(["a", "b", "a"])).toThrow("rank 2 has the same bytes as an earlier one");
  });
});

describe("special tokens' text", () => {
  it("is counted as text, not refused (the library throws on it by default)", () => {
    const counter = new TokenCounter();
    const text = "a message that says <|endoftext|> and <|im_start|>";
    expect(counter.count(text)).toBe(table.count(text));
    expect(counter.count("<|endoftext|>")).toBeGreaterThan(1);
  });
});
