/* global TextEncoder, Blob, CompressionStream, DecompressionStream, TransformStream */
// The archive codecs the trajectory bench compares: ours (lib/archive) and
// well-kept libraries used the way Reverie would use them. Runs unchanged in
// Node (imported through tsx) and in Chromium (bundled by esbuild).
//
// Every reader reads every entry's bytes to the end and counts them, so a
// reader that skips work shows up as a wrong count, not as a fast row; every
// writer returns a Blob the bench reads back with ours before trusting it.
import { BlobReader, BlobWriter, configure, Uint8ArrayReader, ZipReader, ZipWriter } from "@zip.js/zip.js";
import { Unzip, UnzipInflate, unzipSync, Zip, ZipDeflate, zipSync } from "fflate";
import { createTarDecoder, createTarPacker } from "modern-tar";
import { readArchive, writeTarGz, writeZip } from "../lib/archive/index.ts";
import { throughOnDemand } from "../lib/archive/on-demand.ts";
import { tarStream } from "../lib/archive/tar-write.ts";
import { makeHeadlongTree } from "../test/fixtures/headlong-tree.ts";

// Workers would put zip.js's work where neither the timer nor the memory figure sees it.
configure({ useWebWorkers: false });

/**
 * The trajectories every codec packs and unpacks, in Headlong's folder layout:
 * "one" is a single long life (a root of `steps` steps, a forked child, a
 * blob); "many" is the same number of steps as `trees` separate trajectories;
 * "blobs" is a tenth of the steps with their outputs kept as 2,000 small files
 * in blobs/, as a mind with many large command outputs exports. The last two
 * show per-entry costs.
 */
export function workload(kind, steps, trees = 200) {
  const enc = new TextEncoder();
  const made =
    kind === "one"
      ? [makeHeadlongTree({ steps, seed: 1, withChild: true })]
      : kind === "many"
        ? Array.from({ length: trees }, (_, i) => makeHeadlongTree({ steps: Math.ceil(steps / trees), seed: i + 1, withChild: i % 2 === 0 }))
        : [withBlobs(makeHeadlongTree({ steps: Math.ceil(steps / 10), seed: 1 }), 2000)];
  const entries = made.flatMap((tree) => tree.files.map((f) => ({ path: f.path, data: enc.encode(f.data) })));
  const stepCount = made.reduce((sum, tree) => sum + Object.values(tree.counts).reduce((a, b) => a + b, 0), 0);
  return { entries, steps: stepCount, bytes: entries.reduce((sum, e) => sum + e.data.length, 0) };
}

/** The tree plus `count` blob files cut from its own trajectory text (a few KB each). */
function withBlobs(tree, count) {
  const lines = tree.files[0].data.split("\n");
  const per = Math.max(1, Math.floor(lines.length / count));
  const dir = tree.files[0].path.replace(/trajectory\.jsonl$/, "blobs");
  const blobs = Array.from({ length: count }, (_, i) => ({ path: `${dir}/${String(i).padStart(4, "0")}.stdout`, data: lines.slice(i * per, (i + 1) * per).join("\n") }));
  return { ...tree, files: [...tree.files, ...blobs] };
}

/** Reads a stream to the end; returns how many bytes it held. */
async function drain(stream) {
  const reader = stream.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.length;
  }
}

async function collect(stream) {
  const parts = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return new Blob(parts);
    parts.push(value);
  }
}

async function readOurs(blob, paths) {
  let entries = 0;
  let bytes = 0;
  for await (const entry of readArchive(blob)) {
    entries++;
    paths?.push(entry.path);
    bytes += await drain(entry.stream());
  }
  return { entries, bytes };
}

/** modern-tar's decoder over a byte stream; folders and links are skipped as ours skips them. */
async function readModernTar(bytes) {
  let entries = 0;
  let total = 0;
  for await (const entry of bytes.pipeThrough(createTarDecoder({ strict: true }))) {
    if (entry.header.type !== "file") {
      await entry.body.cancel();
      continue;
    }
    entries++;
    total += await drain(entry.body);
  }
  return { entries, bytes: total };
}

