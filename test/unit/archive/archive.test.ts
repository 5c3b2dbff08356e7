// lib/archive: the archives Reverie imports and exports. Round trips through
// our own writers, archives made by other tools (GNU tar, fflate, Python's
// zipfile reading ours), damaged files, abort and progress.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { zipSync } from "fflate";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ArchiveError, type ArchiveEntry, detectFormat, type OutEntry, readArchive, writeTarGz, writeZip } from "@/lib/archive";
import { makeEntry } from "@/lib/archive/entry";
import { BLOCK, encodeTarHeader } from "@/lib/archive/tar-header";
import { buildZip } from "@/lib/archive/zip-write";
import { errorOf } from "../helpers/errors";
import { readChunks } from "../helpers/trees";

// Real subprocesses (tar, python3) and megabytes of data: generous on a loaded 2-core machine.
vi.setConfig({ testTimeout: 30_000 });

const enc = new TextEncoder();
const bytesOf = (data: string | Uint8Array) => (typeof data === "string" ? enc.encode(data) : data);
const sha = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** Deterministic incompressible bytes, so the zip writer stores rather than deflates them. */
function noise(length: number, seed = 1): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/**
 * ~3 MB of text drawn at random from 1- to 4-byte characters: dense enough in
 * multibyte characters that chunk boundaries fall inside them, and varied
 * enough that it compresses into many chunks rather than one.
 */
function bigText(): string {
  const alphabet = [..."abc xyz{}\"\n漢字かな交じり語ÜïöéСлово🙂🚀🧠"];
  const random = noise(1_500_000, 11);
  let text = "";
  for (let i = 0; i < random.length; i++) text += alphabet[random[i]! % alphabet.length];
  return text;
}

const BIG = bigText();
const LONG_SPLIT = `a1b2c3d4-main/e5f6a7b8-child/${"deeply-nested-folder/".repeat(5)}notes.txt`; // > 100 bytes, fits prefix + name
const LONG_NAME = `a1b2c3d4-main/blobs/${"x".repeat(180)}.stdout`; // one name over 100 bytes: needs pax or a GNU long name
const UNICODE = "a1b2c3d4-main/blobs/日本語-🙂.stdout";

const FILES: OutEntry[] = [
  { path: "a1b2c3d4-main/trajectory.jsonl", data: '{"type":"trajectory","step_id":"a1b2c3d4-0000-4000-8000-000000000000","name":"main 🙂"}\n{"type":"thought","content":"考える"}\n' },
  { path: "a1b2c3d4-main/blobs/x.stdout", data: BIG },
  { path: "a1b2c3d4-main/e5f6a7b8-child/trajectory.jsonl", data: '{"type":"trajectory","step_id":"e5f6a7b8-0000-4000-8000-000000000000","parent_traj_ref":".."}\n' },
  { path: LONG_SPLIT, data: "split at a slash\n" },
  { path: LONG_NAME, data: "long name\n" },
  { path: UNICODE, data: "ユニコード 🙂\n" },
  { path: "a1b2c3d4-main/blobs/noise.bin", data: noise(100_000) },
  { path: "a1b2c3d4-main/blobs/empty.txt", data: "" },
];

const expected = (files: OutEntry[]) => files.map((f) => ({ path: f.path, size: bytesOf(f.data).length, sha: sha(bytesOf(f.data)) }));


async function readAll(blob: Blob, opts?: Parameters<typeof readArchive>[1]) {
  const out: { path: string; size: number | undefined; sha: string }[] = [];
  for await (const entry of readArchive(blob, opts)) {
    const { bytes } = await readChunks(entry.stream());
    out.push({ path: entry.path, size: entry.size, sha: sha(bytes) });
  }
  return out;
}

/** Runs `use` on one entry while the archive is open (leaving the loop closes it). */
async function withEntry<T>(blob: Blob, path: string, read: (entry: ArchiveEntry) => Promise<T>, opts?: Parameters<typeof readArchive>[1]): Promise<T> {
  for await (const entry of readArchive(blob, opts)) if (entry.path === path) return await read(entry);
  throw new Error(`no ${path}`);
}


