// lib/archive/limits.ts through readArchive: how much an archive may inflate
// (in all, and per compressed byte read) and how many entries it may list.
// A bomb is refused within its first megabytes, with a message for a person;
// honest archives, however repetitive, are read whole under the defaults.
import { describe, expect, it } from "vitest";
import { ARCHIVE_LIMITS, ArchiveError, readArchive, writeZip } from "@/lib/archive";
import { byteSize, LimitMeter } from "@/lib/archive/limits";
import { tarBlob, tarGzBlob } from "../helpers/hostile";

const MiB = 1024 * 1024;
const enc = new TextEncoder();
/** 1 MiB of one repeated line: gzip makes about 1 KiB of it. */
const MEG = enc.encode(`${'{"type":"thought","content":"again"}\n'.repeat(Math.floor(MiB / 37))}`.padEnd(MiB, " "));

/** Reads every entry to its end; what was handed out, and how far into the file reading got. */
async function readThrough(blob: Blob, limits?: Parameters<typeof readArchive>[1]) {
  const got = { entries: 0, bytes: 0, fileRead: 0 };
  const opts = { ...limits, onProgress: (done: number) => void (got.fileRead = done) };
  try {
    for await (const entry of readArchive(blob, opts)) {
      got.entries++;
      const reader = entry.stream().getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) got.bytes += r.value.length;
    }
    return { ...got, error: null };
  } catch (e) {
    if (!(e instanceof ArchiveError)) throw e;
    return { ...got, error: e.message };
  }
}

describe("byteSize", () => {
  it("writes binary units, a decimal only where one is needed", () => {
    expect([0, 512, 1024, 1536, 64 * 1024, 8 * MiB, 3.7 * 1024 * MiB, 4 * 1024 * MiB].map(byteSize)).toEqual(["0 B", "512 B", "1 KiB", "1.5 KiB", "64 KiB", "8 MiB", "3.7 GiB", "4 GiB"]);
  });
});

describe("LimitMeter", () => {
  const limits = { maxInflatedBytes: 10_000, maxInflateRatio: 10, inflateSlackBytes: 100, maxEntries: 3 };

  it("allows exactly ratio × compressed + slack, and refuses one byte more", () => {
    const meter = new LimitMeter(limits, ".tar.gz");
    meter.fed(10);
    meter.gave(200);
    expect(() => meter.gave(1)).toThrow(new ArchiveError("This .tar.gz file inflates to 201 B from 10 B (20 times); it looks like a decompression bomb and was not read further."));
  });

  it("refuses past the total whatever the ratio, and past the entry count", () => {
    const meter = new LimitMeter({ ...limits, maxInflateRatio: 1e9 }, ".zip");
    meter.fed(100);
    meter.gave(10_000);
    expect(() => meter.gave(1)).toThrow(new ArchiveError("This .zip file inflates to more than 9.8 KiB, more than Reverie reads from one file; it was not read further."));
    for (let i = 0; i < 3; i++) meter.entry();
    expect(() => meter.entry()).toThrow(new ArchiveError("This .zip file holds more than 3 entries, more than Reverie reads from one file; it was not read further."));
  });

  it("defaults: 4 GiB in all, 200 times past 64 MiB, 100,000 entries", () => {
    expect(ARCHIVE_LIMITS).toEqual({ maxInflatedBytes: 4 * 1024 * MiB, maxInflateRatio: 200, inflateSlackBytes: 64 * MiB, maxEntries: 100_000 });
  });
});

describe("a .tar.gz bomb", () => {
  // A thousand times, as deflate at its best: 1 GiB from about 1 MiB.
  const bomb = (mebibytes = 48) => tarGzBlob([{ name: "t/trajectory.jsonl", runs: [{ bytes: MEG, times: mebibytes }] }]);

  it("is refused by the ratio within its first megabytes, the file barely read", async () => {
    const blob = bomb(1024);
    const got = await readThrough(blob, { limits: { maxInflateRatio: 100, inflateSlackBytes: MiB } });
    expect(got.error).toMatch(/^This \.tar\.gz file inflates to [\d.]+ MiB from [\d.]+ KiB \([\d,]+ times\); it looks like a decompression bomb and was not read further\.$/);
    expect([got.entries, got.bytes < 3 * MiB, got.fileRead < blob.size / 10]).toEqual([1, true, true]);
  });

  it("is refused by the total, whatever its ratio", async () => {
    const got = await readThrough(bomb(), { limits: { maxInflatedBytes: 5 * MiB } });
    expect([got.error, got.bytes <= 5 * MiB]).toEqual(["This .tar.gz file inflates to more than 5 MiB, more than Reverie reads from one file; it was not read further.", true]);
  });

  it("is read whole under the defaults: 48 MiB of one line is within the slack", async () => {
    expect(await readThrough(bomb())).toMatchObject({ entries: 1, bytes: 48 * MiB, error: null });
  });
});

describe("a .zip bomb", () => {
  const bomb = () => writeZip([{ path: "t/trajectory.jsonl", data: new Uint8Array(8 * MiB).fill(0x61) }]);

  it("is refused from what its directory says, before any entry is handed out", async () => {
    const ratio = await readThrough(await bomb(), { limits: { maxInflateRatio: 100, inflateSlackBytes: MiB } });
    expect(ratio).toMatchObject({ entries: 0, bytes: 0 });
    expect(ratio.error).toMatch(/^This \.zip file says it inflates to 8 MiB from [\d.]+ KiB \([\d,]+ times\); it looks like a decompression bomb and was not read further\.$/);
    const total = await readThrough(await bomb(), { limits: { maxInflatedBytes: 4 * MiB } });
    expect(total).toMatchObject({ entries: 0, error: "This .zip file says it inflates to more than 4 MiB, more than Reverie reads from one file; it was not read further." });
  });

  it("is read whole under the defaults", async () => {
    expect(await readThrough(await bomb())).toMatchObject({ entries: 1, bytes: 8 * MiB, error: null });
  });
});

describe("the entry count", () => {
  const files = Array.from({ length: 6 }, (_, i) => ({ name: `t/blobs/${i}`, runs: [{ bytes: enc.encode(`${i}\n`) }] }));

  it("stops a .tar or .tar.gz at the entry past the limit, the ones before it handed out", async () => {
    for (const [blob, label] of [[tarBlob(files), "tar"], [tarGzBlob(files), "tar.gz"]] as const) {
      expect(await readThrough(blob, { limits: { maxEntries: 4 } })).toMatchObject({
        entries: 4,
        error: `This .${label} file holds more than 4 entries, more than Reverie reads from one file; it was not read further.`,
      });
      expect(await readThrough(blob, { limits: { maxEntries: 6 } })).toMatchObject({ entries: 6, error: null });
    }
  });

  it("refuses a .zip from its directory, before any entry is handed out", async () => {
    const zip = await writeZip(files.map((f) => ({ path: f.name, data: f.runs[0]!.bytes })));
    expect(await readThrough(zip, { limits: { maxEntries: 5 } })).toMatchObject({ entries: 0, error: "This .zip file holds more than 5 entries, more than Reverie reads from one file; it was not read further." });
    expect(await readThrough(zip, { limits: { maxEntries: 6 } })).toMatchObject({ entries: 6, error: null });
  });

  it("refuses a .zip directory bigger than its entries could need, before reading it", async () => {
    const zip = await writeZip([{ path: `t/${"n".repeat(2500)}`, data: "x" }]);
    expect(await readThrough(zip, { limits: { maxEntries: 2 } })).toMatchObject({ entries: 0, error: "This .zip file's list of contents is 2.5 KiB, more than 2 entries need; it was not read further." });
  });
});
