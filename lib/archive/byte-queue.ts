// Exact-size reads over a stream of arbitrary chunks, for sequential formats
// (tar): headers need exactly 512 bytes, bodies are handed on in the chunks
// they arrived in, without copying.

export class ByteQueue {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly chunks: Uint8Array[] = [];
  /** Bytes of chunks[0] already handed out. */
  private offset = 0;
  private buffered = 0;
  private ended = false;
  private closed = false;

  constructor(
    stream: ReadableStream<Uint8Array>,
    private readonly signal: AbortSignal | undefined,
    /** Turns a failure of the underlying stream into the error the caller should see. */
    private readonly mapError: (error: unknown) => unknown,
    /** What reading after cancel() throws. */
    private readonly closedError: () => Error,
  ) {
    this.reader = stream.getReader();
  }

  /** Up to `max` bytes (at least one), or null at the end of the stream. */
  async readSome(max: number): Promise<Uint8Array | null> {
    if (this.closed) throw this.closedError();
    this.signal?.throwIfAborted();
    while (this.buffered === 0) {
      if (!(await this.pull())) return null;
    }
    const first = this.chunks[0]!;
    const n = Math.min(max, first.length - this.offset);
    const out = first.subarray(this.offset, this.offset + n);
    this.consume(n);
    return out;
  }

  /** Exactly `n` bytes, or fewer only when the stream ends first. */
  async readExact(n: number): Promise<Uint8Array> {
    if (this.closed) throw this.closedError();
    this.signal?.throwIfAborted();
    while (this.buffered < n && (await this.pull()));
    const len = Math.min(n, this.buffered);
    const first = this.chunks[0];
    if (first && first.length - this.offset >= len) {
      const out = first.slice(this.offset, this.offset + len);
      this.consume(len);
      return out;
    }
    const out = new Uint8Array(len);
    let filled = 0;
    while (filled < len) {
      const part = (await this.readSome(len - filled))!;
      out.set(part, filled);
      filled += part.length;
    }
    return out;
  }

  /** Discards up to `n` bytes; returns how many there were. */
  async skip(n: number): Promise<number> {
    let skipped = 0;
    while (skipped < n) {
      const part = await this.readSome(n - skipped);
      if (!part) break;
      skipped += part.length;
    }
    return skipped;
  }

  /** Reads to the end, so a compressed stream gets to check its trailer. */
  async drain(): Promise<void> {
    while (await this.readSome(Infinity));
  }

  async cancel(reason?: unknown): Promise<void> {
    this.closed = true;
    await this.reader.cancel(reason).catch(() => undefined);
  }

  private async pull(): Promise<boolean> {
    if (this.ended) return false;
    this.signal?.throwIfAborted();
    let result: ReadableStreamReadResult<Uint8Array>;
    try {
      result = await this.reader.read();
    } catch (error) {
      throw this.mapError(error);
    }
    if (this.closed) throw this.closedError();
    this.signal?.throwIfAborted();
    if (result.done) {
      this.ended = true;
      return false;
    }
    if (result.value.length > 0) {
      this.chunks.push(result.value);
      this.buffered += result.value.length;
    }
    return true;
  }

  private consume(n: number): void {
    this.buffered -= n;
    this.offset += n;
    while (this.chunks.length > 0 && this.offset >= this.chunks[0]!.length) {
      this.offset -= this.chunks[0]!.length;
      this.chunks.shift();
    }
  }
}
