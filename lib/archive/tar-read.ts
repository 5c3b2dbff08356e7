// Reads a tar stream in one pass (never the whole archive in memory): each
// regular file becomes an entry whose body is streamed straight from the
// decompressed input; directories, links and other special files are skipped.
import { ByteQueue } from "./byte-queue";
import { damaged, isOwnError, type ReadContext } from "./context";
import { archiveClosed, makeEntry, movedOn, type EntrySource } from "./entry";
import { throughOnDemand } from "./on-demand";
import { cleanPath } from "./paths";
import { sourceStream } from "./source";
import { BLOCK, decodeTarHeader, isZeroBlock, paddingAfter, parsePax } from "./tar-header";
import { ArchiveError, type ArchiveEntry } from "./types";

/** Body chunks handed to the caller are at most this big. */
const CHUNK = 64 * 1024;
/** Long-name and pax headers are read whole; a real one is a few hundred bytes. */
const MAX_META = 1024 * 1024;

export async function* readTar(blob: Blob, gzipped: boolean, ctx: ReadContext): AsyncGenerator<ArchiveEntry> {
  const raw = sourceStream(blob, ctx);
  const bytes = gzipped ? throughOnDemand(raw, new DecompressionStream("gzip"), ctx.meter) : raw;
  const queue = new ByteQueue(
    bytes,
    ctx.signal,
    (error) => (isOwnError(error, ctx.signal) ? error : damaged(ctx, "the compressed data is cut short or corrupt")),
    archiveClosed,
  );
  try {
    yield* entries(queue, ctx);
    // Read to the end: gzip checks its length and CRC only there, and progress reaches the total.
    await queue.drain();
    ctx.progress.finish();
  } finally {
    await queue.cancel();
  }
}

async function* entries(queue: ByteQueue, ctx: ReadContext): AsyncGenerator<ArchiveEntry> {
  let longName: string | undefined;
  let pax = new Map<string, string>();
  let previous: string | undefined;

  for (;;) {
    const block = await queue.readExact(BLOCK);
    if (block.length === 0) return; // no end-of-archive blocks: tolerated, nothing is missing
    if (block.length < BLOCK) {
      if (previous === undefined) throw notTar(ctx);
      throw damaged(ctx, "it ends in the middle of a header");
    }
    if (isZeroBlock(block)) {
      const next = await queue.readExact(BLOCK);
      if (next.length === 0 || isZeroBlock(next)) return; // the end-of-archive marker
      throw damaged(ctx, "it has an empty header in the middle");
    }
    const header = decodeTarHeader(block);
    if (!header) {
      if (previous === undefined) throw notTar(ctx);
      throw damaged(ctx, `a header after "${previous}" fails its checksum`);
    }
    const size = pax.has("size") ? Number(pax.get("size")) : header.size;
    if (!Number.isSafeInteger(size) || size < 0) throw damaged(ctx, `a header after "${previous ?? "the start"}" has an invalid size`);

    if (header.type === "L" || header.type === "x") {
      // Metadata for the next header: a GNU long name, or pax records.
      if (size > MAX_META) throw damaged(ctx, "it has an oversized extended header");
      const data = await readBody(queue, size, ctx, "an extended header");
      if (header.type === "L") longName = new TextDecoder().decode(data.subarray(0, nulAt(data)));
      else pax = parsePax(data);
      continue;
    }
    if (header.type === "K" || header.type === "g") {
      // A GNU long link target or pax global records: nothing Reverie uses, and
      // they must not clear the long name or pax records of the file that follows.
      await skipBody(queue, size, ctx, "an extended header");
      continue;
    }

    // Every entry counts, read or not: a million empty folders cost time too.
    ctx.meter.entry();
    const rawPath = pax.get("path") ?? longName ?? header.name;
    longName = undefined;
    pax = new Map();
    previous = rawPath;
    const regular = header.type === "0" || header.type === "\0" || header.type === "7";
    const path = cleanPath(rawPath);
    if (!regular || rawPath.endsWith("/") || path === "") {
      // Directories, links, devices: nothing to hand out.
      await skipBody(queue, size, ctx, `"${rawPath}"`);
      continue;
    }
    if (path === null) throw new ArchiveError(`This ${ctx.label} file contains an unsafe path "${rawPath}" that points outside the archive.`);

    const entry = makeEntry(path, size, tarBody(queue, size, path, ctx));
    yield entry;
    await entry.skip(); // whatever the caller left unread
  }
}

function tarBody(queue: ByteQueue, size: number, path: string, ctx: ReadContext): EntrySource {
  let remaining = size;
  let finished = false;
  let reading: Promise<void> | undefined;
  return {
    open: () =>
      new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            reading = (async () => {
              if (finished) throw movedOn(path);
              if (remaining > 0) {
                const chunk = await queue.readSome(Math.min(remaining, CHUNK));
                if (!chunk) throw damaged(ctx, `it ends in the middle of "${path}"`);
                remaining -= chunk.length;
                controller.enqueue(chunk);
              }
              if (remaining === 0) controller.close();
            })();
            return reading;
          },
        },
        { highWaterMark: 0 },
      ),
    async discard() {
      // A read still in flight must land before its bytes are skipped past.
      await reading?.catch(() => undefined);
      if (finished) return;
      finished = true;
      await skipBody(queue, remaining, ctx, `"${path}"`, size);
      remaining = 0;
    },
  };
}

async function readBody(queue: ByteQueue, size: number, ctx: ReadContext, what: string): Promise<Uint8Array> {
  const data = await queue.readExact(size);
  if (data.length < size) throw damaged(ctx, `it ends in the middle of ${what}`);
  await queue.skip(paddingAfter(size));
  return data;
}

/** Skips `remaining` body bytes plus the padding that rounds `size` up to a block. */
async function skipBody(queue: ByteQueue, remaining: number, ctx: ReadContext, what: string, size = remaining): Promise<void> {
  if ((await queue.skip(remaining)) < remaining) throw damaged(ctx, `it ends in the middle of ${what}`);
  // A missing final padding loses nothing, so it is not an error.
  await queue.skip(paddingAfter(size));
}

function notTar(ctx: ReadContext): ArchiveError {
  return new ArchiveError(`This ${ctx.label} file is not a tar archive, or is damaged at its start.`);
}

function nulAt(data: Uint8Array): number {
  const at = data.indexOf(0);
  return at < 0 ? data.length : at;
}
