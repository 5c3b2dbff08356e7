// Runs a stream through CompressionStream / DecompressionStream, feeding input
// only while output is wanted and not yet there, one chunk at a time.
// pipeThrough would do in browsers, but Node's (de)compression streams accept
// input without backpressure: a whole archive would be read at once and kept
// in memory until the output was consumed.

const ignore = () => undefined;

/** Told of the bytes going in and coming out; it may throw to stop the stream (a decompression bomb). */
export interface ThroughMeter {
  fed(bytes: number): void;
  gave(bytes: number): void;
}

export function throughOnDemand(
  source: ReadableStream<Uint8Array<ArrayBuffer>>,
  transform: { writable: WritableStream<BufferSource>; readable: ReadableStream<Uint8Array> },
  meter?: ThroughMeter,
): ReadableStream<Uint8Array> {
  const input = source.getReader();
  const writer = transform.writable.getWriter();
  const output = transform.readable.getReader();
  let inputDone = false;
  /**
   * The write (or close) not yet finished. Never more than one: Node finishes a
   * write only once the transform has room for its output, so this is what
   * bounds memory there.
   */
  let writing: Promise<void> | null = null;

  const stop = (reason: unknown) => {
    void input.cancel(reason).catch(ignore);
    void writer.abort(reason).catch(ignore);
    void output.cancel(reason).catch(ignore);
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          let settled = false;
          const read = output.read();
          read.then(() => (settled = true), ignore);
          while (!settled) {
            if (!writing) {
              if (inputDone) {
                await read;
                break;
              }
              const next = await input.read();
              if (!next.done) meter?.fed(next.value.length);
              const step = next.done ? writer.close() : writer.write(next.value);
              inputDone = next.done;
              writing = step;
              step.then(() => {
                if (writing === step) writing = null;
              }, ignore);
            }
            // Browsers hold a write until this read is pending; never wait on the write alone.
            await Promise.race([writing, read]);
          }
          const result = await read;
          if (result.done) controller.close();
          else {
            meter?.gave(result.value.length);
            controller.enqueue(result.value);
          }
        } catch (error) {
          stop(error);
          throw error;
        }
      },
      cancel(reason) {
        stop(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
