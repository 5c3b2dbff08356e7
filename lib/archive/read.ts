// Opening an archive: decide what the file is (its bytes first, then its
// name), and hand out its files one at a time whatever the format.
import { Progress, type ReadContext } from "./context";
import { makeEntry } from "./entry";
import { archiveLimits, type ArchiveLimits, LimitMeter } from "./limits";
import { readRange, sourceStream } from "./source";
import { readTar } from "./tar-read";
import { ArchiveError, type ArchiveEntry, type ArchiveFormat, type ArchiveSource, type UnpackedTree } from "./types";
import { readZip } from "./zip-read";

export { ArchiveError, type ArchiveEntry, type ArchiveFormat, type ArchiveSource, type UnpackedTree } from "./types";

/** How many leading bytes detectFormat wants: the tar magic sits at 257..262. */
export const HEAD_BYTES = 512;

export interface ReadOptions {
  /** The file's name, for detection by extension when the bytes do not tell (defaults to a File's name). */
  name?: string;
  signal?: AbortSignal;
  /** Bytes of the source consumed so far (compressed bytes for .tar.gz); ends with (total, total). */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  /** Bounds on what the file may inflate to and how many entries it may list (ARCHIVE_LIMITS where not given). */
  limits?: Partial<ArchiveLimits>;
}

export function detectFormat(fileName: string, head: Uint8Array): ArchiveFormat | null {
  // Magic bytes win over the name: downloads get renamed, contents do not.
  if (head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))) return "zip";
  if (head[0] === 0x1f && head[1] === 0x8b) return "tar.gz";
  if (String.fromCharCode(...head.subarray(257, 262)) === "ustar") return "tar";
  const name = fileName.toLowerCase();
  if (name.endsWith(".zip")) return "zip";
  if (name.endsWith(".tar.gz") || name.endsWith(".tgz")) return "tar.gz";
  if (name.endsWith(".tar")) return "tar";
  if (/\.(jsonl|ndjson|json)$/.test(name)) return "jsonl";
  return looksLikeText(head) ? "jsonl" : null;
}

export async function* readArchive(source: ArchiveSource, opts: ReadOptions = {}): AsyncGenerator<ArchiveEntry> {
  opts.signal?.throwIfAborted();
  if (isUnpacked(source)) {
    const progress = new Progress(source.size, opts.onProgress);
    yield* source.entries({ signal: opts.signal, progress: (bytes) => progress.add(bytes) });
    opts.signal?.throwIfAborted();
    progress.finish();
    return;
  }
  const name = opts.name ?? fileNameOf(source);
  const progress = new Progress(source.size, opts.onProgress);
  const head = await readRange(source, 0, HEAD_BYTES, { signal: opts.signal, progress }, false);
  const format = detectFormat(name, head);
  if (!format) throw new ArchiveError("This file is not something Reverie can import: expected a .zip, .tar.gz, .tar or .jsonl file.");
  const label = `.${format}`;
  const limits = archiveLimits(opts.limits);
  const ctx: ReadContext = { signal: opts.signal, progress, label, limits, meter: new LimitMeter(limits, label) };
  if (format === "zip") yield* readZip(source, ctx);
  else if (format === "jsonl") yield* readJsonl(source, ctx);
  else yield* readTar(source, format === "tar.gz", ctx);
}

/** A lone trajectory file is an archive of one entry, so importers need no special case. */
async function* readJsonl(source: Blob, ctx: ReadContext): AsyncGenerator<ArchiveEntry> {
  let stream: ReadableStream<Uint8Array> | undefined;
  const entry = makeEntry("trajectory.jsonl", source.size, {
    open: () => (stream = sourceStream(source, ctx)),
    discard: async () => {
      // Fails harmlessly while the caller still holds a reader; then it is theirs to finish.
      await stream?.cancel().catch(() => undefined);
    },
  });
  yield entry;
  await entry.skip();
  ctx.signal?.throwIfAborted();
  ctx.progress.finish();
}

function isUnpacked(source: ArchiveSource): source is UnpackedTree {
  return typeof (source as Partial<UnpackedTree>).entries === "function";
}

function fileNameOf(source: Blob): string {
  const name = (source as { name?: unknown }).name;
  return typeof name === "string" ? name : "";
}

/** UTF-8 without control characters other than whitespace: a JSON Lines file that lacks its extension. */
function looksLikeText(head: Uint8Array): boolean {
  if (head.length === 0) return false;
  for (const byte of head) {
    if ((byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d) || byte === 0x7f) return false;
  }
  try {
    // stream: true, because the 512-byte cut may fall inside a character.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}
