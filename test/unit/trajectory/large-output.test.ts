// lib/trajectory/large-output.ts: outputs over 4096 bytes keep 4096 bytes
// inline, cut on a character boundary, and the whole text in a blob.
import { describe, expect, it } from "vitest";
import { blobFields, cutUtf8, INLINE_OUTPUT_BYTES, splitOutput } from "@/lib/trajectory/large-output";

const bytes = (s: string) => new TextEncoder().encode(s).length;
/** Decoding with fatal: true throws on a broken sequence; a lone surrogate would re-encode as U+FFFD. */
const strictRoundTrip = (s: string) => new TextDecoder("utf-8", { fatal: true }).decode(new TextEncoder().encode(s));

describe("splitOutput", () => {
  it("keeps 4096 as the limit", () => {
    expect(INLINE_OUTPUT_BYTES).toBe(4096);
  });

  it("keeps text under the limit whole, with no blob", () => {
    const text = "a".repeat(4095);
    expect(splitOutput(text, "n")).toEqual({ inline: text });
  });

  it("keeps text of exactly 4096 bytes whole, with no blob", () => {
    const text = "x".repeat(4096);
    expect(splitOutput(text, "n")).toEqual({ inline: text });
  });

  it("counts bytes, not characters: 4096 bytes of multibyte text stay whole", () => {
    const text = "é".repeat(2048); // 2 bytes each
    expect(bytes(text)).toBe(4096);
    expect(splitOutput(text, "n")).toEqual({ inline: text });
  });

  it("cuts text of 4097 bytes to 4096 and keeps the whole in the blob", () => {
    const text = `${"x".repeat(4096)}y`;
    expect(splitOutput(text, "out-1.txt")).toEqual({
      inline: "x".repeat(4096),
      blob: { name: "out-1.txt", text, bytes: 4097 },
    });
  });

  it("cuts 2049 two-byte characters (under 4096 chars, over 4096 bytes)", () => {
    const text = "é".repeat(2049);
    expect(text.length).toBe(2049);
    expect(splitOutput(text, "b")).toEqual({ inline: "é".repeat(2048), blob: { name: "b", text, bytes: 4098 } });
  });

  for (const [name, char, width] of [
    ["a 2-byte", "é", 2],
    ["a 3-byte", "語", 3],
    ["a 4-byte", "🧠", 4],
  ] as const) {
    it(`does not split ${name} character straddling byte 4096`, () => {
      // The character starts at byte 4095, so its bytes run past 4096.
      const text = `${"a".repeat(4095)}${char}tail`;
      expect(bytes(text)).toBe(4095 + width + 4);
      const out = splitOutput(text, "blob");
      expect(out).toEqual({ inline: "a".repeat(4095), blob: { name: "blob", text, bytes: 4095 + width + 4 } });
      expect(bytes(out.inline)).toBeLessThanOrEqual(4096);
      expect(text.startsWith(out.inline)).toBe(true);
      expect(strictRoundTrip(out.inline)).toBe(out.inline);
      expect(out.inline).not.toContain("\uFFFD");
    });
  }

  it("keeps a character that ends exactly at byte 4096", () => {
    const text = `${"a".repeat(4092)}🧠b`; // 🧠 is bytes 4092..4095
    const out = splitOutput(text, "n");
    expect(out.inline).toBe(`${"a".repeat(4092)}🧠`);
    expect(bytes(out.inline)).toBe(4096);
  });

  it("cuts all-emoji text on a boundary at every offset", () => {
    for (let pad = 0; pad < 4; pad++) {
      const text = "a".repeat(pad) + "🧠".repeat(1100);
      const out = splitOutput(text, "n");
      const expectedEmoji = Math.floor((4096 - pad) / 4);
      expect(out.inline).toBe("a".repeat(pad) + "🧠".repeat(expectedEmoji));
      expect(out.blob?.bytes).toBe(pad + 4400);
    }
  });
});

describe("cutUtf8", () => {
  it("returns the text itself when it fits", () => {
    expect(cutUtf8("héllo", 6)).toBe("héllo");
    expect(cutUtf8("", 0)).toBe("");
  });

  it("steps back over a split character", () => {
    expect(cutUtf8("héllo", 2)).toBe("h");
    expect(cutUtf8("héllo", 3)).toBe("hé");
    expect(cutUtf8("🧠🧠", 7)).toBe("🧠");
    expect(cutUtf8("🧠", 3)).toBe("");
  });
});

describe("blobFields", () => {
  it("names the ref, the size and truncated for stdout", () => {
    const out = splitOutput("z".repeat(5000), "3f2a9c1e-stdout.txt");
    expect(blobFields("stdout", out)).toEqual({
      stdout_ref: "blobs/3f2a9c1e-stdout.txt",
      stdout_bytes: 5000,
      stdout_truncated: true,
    });
  });

  it("uses the stderr names for stderr", () => {
    const out = splitOutput("語".repeat(2000), "e");
    expect(blobFields("stderr", out)).toEqual({ stderr_ref: "blobs/e", stderr_bytes: 6000, stderr_truncated: true });
  });

  it("adds nothing for text that was not cut", () => {
    expect(blobFields("stdout", splitOutput("short", "n"))).toEqual({});
    expect(blobFields("stderr", splitOutput("y".repeat(4096), "n"))).toEqual({});
  });
});