const tarGzBlob = async (files: Iterable<OutEntry> | AsyncIterable<OutEntry> = FILES) => new Blob([(await readChunks(writeTarGz(files))).bytes]);
/** The standard archives, written once: most tests only read them, and Blobs do not change. */
const shared: { tarGz?: Promise<Blob>; zip?: Promise<Blob> } = {};
const sharedTarGz = () => (shared.tarGz ??= tarGzBlob());
const sharedZip = () => (shared.zip ??= writeZip(FILES));
const gunzip = async (blob: Blob) => (await readChunks(blob.stream().pipeThrough(new DecompressionStream("gzip")))).bytes;

const temp = mkdtempSync(join(tmpdir(), "reverie-archive-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
let tempCount = 0;
const tempDir = () => {
  const dir = join(temp, String(tempCount++));
  mkdirSync(dir);
  return dir;
};

/** Writes the files as a folder tree, as a user's trajectory folder would be on disk. */
function writeTree(root: string, files: OutEntry[]): void {
  for (const f of files) {
    mkdirSync(join(root, dirname(f.path)), { recursive: true });
    writeFileSync(join(root, f.path), bytesOf(f.data));
  }
}

/** A character is split when a chunk boundary lands on a UTF-8 continuation byte. */
function splitsACharacter(bytes: Uint8Array, chunks: number[]): boolean {
  let at = 0;
  for (const length of chunks.slice(0, -1)) {
    at += length;
    if ((bytes[at]! & 0xc0) === 0x80) return true;
  }
  return false;
}

describe("detectFormat", () => {
  it("trusts magic bytes over the file name", async () => {
    const zip = new Uint8Array(await (await writeZip(FILES.slice(0, 1))).arrayBuffer()).subarray(0, 512);
    const tarGz = new Uint8Array(await (await tarGzBlob(FILES.slice(0, 1))).arrayBuffer()).subarray(0, 512);
    const tar = (await gunzip(await tarGzBlob(FILES.slice(0, 1)))).subarray(0, 512);
    const emptyZip = new Uint8Array(await (await writeZip([])).arrayBuffer());
    expect({
      zip: detectFormat("export.jsonl", zip),
      emptyZip: detectFormat("", emptyZip),
      tarGz: detectFormat("download", tarGz),
      tar: detectFormat("archive.zip", tar),
    }).toEqual({ zip: "zip", emptyZip: "zip", tarGz: "tar.gz", tar: "tar" });
    expect(Array.from(emptyZip.subarray(0, 4))).toEqual([0x50, 0x4b, 5, 6]);
  });

  it("falls back to the extension, then to 'is it text'", () => {
    const binary = new Uint8Array([0, 1, 2, 3, 0xff, 0xfe]);
    const jsonl = enc.encode('{"type":"trajectory","step_id":"x"}\n{"type":"thought"}\n');
    expect({
      zip: detectFormat("Export.ZIP", binary),
      tgz: detectFormat("a.tgz", binary),
      tarGz: detectFormat("a.tar.gz", binary),
      tar: detectFormat("a.tar", binary),
      jsonl: detectFormat("t.jsonl", binary),
      ndjson: detectFormat("t.ndjson", binary),
      json: detectFormat("t.json", binary),
      plainText: detectFormat("trajectory", jsonl),
      cutMidCharacter: detectFormat("", enc.encode("🙂🙂").subarray(0, 6)),
      binary: detectFormat("photo.png", binary),
      empty: detectFormat("", new Uint8Array(0)),
    }).toEqual({
      zip: "zip",
      tgz: "tar.gz",
      tarGz: "tar.gz",
      tar: "tar",
      jsonl: "jsonl",
      ndjson: "jsonl",
      json: "jsonl",
      plainText: "jsonl",
      cutMidCharacter: "jsonl",
      binary: null,
      empty: null,
    });
  });
});

describe("tar.gz", () => {
  it("round-trips nested folders, long and non-ASCII paths, a 3 MB entry and an empty one, byte for byte", async () => {
    const blob = await tarGzBlob();
    expect(await readAll(blob, { name: "export.tar.gz" })).toEqual(expected(FILES));
  });

  it("accepts any iterable of entries, sync or async", async () => {
    async function* gen() {
      yield* FILES.slice(0, 3);
    }
    expect(await readAll(await tarGzBlob(gen()))).toEqual(expected(FILES.slice(0, 3)));
  });

  it("writes what GNU tar extracts to the same files", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "out.tar.gz"), (await readChunks(writeTarGz(FILES))).bytes);
    mkdirSync(join(dir, "x"));
    execFileSync("tar", ["-xzf", join(dir, "out.tar.gz"), "-C", join(dir, "x")]);
    const listed = execFileSync("tar", ["-tzf", join(dir, "out.tar.gz")], { encoding: "utf8" }).trim().split("\n");
    expect(listed).toEqual(FILES.map((f) => f.path));
    for (const f of FILES) expect(sha(readFileSync(join(dir, "x", f.path)))).toBe(sha(bytesOf(f.data)));
  });

  it("decodes multibyte text split across stream chunks", async () => {
    const blob = await sharedTarGz();
    const { bytes, chunks } = await withEntry(blob, "a1b2c3d4-main/blobs/x.stdout", (e) => readChunks(e.stream()));
    expect(splitsACharacter(bytes, chunks)).toBe(true);
    expect(await withEntry(blob, "a1b2c3d4-main/blobs/x.stdout", (e) => e.text())).toBe(BIG);
  });

  it("skips entries the caller does not read, and refuses a stream once reading moved on", async () => {
    const paths: string[] = [];
    let stale: ArchiveEntry | undefined;
    for await (const entry of readArchive(await sharedTarGz())) {
      paths.push(entry.path);
      if (entry.path === "a1b2c3d4-main/blobs/x.stdout") stale = entry;
      if (entry.path === "a1b2c3d4-main/trajectory.jsonl") await entry.skip();
    }
    expect(paths).toEqual(FILES.map((f) => f.path));
    expect(() => stale!.stream()).toThrow('The archive entry "a1b2c3d4-main/blobs/x.stdout" was already read or skipped.');
  });

  it("errors an entry's stream once the loop over the archive has ended", async () => {
    let kept: ArchiveEntry | undefined;
    for await (const entry of readArchive(await sharedTarGz())) {
      kept = entry;
      break;
    }
    const error = await errorOf(readChunks(kept!.stream()));
    expect((error as Error).message).toBe("The archive was closed, so its entries can no longer be read.");
  });

  it("errors a half-read stream when reading moves on to the next entry", async () => {
    const it = readArchive(await sharedTarGz())[Symbol.asyncIterator]();
    await it.next();
    const big = (await it.next()).value as ArchiveEntry;
    const reader = big.stream().getReader();
    await reader.read();
    expect((await it.next()).value.path).toBe("a1b2c3d4-main/e5f6a7b8-child/trajectory.jsonl");
    expect(((await errorOf(reader.read())) as Error).message).toBe('The archive entry "a1b2c3d4-main/blobs/x.stdout" can no longer be read: reading moved on to the next entry.');
    await it.return(undefined);
  });
});

