// lib/import/lines.ts: a trajectory.jsonl's bytes cut into lines, with a line
// limit. Whole outputs, whatever the chunking; the limit counted exactly.
import { describe, expect, it } from "vitest";
import { LineSplitter, linesOf, MAX_LINE_BYTES, overLongReason } from "@/lib/import/lines";

const enc = new TextEncoder();
const b = (text: string) => enc.encode(text);

/** Every line `text` gives when cut into chunks at `cuts` (byte offsets), and how many were over the limit. */
function split(text: string | Uint8Array, cuts: number[], max?: number) {
  const bytes = typeof text === "string" ? b(text) : text;
  const s = new LineSplitter(max);
  const lines: string[] = [];
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    lines.push(...s.push(bytes.subarray(from, at)));
    from = at;
  }
  lines.push(...s.end());
  return { lines, overLong: s.overLong };
}

describe("LineSplitter", () => {
  it("joins lines cut across chunks, drops \\r of \\r\\n (even when \\r and \\n arrive apart), and gives the last line without newline at the end", () => {
    const s = new LineSplitter();
    expect(s.push(b('{"a":1}\r\n{"b"'))).toEqual(['{"a":1}']);
    expect(s.push(b(":2}\r"))).toEqual([]);
    expect(s.push(b('\n{"c":'))).toEqual(['{"b":2}']);
    expect(s.push(b("3}"))).toEqual([]);
    expect(s.end()).toEqual(['{"c":3}']);
    expect(s.end()).toEqual([]);
  });

  it("passes over blank lines and white space at a line's start, and gives nothing at the end after a final newline", () => {
    const s = new LineSplitter();
    expect(s.push(b("a\n\r\n\n \t b \n  \r\n"))).toEqual(["a", "b "]);
    expect(s.push(b("   "))).toEqual([]);
    expect(s.end()).toEqual([]);
  });

  it("drops a \\r on a last line that has no newline", () => {
    const s = new LineSplitter();
    expect(s.push(b("x\r"))).toEqual([]);
    expect(s.end()).toEqual(["x"]);
  });

  it("gives the same lines wherever the bytes are cut into two or three chunks, inside characters too", () => {
    const bytes = b('one\r\ntwo 漢字\n\n  three "🙂"\r\nfour');
    const want = ["one", "two 漢字", 'three "🙂"', "four"];
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j++) expect(split(bytes, [i, j]).lines, `cut at ${i} and ${j}`).toEqual(want);
    }
  });

  it("drops a byte-order mark at the start of the text only", () => {
    expect(split("\uFEFFa\n\uFEFFb\n", [2]).lines).toEqual(["a", "\uFEFFb"]);
    expect(split("\uFEFFa", [1]).lines).toEqual(["a"]);
  });

  it("decodes invalid UTF-8 as replacement characters, as TextDecoder does", () => {
    expect(split(new Uint8Array([0x61, 0xff, 0x0a, 0xe6, 0xbc]), []).lines).toEqual(["a\uFFFD", "\uFFFD"]);
  });
});

describe("LineSplitter: the line limit", () => {
  const long = (n: number, c = "x") => c.repeat(n);

  it("keeps a line of exactly the limit and drops one byte more, counting it, wherever the chunks are cut", () => {
    const text = `${long(10)}\n${long(11, "y")}\nok\n${long(11, "z")}`;
    for (let i = 0; i <= text.length; i++) {
      for (const j of [i, i + 3, i + 12]) {
        const cuts = [i, Math.min(j, text.length)];
        expect(split(text, cuts, 10), `cut at ${cuts.join(", ")}`).toEqual({ lines: [long(10), "ok"], overLong: 2 });
      }
    }
  });

  it("counts the \\r of a \\r\\n ending toward the limit, and an over-long line's end is found however many chunks it spans", () => {
    expect(split(`${long(10)}\r\nok\n`, [], 10)).toEqual({ lines: ["ok"], overLong: 1 });
    const chunks = [long(6), long(6), long(6), `${long(3)}\nafter\n`];
    const s = new LineSplitter(10);
    expect(chunks.map((c) => s.push(b(c)))).toEqual([[], [], [], ["after"]]);
    expect([s.end(), s.overLong]).toEqual([[], 1]);
  });

  it("holds no more than the limit while it passes over a long line", async () => {
    // 64 MB of one line in 64 KiB chunks: what it holds never grows past the limit (a few chunks in flight at most).
    const chunk = new Uint8Array(64 * 1024).fill(0x78);
    const s = new LineSplitter(1024 * 1024);
    const held = () => (s as unknown as { pendingBytes: number }).pendingBytes;
    let most = 0;
    for (let i = 0; i < 1024; i++) {
      s.push(chunk);
      most = Math.max(most, held());
    }
    expect([most <= 1024 * 1024, s.push(b("\nnext\n")), s.overLong]).toEqual([true, ["next"], 1]);
  });

  it("counts a line from its first byte that is not white space: blank runs of any length are no line at all", () => {
    expect(split(`${" ".repeat(50)}${long(10)}\n${" \t\r\n".repeat(100)}ok\n`, [7, 60], 10)).toEqual({ lines: [long(10), "ok"], overLong: 0 });
  });

  it("defaults to 8 MiB, and says so in the reason it counts", () => {
    expect([MAX_LINE_BYTES, new LineSplitter().maxLineBytes, overLongReason(MAX_LINE_BYTES), overLongReason(64 * 1024), overLongReason(1536)]).toEqual([
      8 * 1024 * 1024,
      8 * 1024 * 1024,
      "line over 8 MiB",
      "line over 64 KiB",
      "line over 1.5 KiB",
    ]);
  });
});

describe("linesOf", () => {
  it("hands out a stream's lines a chunk at a time, the last line without newline included", async () => {
    const stream = new Blob(["a\nb", "c\n", "d"]).stream();
    const s = new LineSplitter();
    const got: string[][] = [];
    for await (const lines of linesOf(stream, s)) got.push(lines);
    expect(got.flat()).toEqual(["a", "bc", "d"]);
  });

  it("stops at an abort, with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    controller.abort(reason);
    const run = async () => {
      for await (const _ of linesOf(new Blob(["a\n"]).stream(), new LineSplitter(), controller.signal)) void _;
    };
    await expect(run()).rejects.toBe(reason);
  });
});
