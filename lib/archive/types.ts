// The shapes shared by every archive reader and writer. Kept free of any
// format detail so callers (importer, exporter, CLI) depend on this file only.

export type ArchiveFormat = "jsonl" | "zip" | "tar.gz" | "tar";

export interface ArchiveEntry {
  /** Path inside the archive, "/"-separated, no leading "./" or "/". */
  path: string;
  /** Uncompressed size when the format tells it up front. */
  size?: number;
  /** The entry's bytes as a stream. Consume it (or call skip) before asking for the next entry. */
  stream(): ReadableStream<Uint8Array>;
  /** The whole entry as UTF-8 text; multibyte characters split across chunks decode correctly. */
  text(): Promise<string>;
  /** Discard the entry (or what is left of it). Safe to call more than once. */
  skip(): Promise<void>;
}

/** A problem with the file itself, worded for the person who chose it. */
export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArchiveError";
  }
}

export interface OutEntry {
  path: string;
  data: string | Uint8Array;
  mtime?: Date;
}