describe("archives made by GNU tar", () => {
  // Each format stores long names its own way: GNU 'L' records, pax 'x' records, ustar's prefix field.
  const cases = [
    { format: "gnu", args: ["-czf"], file: "t.tar.gz", files: FILES },
    { format: "pax", args: ["-czf"], file: "t.tar.gz", files: FILES },
    { format: "ustar", args: ["-cf"], file: "t.tar", files: FILES.filter((f) => f.path !== LONG_NAME && f.path !== UNICODE) },
  ];

  it.each(cases)("reads $format format, skipping folders and links", async ({ format, args, file, files }) => {
    const dir = tempDir();
    writeTree(join(dir, "src"), files);
    mkdirSync(join(dir, "src", "a1b2c3d4-main", "empty-folder"));
    symlinkSync("trajectory.jsonl", join(dir, "src", "a1b2c3d4-main", "link.jsonl"));
    execFileSync("tar", [`--format=${format}`, "--sort=name", ...args, join(dir, file), "-C", join(dir, "src"), "a1b2c3d4-main"]);
    const blob = new Blob([readFileSync(join(dir, file))]);
    const sorted = [...expected(files)].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
    expect(await readAll(blob, { name: file })).toEqual(sorted);
  });

  it("reads a tar whose entries start with ./", async () => {
    const dir = tempDir();
    writeTree(join(dir, "src"), FILES.slice(0, 3));
    execFileSync("tar", ["--sort=name", "-czf", join(dir, "t.tgz"), "-C", join(dir, "src"), "."]);
    const paths = (await readAll(new Blob([readFileSync(join(dir, "t.tgz"))]))).map((e) => e.path);
    expect(paths).toEqual(["a1b2c3d4-main/blobs/x.stdout", "a1b2c3d4-main/e5f6a7b8-child/trajectory.jsonl", "a1b2c3d4-main/trajectory.jsonl"]);
  });
});

