// Turns a format's "how to stream / how to discard this entry" into the public
// ArchiveEntry, with the same single-use rule for every format: an entry's
// bytes can be taken once, so code written against zip (random access) never
// silently breaks on tar (one pass).
import type { ArchiveEntry } from "./types";

export interface EntrySource {
  open(): ReadableStream<Uint8Array>;
  /** Discards whatever has not been read; idempotent. */
  discard(): Promise<void>;
}

/** For a stream read after its archive moved on: the caller broke the one-pass rule. */
export function movedOn(path: string): Error {
  return new Error(`The archive entry "${path}" can no longer be read: reading moved on to the next entry.`);
}

/** For a stream read after the loop over the archive ended (break, return or an error). */
export function archiveClosed(): Error {
  return new Error("The archive was closed, so its entries can no longer be read.");
}

export function makeEntry(path: string, size: number | undefined, source: EntrySource): ArchiveEntry {
  let taken = false;
  const entry: ArchiveEntry = {
    path,
    stream() {
      if (taken) throw new Error(`The archive entry "${path}" was already read or skipped.`);
      taken = true;
      return source.open();
    },
    text() {
      return decodeUtf8(entry.stream());
    },
    async skip() {
      taken = true;
      await source.discard();
    },
  };
  if (size !== undefined) entry.size = size;
  return entry;
}

async function decodeUtf8(stream: ReadableStream<Uint8Array>): Promise<string> {
  // stream: true keeps a character cut between two chunks until its last byte arrives.
  const decoder = new TextDecoder("utf-8");
  const reader = stream.getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
