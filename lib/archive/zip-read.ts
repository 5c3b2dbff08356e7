// Reads a zip by random access on the Blob: the central directory at the end
// says where each entry is, so only the directory and the entries asked for
// are read, a slice at a time; deflated data is inflated as it streams.
import { Inflate } from "fflate";
import { damaged, type ReadContext } from "./context";
import { crc32 } from "./crc32";
import { archiveClosed, makeEntry, movedOn, type EntrySource } from "./entry";
import { checkDeclared, checkDirectorySize } from "./limits";
import { cleanPath } from "./paths";
import { readRange } from "./source";
import { ArchiveError, type ArchiveEntry } from "./types";
import {
  applyZip64End,
  type CentralRecord,
  EOCD_SEARCH,
  FLAG_ENCRYPTED,
  findEnd,
  LOCAL_HEADER_SIZE,
  MAX16,
  methodName,
  parseCentral,
  SIG_LOCAL,
  view,
  ZIP64_EOCD_SIZE,
  ZIP64_LOCATOR_SIZE,
  zip64EndOffset,
} from "./zip-format";

/** Compressed bytes read from the file at a time. */
const CHUNK = 64 * 1024;
/**
 * Compressed bytes inflated at a time: deflate gives at most about 1,030
 * times its input, so one step gives at most about 16 MiB, however the
 * entry was made, before the limits are checked again.
 */
const INFLATE_STEP = 16 * 1024;

/**
 * Read past the fixed local header for its name and extra field, so the
 * header and the first data arrive in one read: each read of a picked File is
 * a round trip in Chromium, and a tree with thousands of small blobs paid two.
 */
const HEADER_SLACK = 1024;

export async function* readZip(blob: Blob, ctx: ReadContext): AsyncGenerator<ArchiveEntry> {
  const files: { record: CentralRecord; path: string }[] = [];
  const records = await readDirectory(blob, ctx);
  // What the directory says is what the entries may give (one that gives more is damaged): a bomb is refused before any of it is inflated.
  const deflated = records.filter((r) => r.method === 8);
  checkDeclared(ctx.limits, ctx.label, {
    entries: records.length,
    inflated: deflated.reduce((n, r) => n + r.size, 0),
    compressed: deflated.reduce((n, r) => n + r.compressedSize, 0),
  });
  for (const record of records) {
    if (record.special) continue;
    const path = cleanPath(record.name.replace(/\\/g, "/"));
    if (path === "") continue;
    if (path === null) throw new ArchiveError(`This .zip file contains an unsafe path "${record.name}" that points outside the archive.`);
    // Refused before anything is handed out, so an import never stops halfway through.
    if (record.flags & FLAG_ENCRYPTED) throw new ArchiveError(`This .zip file has a password-protected entry "${path}", which Reverie cannot read.`);
    if (record.method !== 0 && record.method !== 8) {
      throw new ArchiveError(`This .zip file stores "${path}" with ${methodName(record.method)} compression, which Reverie cannot read; re-create the archive with standard (Deflate) compression.`);
    }
    files.push({ record, path });
  }
  const state = { closed: false };
  try {
    for (const { record, path } of files) {
      ctx.signal?.throwIfAborted();
      const entry = makeEntry(path, record.size, zipBody(blob, record, path, ctx, state));
      yield entry;
      await entry.skip(); // whatever the caller left unread
    }
    ctx.progress.finish();
  } finally {
    // Random access could serve a late read, but tar cannot: one rule for both.
    state.closed = true;
  }
}

async function readDirectory(blob: Blob, ctx: ReadContext): Promise<CentralRecord[]> {
  const tailStart = Math.max(0, blob.size - EOCD_SEARCH);
  let end = findEnd(await readRange(blob, tailStart, blob.size, ctx, false), tailStart);
  if (!end) throw damaged(ctx, "no central directory found");
  ctx.progress.add(blob.size - end.at);

  // The central directory sits right before the EOCD, or before the ZIP64 record when there is one.
  // Look for ZIP64 even when no EOCD field is saturated: streaming writers (zip reading stdin) add it anyway.
  let cdEnd = end.at;
  if (end.at >= ZIP64_LOCATOR_SIZE) {
    const stated = zip64EndOffset(await readRange(blob, end.at - ZIP64_LOCATOR_SIZE, end.at, ctx));
    if (stated !== null) {
      // The record normally sits right before the locator; its stated offset is off when data was prepended.
      const adjacent = end.at - ZIP64_LOCATOR_SIZE - ZIP64_EOCD_SIZE;
      let zip64 = null;
      for (const at of stated === adjacent ? [stated] : [stated, adjacent]) {
        if (at < 0) continue;
        zip64 = applyZip64End(end, await readRange(blob, at, at + ZIP64_EOCD_SIZE, ctx));
        if (zip64) {
          cdEnd = at;
          break;
        }
      }
      if (!zip64) throw damaged(ctx, "its ZIP64 directory record is missing");
      end = zip64;
    }
  }
  if (end.disk !== 0 || end.cdDisk !== 0) throw new ArchiveError("This .zip file is one part of a split archive; join the parts into a single .zip and try again.");
  // The stated count first, then the directory's size, so neither a count nor a directory past the limit is ever read whole.
  if (end.entries !== MAX16) checkDeclared(ctx.limits, ctx.label, { entries: end.entries, inflated: 0, compressed: 0 });
  checkDirectorySize(ctx.limits, ctx.label, end.cdSize);
  const cdStart = cdEnd - end.cdSize;
  if (cdStart < 0) throw damaged(ctx, "its central directory is cut short");
  // Data prepended to the zip (a self-extractor stub) shifts every offset by the same amount.
  const shift = cdStart - end.cdOffset;
  if (shift < 0) throw damaged(ctx, "its central directory is cut short");

  const records = parseCentral(await readRange(blob, cdStart, cdEnd, ctx));
  // Some writers wrap the 16-bit entry count past 65535, so fewer is damage but more is not.
  if (!records || (records.length < end.entries && end.entries !== MAX16)) throw damaged(ctx, "its central directory is cut short or corrupt");
  for (const record of records) record.localOffset += shift;
  return records;
}