describe("zip", () => {
  it("round-trips nested folders, long and non-ASCII paths, a 3 MB entry and an empty one, byte for byte", async () => {
    expect(await readAll(await writeZip(FILES))).toEqual(expected(FILES));
  });

  it("decodes multibyte text split across stream chunks", async () => {
    // Inflate happens to stop between characters here, so the split is shown on a stored entry.
    const stored = new Blob([zipSync({ "x.stdout": [enc.encode(BIG), { level: 0 }] })]);
    const { bytes, chunks } = await withEntry(stored, "x.stdout", (e) => readChunks(e.stream()));
    expect(splitsACharacter(bytes, chunks)).toBe(true);
    expect(await withEntry(stored, "x.stdout", (e) => e.text())).toBe(BIG);
    expect(await withEntry(await sharedZip(), "a1b2c3d4-main/blobs/x.stdout", (e) => e.text())).toBe(BIG);
  });

  it("writes what Python's zipfile reads: UTF-8 names, CRCs, deflate or stored, local timestamps", async () => {
    const dir = tempDir();
    const mtime = new Date(2026, 10, 30, 17, 44, 36);
    writeFileSync(join(dir, "out.zip"), new Uint8Array(await (await writeZip(FILES.map((f) => ({ ...f, mtime })))).arrayBuffer()));
    const script =
      "import zipfile,sys,json,hashlib\n" +
      "z=zipfile.ZipFile(sys.argv[1])\n" +
      "assert z.testzip() is None\n" +
      "print(json.dumps([[i.filename,i.file_size,i.compress_type,list(i.date_time),hashlib.sha256(z.read(i)).hexdigest()] for i in z.infolist()]))";
    // Deflated where that saves space; stored for noise, the empty file and lines too short to shrink.
    const methods = [8, 8, 8, 0, 0, 0, 0, 0];
    const listed = JSON.parse(execFileSync("python3", ["-c", script, join(dir, "out.zip")], { encoding: "utf8" }));
    expect(listed).toEqual(
      FILES.map((f, i) => {
        const data = bytesOf(f.data);
        return [f.path, data.length, methods[i], [2026, 11, 30, 17, 44, 36], sha(data)];
      }),
    );
  });

  it("reads zips made by fflate, with stored entries and folder entries", async () => {
    const zip = zipSync({
      "a1b2c3d4-main": {
        "trajectory.jsonl": enc.encode("deflated 🙂\n"),
        "empty-folder": {},
        blobs: { "x.stdout": [enc.encode("stored ✓\n".repeat(50)), { level: 0 }] },
      },
    });
    expect(await readAll(new Blob([zip]))).toEqual([
      { path: "a1b2c3d4-main/trajectory.jsonl", size: 14, sha: sha(enc.encode("deflated 🙂\n")) },
      { path: "a1b2c3d4-main/blobs/x.stdout", size: 550, sha: sha(enc.encode("stored ✓\n".repeat(50))) },
    ]);
  });

  it("reads ZIP64 sizes, offsets and directory records", async () => {
    const blob = await buildZip(FILES, { forceZip64: true });
    const bytes = new Uint8Array(await blob.arrayBuffer());
    // The 32-bit fields really are saturated: the EOCD says "look in ZIP64".
    expect(Array.from(bytes.subarray(bytes.length - 6, bytes.length - 2))).toEqual([0xff, 0xff, 0xff, 0xff]);
    expect(await readAll(blob)).toEqual(expected(FILES));
  });

  it("finds the ZIP64 directory even when the plain EOCD is not saturated, as zip writes when reading a pipe", async () => {
    const bytes = new Uint8Array(await (await buildZip(FILES.slice(0, 3), { forceZip64: true })).arrayBuffer());
    const dv = new DataView(bytes.buffer);
    const eocd = bytes.length - 22;
    const zip64 = eocd - 20 - 56;
    expect([dv.getUint32(eocd, true), dv.getUint32(zip64, true)]).toEqual([0x06054b50, 0x06064b50]);
    dv.setUint16(eocd + 8, 3, true);
    dv.setUint16(eocd + 10, 3, true);
    dv.setUint32(eocd + 12, Number(dv.getBigUint64(zip64 + 40, true)), true);
    dv.setUint32(eocd + 16, Number(dv.getBigUint64(zip64 + 48, true)), true);
    expect(await readAll(new Blob([bytes]))).toEqual(expected(FILES.slice(0, 3)));
  });

  it("reads a zip with data prepended (a self-extractor stub)", async () => {
    const blob = new Blob([noise(1000, 7), await writeZip(FILES.slice(0, 3))]);
    expect(await readAll(blob, { name: "x.zip" })).toEqual(expected(FILES.slice(0, 3)));
  });

  it("reads an empty zip", async () => {
    expect(await readAll(await writeZip([]))).toEqual([]);
  });
});

