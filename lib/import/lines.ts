// A trajectory.jsonl's bytes cut into lines, in memory bounded by the line
// limit whatever the file holds. Lines are found as 0x0A bytes (UTF-8 never
// has that byte inside a character) and decoded only once whole; the pieces
// of a line still open are kept as a list with their total, never joined
// chunk after chunk (which made a 20 MB line cost a minute); and a line that
// grows past the limit is dropped the moment it does, its bytes up to the next
// newline passed over unread.
import { byteSize } from "../archive/limits";

/** The longest line read as a step; a longer one is skipped and counted. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

const NEWLINE = 0x0a;
const RETURN = 0x0d;
const BOM = 0xfeff;

/** JSON's white space: what a line may start with and still be read the same. */
const isBlank = (byte: number) => byte === 0x20 || byte === NEWLINE || byte === RETURN || byte === 0x09;

/** Why a line over the limit was skipped, as the import stats and `reverie context` count it. */
export function overLongReason(maxLineBytes: number): string {
  return `line over ${byteSize(maxLineBytes)}`;
}

export class LineSplitter {
  /** Lines dropped for passing the limit. */
  overLong = 0;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Inside a line that passed the limit: its bytes up to the next newline are dropped. */
  private dropping = false;
  /** No line given or dropped yet: a byte-order mark at the very start is not part of the first line. */
  private atStart = true;
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });

  constructor(readonly maxLineBytes = MAX_LINE_BYTES) {}

  /**
   * The lines this chunk completes, without their "\n" or "\r\n". White
   * space at a line's start is passed over, so blank lines are never handed
   * out (readers skip them): a flood of them costs a byte comparison each,
   * not a decoding.
   */
  push(chunk: Uint8Array): string[] {
    const lines: string[] = [];
    let from = 0;
    while (from < chunk.length) {
      if (!this.dropping && this.pendingBytes === 0) {
        while (from < chunk.length && isBlank(chunk[from]!)) from++;
        if (from === chunk.length) break;
      }
      const nl = chunk.indexOf(NEWLINE, from);
      if (nl < 0) {
        this.hold(chunk.subarray(from));
        break;
      }
      const piece = chunk.subarray(from, nl);
      from = nl + 1;
      if (this.dropping) this.dropping = false;
      else if (this.pendingBytes + piece.length > this.maxLineBytes) this.drop();
      else lines.push(this.line(piece));
    }
    return lines;
  }

  /** The last line, when the text does not end with a newline. */
  end(): string[] {
    const open = !this.dropping && this.pendingBytes > 0;
    this.dropping = false;
    return open ? [this.line(new Uint8Array(0))] : [];
  }

  private hold(rest: Uint8Array): void {
    if (this.dropping) return;
    if (this.pendingBytes + rest.length > this.maxLineBytes) {
      this.drop();
      this.dropping = true;
      return;
    }
    // A copy: the chunk may be a view of a much larger buffer, which this small tail would keep alive.
    this.pending.push(rest.slice());
    this.pendingBytes += rest.length;
  }

  private drop(): void {
    this.overLong++;
    this.pending = [];
    this.pendingBytes = 0;
    this.atStart = false;
  }

  private line(last: Uint8Array): string {
    let bytes = last;
    if (this.pending.length > 0) {
      bytes = new Uint8Array(this.pendingBytes + last.length);
      let at = 0;
      for (const piece of this.pending) {
        bytes.set(piece, at);
        at += piece.length;
      }
      bytes.set(last, at);
      this.pending = [];
      this.pendingBytes = 0;
    }
    const end = bytes.length > 0 && bytes[bytes.length - 1] === RETURN ? bytes.length - 1 : bytes.length;
    const text = this.decoder.decode(bytes.subarray(0, end));
    const first = this.atStart;
    this.atStart = false;
    return first && text.charCodeAt(0) === BOM ? text.slice(1) : text;
  }
}

/**
 * A stream's lines, a chunk's worth at a time; lines over the limit are left
 * out and counted in `splitter.overLong`. The stream is read only as the
 * lines are taken.
 */
export async function* linesOf(stream: ReadableStream<Uint8Array>, splitter: LineSplitter, signal?: AbortSignal): AsyncGenerator<string[]> {
  const reader = stream.getReader();
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { done, value } = await reader.read();
      if (done) break;
      const lines = splitter.push(value);
      if (lines.length > 0) yield lines;
    }
  } finally {
    reader.releaseLock();
  }
  const last = splitter.end();
  if (last.length > 0) yield last;
}
