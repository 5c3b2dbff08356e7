// Writing the archives Reverie exports: tar.gz as a stream (nothing held
// whole), zip as a Blob (its directory needs every entry's offset first).
import { throughOnDemand } from "./on-demand";
import { tarStream } from "./tar-write";
import type { OutEntry } from "./types";
import { buildZip } from "./zip-write";

export type { OutEntry } from "./types";

/** A gzip-compressed ustar archive; entries are pulled as the stream is read. Paths are checked (TypeError). */
export function writeTarGz(entries: AsyncIterable<OutEntry> | Iterable<OutEntry>): ReadableStream<Uint8Array> {
  return throughOnDemand(tarStream(entries), new CompressionStream("gzip"));
}

/** A zip with deflated entries and UTF-8 names. Paths are checked (TypeError). */
export async function writeZip(entries: AsyncIterable<OutEntry> | Iterable<OutEntry>): Promise<Blob> {
  return buildZip(entries);
}