/** modern-tar's packer, fed one entry at a time while its output is read. */
function packModernTar(entries) {
  const { readable, controller } = createTarPacker();
  const now = new Date();
  const feeding = (async () => {
    for (const e of entries) {
      const writer = controller.add({ name: e.path, size: e.data.length, mtime: now, mode: 0o644 }).getWriter();
      await writer.write(e.data);
      await writer.close();
    }
    controller.finalize();
  })();
  feeding.catch((error) => controller.error(error));
  return readable;
}

export const CODECS = [
  // tar.gz: what Reverie exports, and imports from GNU tar.
  { format: "tar.gz", name: "ours", read: (blob) => readOurs(blob), write: (entries) => collect(writeTarGz(entries)) },
  {
    format: "tar.gz",
    name: "modern-tar",
    note: "gunzip fed on demand, as ours is",
    read: (blob) => readModernTar(throughOnDemand(blob.stream(), new DecompressionStream("gzip"))),
    write: (entries) => collect(throughOnDemand(packModernTar(entries), new CompressionStream("gzip"))),
  },
  {
    format: "tar.gz",
    name: "modern-tar, pipeThrough",
    note: "as its README streams: Node's gunzip then reads ahead",
    read: (blob) => readModernTar(blob.stream().pipeThrough(new DecompressionStream("gzip"))),
    write: (entries) => collect(packModernTar(entries).pipeThrough(new CompressionStream("gzip"))),
  },
  // Plain tar: the codec's own cost, without gzip's.
  { format: "tar", name: "ours", read: (blob) => readOurs(blob), write: (entries) => collect(tarStream(entries)) },
  { format: "tar", name: "modern-tar", read: (blob) => readModernTar(blob.stream()), write: (entries) => collect(packModernTar(entries)) },

  // zip: random access through the central directory.
  { format: "zip", name: "ours", read: (blob) => readOurs(blob), write: (entries) => writeZip(entries) },
  {
    format: "zip",
    name: "@zip.js/zip.js",
    read: async (blob) => {
      const zip = new ZipReader(new BlobReader(blob));
      let entries = 0;
      let bytes = 0;
      for (const entry of await zip.getEntries()) {
        if (entry.directory) continue;
        entries++;
        const counter = new TransformStream();
        const counted = drain(counter.readable);
        await entry.getData(counter.writable);
        bytes += await counted;
      }
      await zip.close();
      return { entries, bytes };
    },
    write: async (entries) => {
      const zip = new ZipWriter(new BlobWriter("application/zip"));
      for (const e of entries) await zip.add(e.path, new Uint8ArrayReader(e.data), { level: 6 });
      return zip.close();
    },
  },
  {
    format: "zip",
    name: "fflate Unzip/Zip",
    note: "streaming: local headers in file order",
    read: async (blob) => {
      let entries = 0;
      let bytes = 0;
      let failure;
      const unzip = new Unzip((file) => {
        entries++;
        file.ondata = (error, chunk) => {
          if (error) failure ??= error;
          else bytes += chunk.length;
        };
        file.start();
      });
      unzip.register(UnzipInflate);
      const reader = blob.stream().getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (failure) throw failure;
        if (done) break;
        unzip.push(value);
      }
      unzip.push(new Uint8Array(0), true);
      if (failure) throw failure;
      return { entries, bytes };
    },
    write: async (entries) => {
      const parts = [];
      let failure;
      const zip = new Zip((error, chunk) => {
        if (error) failure ??= error;
        else parts.push(chunk);
      });
      for (const e of entries) {
        const file = new ZipDeflate(e.path, { level: 6 });
        zip.add(file);
        file.push(e.data, true);
      }
      zip.end();
      if (failure) throw failure;
      return new Blob(parts);
    },
  },
  {
    format: "zip",
    name: "fflate zipSync/unzipSync",
    note: "whole archive in memory",
    read: async (blob) => {
      const files = unzipSync(new Uint8Array(await blob.arrayBuffer()), { filter: (f) => !f.name.endsWith("/") });
      let bytes = 0;
      for (const data of Object.values(files)) bytes += data.length;
      return { entries: Object.keys(files).length, bytes };
    },
    write: async (entries) => new Blob([zipSync(Object.fromEntries(entries.map((e) => [e.path, [e.data, { level: 6 }]])))]),
  },
];

/** The paths and bytes a written archive holds, read back with ours: a writer's row counts only if they match. */
export async function readBack(blob) {
  const paths = [];
  const { bytes } = await readOurs(blob, paths);
  return { paths, bytes };
}