describe("jsonl", () => {
  it("is one entry, trajectory.jsonl, streamed from the file", async () => {
    const blob = new Blob([BIG]);
    const entries: { path: string; size?: number; text: string }[] = [];
    for await (const entry of readArchive(blob, { name: "run.jsonl" })) entries.push({ path: entry.path, size: entry.size, text: await entry.text() });
    expect(entries).toEqual([{ path: "trajectory.jsonl", size: blob.size, text: BIG }]);
    const { bytes, chunks } = await withEntry(blob, "trajectory.jsonl", (e) => readChunks(e.stream()), { name: "run.jsonl" });
    expect(splitsACharacter(bytes, chunks)).toBe(true);
  });

  it("takes the name from a File", async () => {
    const file = new File(['{"type":"trajectory","step_id":"x"}\n'], "t.ndjson");
    expect(await readAll(file)).toEqual([{ path: "trajectory.jsonl", size: file.size, sha: sha(enc.encode('{"type":"trajectory","step_id":"x"}\n')) }]);
  });
});

describe("damaged or foreign files", () => {
  const message = async (blob: Blob, name?: string) => {
    const error = await errorOf(readAll(blob, { name }));
    expect(error).toBeInstanceOf(ArchiveError);
    return (error as Error).message;
  };

  it("a truncated .tar.gz", async () => {
    const whole = new Uint8Array(await (await sharedTarGz()).arrayBuffer());
    expect(await message(new Blob([whole.subarray(0, whole.length >> 1)]), "x.tar.gz")).toBe("This .tar.gz file is damaged: the compressed data is cut short or corrupt.");
    // Cut just before the gzip trailer: every tar block arrives, only the length and CRC are missing.
    expect(await message(new Blob([whole.subarray(0, whole.length - 8)]), "x.tar.gz")).toBe("This .tar.gz file is damaged: the compressed data is cut short or corrupt.");
  });

  it("a truncated .tar", async () => {
    const tar = await gunzip(await sharedTarGz());
    expect(await message(new Blob([tar.subarray(0, 3000)]), "x.tar")).toBe('This .tar file is damaged: it ends in the middle of "a1b2c3d4-main/blobs/x.stdout".');
  });

  it("a tar header with a bad checksum", async () => {
    const tar = await gunzip(await tarGzBlob(FILES.slice(0, 2)));
    tar[BLOCK * 2]! ^= 0x01; // the second header: after the first entry's one-block body
    expect(await message(new Blob([tar]))).toBe('This .tar file is damaged: a header after "a1b2c3d4-main/trajectory.jsonl" fails its checksum.');
  });

  it("a gzip that holds no tar", async () => {
    const gz = (await readChunks(new Blob(["just some text, gzipped\n"]).stream().pipeThrough(new CompressionStream("gzip")))).bytes;
    expect(await message(new Blob([gz]), "notes.txt.gz")).toBe("This .tar.gz file is not a tar archive, or is damaged at its start.");
  });

  it("random bytes named .zip", async () => {
    expect(await message(new Blob([noise(5000, 3)]), "export.zip")).toBe("This .zip file is damaged: no central directory found.");
  });

  it("a file that is no archive at all", async () => {
    expect(await message(new Blob([noise(5000, 3)]), "photo.png")).toBe("This file is not something Reverie can import: expected a .zip, .tar.gz, .tar or .jsonl file.");
  });

  /** A one-entry zip whose local and central headers are patched by `patch(view, headerOffset)`. */
  const patchedZip = async (patch: (dv: DataView, local: number, central: number) => void) => {
    const bytes = new Uint8Array(await (await writeZip([{ path: "a/b.jsonl", data: "x".repeat(100) }])).arrayBuffer());
    const dv = new DataView(bytes.buffer);
    const central = bytes.length - 22 - (46 + "a/b.jsonl".length);
    expect(dv.getUint32(central, true)).toBe(0x02014b50);
    patch(dv, 0, central);
    return new Blob([bytes]);
  };

  it("a zip entry compressed with a method Reverie cannot read", async () => {
    const blob = await patchedZip((dv, local, central) => {
      dv.setUint16(local + 8, 12, true);
      dv.setUint16(central + 10, 12, true);
    });
    expect(await message(blob)).toBe('This .zip file stores "a/b.jsonl" with BZIP2 (method 12) compression, which Reverie cannot read; re-create the archive with standard (Deflate) compression.');
  });

  it("an encrypted zip entry", async () => {
    const blob = await patchedZip((dv, local, central) => {
      dv.setUint16(local + 6, 0x0801, true);
      dv.setUint16(central + 8, 0x0801, true);
    });
    expect(await message(blob)).toBe('This .zip file has a password-protected entry "a/b.jsonl", which Reverie cannot read.');
  });

  it("a zip entry whose bytes changed", async () => {
    const bytes = new Uint8Array(await (await writeZip([{ path: "r.bin", data: noise(1000) }])).arrayBuffer());
    bytes[30 + "r.bin".length + 500]! ^= 0xff; // inside the stored data
    expect(await message(new Blob([bytes]))).toBe('This .zip file is damaged: "r.bin" does not match its checksum.');
  });

  it("a zip whose deflate data is corrupt", async () => {
    const bytes = new Uint8Array(await (await writeZip([{ path: "t.txt", data: "hello ".repeat(1000) }])).arrayBuffer());
    bytes.fill(0xff, 30 + "t.txt".length, 30 + "t.txt".length + 8);
    expect(await message(new Blob([bytes]))).toMatch(/^This \.zip file is damaged: "t\.txt" (could not be decompressed|does not match its checksum)\.$/);
  });

  it("a path that climbs out of the archive", async () => {
    const data = enc.encode("evil\n");
    const header = encodeTarHeader({ name: enc.encode("a/../../evil.txt"), size: data.length, mtime: new Date(0), type: "0" });
    const tar = new Blob([header, data, new Uint8Array(BLOCK - data.length), new Uint8Array(BLOCK * 2)]);
    expect(await message(tar)).toBe('This .tar file contains an unsafe path "a/../../evil.txt" that points outside the archive.');
  });
});

