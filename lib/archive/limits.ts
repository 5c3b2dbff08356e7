// How much one archive may hold before Reverie stops reading it: bytes
// inflated (in all, and per compressed byte read) and entries. Checked as the
// bytes stream, never after, so a decompression bomb is refused within its
// first megabytes instead of being read to its end.
import { ArchiveError } from "./types";

export interface ArchiveLimits {
  /** Bytes the decompressors may give in all, whatever the file's size. */
  maxInflatedBytes: number;
  /**
   * Bytes inflated per compressed byte read, beyond `inflateSlackBytes`. JSON
   * deflates 5 to 30 times, a stream of one repeated line a few hundred times
   * at most before its ids differ; deflate's own ceiling is about 1,030.
   */
  maxInflateRatio: number;
  /** Bytes always allowed before the ratio applies, so a small file of very repetitive text is never refused. */
  inflateSlackBytes: number;
  /** Entries (files, folders, links) one archive may list. */
  maxEntries: number;
}

const MiB = 1024 * 1024;

export const ARCHIVE_LIMITS: Readonly<ArchiveLimits> = {
  maxInflatedBytes: 4 * 1024 * MiB,
  maxInflateRatio: 200,
  inflateSlackBytes: 64 * MiB,
  // A mind's export holds a trajectory.jsonl and its blobs per trajectory: a long life has thousands.
  maxEntries: 100_000,
};

/** The defaults, with whichever limits are given (an undefined one keeps its default). */
export function archiveLimits(given: Partial<ArchiveLimits> = {}): ArchiveLimits {
  const pick = (key: keyof ArchiveLimits) => given[key] ?? ARCHIVE_LIMITS[key];
  return { maxInflatedBytes: pick("maxInflatedBytes"), maxInflateRatio: pick("maxInflateRatio"), inflateSlackBytes: pick("inflateSlackBytes"), maxEntries: pick("maxEntries") };
}

/** 512 B, 64 KiB, 8 MiB, 3.7 GiB: binary units, as the limits are set. */
export function byteSize(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = unit === 0 || Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, "");
  return `${shown} ${units[unit]}`;
}

/** 100,000: grouped without loading ICU's number formats. */
export const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/**
 * Counts one archive's entries and what its decompressors take in and give
 * out, and throws an ArchiveError the moment a limit is passed. Only bytes
 * that go through a decompressor count: stored data cannot be a bomb.
 */
export class LimitMeter {
  private compressed = 0;
  private inflated = 0;
  private entries = 0;

  constructor(
    private readonly limits: ArchiveLimits,
    /** How the file is named to the person: ".zip", ".tar.gz". */
    private readonly label: string,
  ) {}

  /** Compressed bytes handed to a decompressor. */
  fed(bytes: number): void {
    this.compressed += bytes;
  }

  /** Bytes a decompressor gave back. */
  gave(bytes: number): void {
    this.inflated += bytes;
    const problem = inflateProblem(this.limits, this.label, this.inflated, this.compressed, "inflates");
    if (problem) throw problem;
  }

  /** One more entry listed. */
  entry(): void {
    if (++this.entries > this.limits.maxEntries) throw tooManyEntries(this.limits, this.label);
  }
}

/**
 * What a zip's directory says before anything is inflated: its entries' sizes
 * (a zip refuses an entry that gives more than its stated size) and count.
 */
export function checkDeclared(limits: ArchiveLimits, label: string, declared: { inflated: number; compressed: number; entries: number }): void {
  if (declared.entries > limits.maxEntries) throw tooManyEntries(limits, label);
  const problem = inflateProblem(limits, label, declared.inflated, declared.compressed, "says it inflates");
  if (problem) throw problem;
}

/**
 * A zip's central directory record is 46 bytes and its name, extra field and
 * comment; real ones average well under this. A directory bigger than
 * `maxEntries` of these is refused before it is read into memory.
 */
const DIRECTORY_BYTES_PER_ENTRY = 1024;

export function checkDirectorySize(limits: ArchiveLimits, label: string, bytes: number): void {
  if (bytes <= limits.maxEntries * DIRECTORY_BYTES_PER_ENTRY) return;
  throw new ArchiveError(`This ${label} file's list of contents is ${byteSize(bytes)}, more than ${thousands(limits.maxEntries)} entries need; it was not read further.`);
}

function inflateProblem(limits: ArchiveLimits, label: string, inflated: number, compressed: number, verb: string): ArchiveError | null {
  if (inflated > limits.maxInflatedBytes) {
    return new ArchiveError(`This ${label} file ${verb} to more than ${byteSize(limits.maxInflatedBytes)}, more than Reverie reads from one file; it was not read further.`);
  }
  if (inflated > limits.maxInflateRatio * compressed + limits.inflateSlackBytes) {
    const times = compressed > 0 ? ` (${thousands(Math.floor(inflated / compressed))} times)` : "";
    return new ArchiveError(
      `This ${label} file ${verb} to ${byteSize(inflated)} from ${byteSize(compressed)}${times}; it looks like a decompression bomb and was not read further.`,
    );
  }
  return null;
}

function tooManyEntries(limits: ArchiveLimits, label: string): ArchiveError {
  return new ArchiveError(`This ${label} file holds more than ${thousands(limits.maxEntries)} entries, more than Reverie reads from one file; it was not read further.`);
}
