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

/**
 * Files that are not packed (a folder on disk), handed out as the entries an
 * archive of them would give. Whoever can read them builds it (the command
 * line, over node:fs); readArchive and the importer take it where they take a
 * file.
 */
export interface UnpackedTree {
  /** The files' bytes together: the total that progress counts to. */
  readonly size: number;
  /**
   * Every file, a folder's trajectory.jsonl before the folders inside it (an
   * importer finds a child's parent by the folders it has seen). `progress`
   * is told of each chunk of bytes handed out.
   */
  entries(opts: { signal?: AbortSignal; progress: (bytes: number) => void }): AsyncIterable<ArchiveEntry>;
}

/** What readArchive opens: a file (a .zip, .tar.gz, .tar or .jsonl), or files not packed. */
export type ArchiveSource = Blob | UnpackedTree;

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