function zipBody(blob: Blob, record: CentralRecord, path: string, ctx: ReadContext, archive: { closed: boolean }): EntrySource {
  let finished = false;
  let headerRead = false;
  let dataRead = 0;
  return {
    open() {
      let pos = 0;
      let end = 0;
      let produced = 0;
      let crc = 0;
      const inflated: Uint8Array[] = [];
      const inflater = record.method === 8 ? new Inflate((data) => inflated.push(data)) : null;
      // The first data, when it came with the header.
      let prefetched: Uint8Array | undefined;
      // Read from the file, not yet inflated.
      let waiting: Uint8Array = new Uint8Array(0);

      const locate = async () => {
        const want = Math.min(blob.size, record.localOffset + LOCAL_HEADER_SIZE + HEADER_SLACK + Math.min(record.compressedSize, CHUNK));
        const head = await readRange(blob, record.localOffset, want, ctx, false);
        headerRead = true;
        ctx.progress.add(Math.min(head.length, LOCAL_HEADER_SIZE));
        const dv = view(head);
        if (head.length < LOCAL_HEADER_SIZE || dv.getUint32(0, true) !== SIG_LOCAL) throw damaged(ctx, `the data of "${path}" is missing`);
        pos = record.localOffset + LOCAL_HEADER_SIZE + dv.getUint16(26, true) + dv.getUint16(28, true);
        end = pos + record.compressedSize;
        if (end > blob.size) throw damaged(ctx, `"${path}" is cut short`);
        const from = pos - record.localOffset;
        if (from < head.length) prefetched = head.subarray(from, Math.min(head.length, end - record.localOffset));
      };

      return new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            if (archive.closed) throw archiveClosed();
            if (finished) throw movedOn(path);
            // Compressed bytes already read may be inflated without another read, which would have checked.
            ctx.signal?.throwIfAborted();
            if (!headerRead) await locate();
            for (;;) {
              if (pos >= end && !waiting.length) {
                if (produced !== record.size || crc !== record.crc) throw damaged(ctx, `"${path}" does not match its checksum`);
                controller.close();
                return;
              }
              if (!waiting.length) {
                if (prefetched?.length) {
                  waiting = prefetched;
                  prefetched = undefined;
                  ctx.progress.add(waiting.length);
                } else waiting = await readRange(blob, pos, Math.min(end, pos + CHUNK), ctx);
                dataRead += waiting.length;
                pos += waiting.length;
              }
              const step = inflater ? waiting.subarray(0, INFLATE_STEP) : waiting;
              waiting = waiting.subarray(step.length);
              if (inflater) {
                ctx.meter.fed(step.length);
                try {
                  inflater.push(step, pos === end && !waiting.length);
                } catch {
                  throw damaged(ctx, `"${path}" could not be decompressed`);
                }
              } else inflated.push(step);
              let gave = false;
              for (const out of inflated.splice(0)) {
                if (out.length === 0) continue;
                produced += out.length;
                if (produced > record.size) throw damaged(ctx, `"${path}" holds more data than its header says`);
                if (inflater) ctx.meter.gave(out.length);
                crc = crc32(out, crc);
                controller.enqueue(out);
                gave = true;
              }
              if (gave && (pos < end || waiting.length)) return;
            }
          },
        },
        { highWaterMark: 0 },
      );
    },
    async discard() {
      if (finished) return;
      finished = true;
      // Skipped bytes count as handled, so progress moves on for entries nobody reads.
      ctx.progress.add((headerRead ? 0 : LOCAL_HEADER_SIZE) + record.compressedSize - dataRead);
    },
  };
}