describe("abort", () => {
  const abortMidEntry = async (blob: Blob, name: string) => {
    const controller = new AbortController();
    const it = readArchive(blob, { name, signal: controller.signal })[Symbol.asyncIterator]();
    let entry = (await it.next()).value as ArchiveEntry;
    while (entry.path !== "a1b2c3d4-main/blobs/x.stdout" && entry.path !== "trajectory.jsonl") entry = (await it.next()).value as ArchiveEntry;
    const reader = entry.stream().getReader();
    expect((await reader.read()).done).toBe(false);
    controller.abort();
    const duringRead = await errorOf(reader.read());
    const nextEntry = await errorOf(it.next());
    return { duringRead: (duringRead as Error).name, nextEntry: (nextEntry as Error).name, isDomException: duringRead instanceof DOMException };
  };
  const aborted = { duringRead: "AbortError", nextEntry: "AbortError", isDomException: true };

  it("stops a .tar.gz mid-entry", async () => {
    expect(await abortMidEntry(await sharedTarGz(), "x.tar.gz")).toEqual(aborted);
  });

  it("stops a .zip mid-entry", async () => {
    expect(await abortMidEntry(await sharedZip(), "x.zip")).toEqual(aborted);
  });

  it("stops a .jsonl mid-read", async () => {
    expect(await abortMidEntry(new Blob([BIG]), "x.jsonl")).toEqual(aborted);
  });

  it("throws the signal's own reason, and does not start when already aborted", async () => {
    const controller = new AbortController();
    const reason = new DOMException("user left", "AbortError");
    controller.abort(reason);
    expect(await errorOf(readAll(await sharedTarGz(), { signal: controller.signal }))).toBe(reason);
  });
});

describe("progress", () => {
  const track = async (blob: Blob, name: string, read: "all" | "none") => {
    const calls: [number, number][] = [];
    for await (const entry of readArchive(blob, { name, onProgress: (done, total) => calls.push([done, total]) })) {
      if (read === "all") await readChunks(entry.stream());
    }
    const monotonic = calls.every(([done, total], i) => total === blob.size && done <= total && (i === 0 || done > calls[i - 1]![0]));
    return { monotonic, last: calls.at(-1), many: calls.length > 3 };
  };

  it.each([
    ["tar.gz", "x.tar.gz", () => sharedTarGz()],
    ["zip", "x.zip", () => sharedZip()],
    ["jsonl", "x.jsonl", async () => new Blob([BIG])],
  ] as const)("%s: counts source bytes and ends at the total, read or skipped", async (_format, name, make) => {
    const blob = await make();
    expect(await track(blob, name, "all")).toEqual({ monotonic: true, last: [blob.size, blob.size], many: true });
    expect((await track(blob, name, "none")).last).toEqual([blob.size, blob.size]);
  });

  it("tar.gz reads compressed bytes only as the entries are read, never all at once", async () => {
    const blob = await sharedTarGz();
    let done = 0;
    const atStart: number[] = [];
    for await (const entry of readArchive(blob, { onProgress: (n) => (done = n) })) {
      if (entry.path !== "a1b2c3d4-main/blobs/x.stdout") continue;
      const reader = entry.stream().getReader();
      await reader.read();
      atStart.push(done);
      while (!(await reader.read()).done);
      atStart.push(done);
    }
    // 3 MB of text: far from the end after its first chunk, most of the file once read.
    expect(atStart[0]).toBeLessThan(blob.size / 10);
    expect(atStart[1]).toBeGreaterThan(blob.size * 0.9);
  });

  it("tar.gz reads input no faster than its output is consumed (Node's DecompressionStream alone would buffer it all)", async () => {
    const blob = await sharedTarGz();
    let done = 0;
    let atHalf = 0;
    for await (const entry of readArchive(blob, { onProgress: (n) => (done = n) })) {
      if (entry.path !== "a1b2c3d4-main/blobs/x.stdout") continue;
      const reader = entry.stream().getReader();
      let consumed = 0;
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        consumed += r.value.length;
        // Let any runaway feeding run ahead before looking.
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (!atHalf && consumed >= entry.size! / 2) atHalf = done;
      }
    }
    // Half of the big entry is read when roughly half of the file is: allow slack, not the whole file.
    expect(atHalf / blob.size).toBeGreaterThan(0.3);
    expect(atHalf / blob.size).toBeLessThan(0.7);
  });
});

describe("writers", () => {
  it("writeTarGz pulls entries only as its output is read", async () => {
    let pulled = 0;
    function* entries() {
      for (let i = 0; i < 100; i++) {
        pulled++;
        yield { path: `t/${i}.bin`, data: noise(256 * 1024, i + 1) };
      }
    }
    const reader = writeTarGz(entries()).getReader();
    await reader.read();
    expect(pulled).toBeLessThan(5);
    await reader.cancel();
  });

  it("refuse paths other tools would unpack somewhere else", async () => {
    for (const path of ["../x", "/abs", "a//b", "./a", "a/./b", ""]) {
      expect(await errorOf(writeZip([{ path, data: "" }]))).toBeInstanceOf(TypeError);
      expect(await errorOf(readChunks(writeTarGz([{ path, data: "" }])))).toBeInstanceOf(TypeError);
    }
  });
});

describe("lib/archive stays browser-safe", () => {
  it("imports only its own files and fflate, and uses no Node globals", () => {
    const dir = join(process.cwd(), "lib/archive");
    const problems: string[] = [];
    for (const file of readdirSync(dir)) {
      const src = readFileSync(join(dir, file), "utf8");
      for (const m of src.matchAll(/from\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g)) {
        const spec = m[1] ?? m[2]!;
        if (!spec.startsWith("./") && spec !== "fflate") problems.push(`${file}: imports ${spec}`);
      }
      for (const node of [/\bBuffer\b/, /\bprocess\./, /\brequire\(/, /\b__dirname\b/, /["']node:/]) if (node.test(src)) problems.push(`${file}: uses ${node.source}`);
    }
    expect(problems).toEqual([]);
  });
});

describe("entry text", () => {
  it("decodes characters split byte by byte across chunks", async () => {
    const text = "a🙂漢é\n{\"k\":\"語🚀\"}";
    const bytes = enc.encode(text);
    const entry = makeEntry("t", bytes.length, {
      open: () =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
            controller.close();
          },
        }),
      discard: async () => undefined,
    });
    expect(await entry.text()).toBe(text);
  });
});
